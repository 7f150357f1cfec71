"""Hostile configs of MyBilinearLayer, decoded from fuzzer bytes, and the
checks of what the layer makes of them (layer_config_fuzzer.py runs them).

A case starts from the layer's valid config and changes up to four keys:
the layer's own (target_size, align_corners, half_pixel_centers, most
often), Keras's (name, trainable, dtype) or unknown ones; a key is set to a
value of any JSON type or of NumPy's, huge, negative, zero, float, empty,
very long, or nested to any depth; or it is deleted; or the whole config is
replaced by something that is no dict. One case in KERAS_FILE_SHARE is
written into config.json of a saved .keras file (and may change the layer's
build_config too), which keras.models.load_model then reads.
"""

import json
import math
import os
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import atheris
import keras
import numpy as np
import tensorflow as tf

from tensorflow_ops.my_bilinear import MyBilinearLayer
from tensorflow_ops.my_bilinear.python.my_bilinear_ops import result_dtype

KERAS_FILE_SHARE = 8
OWN_KEYS = ["target_size", "align_corners", "half_pixel_centers"]
KERAS_KEYS = ["name", "trainable", "dtype"]
UNKNOWN_KEYS = ["size", "autocast", "input_shape", "batch_size", "foo", ""]

SPECIAL_INTS = [0, 1, 2, 3, -1, -3, 46341, 65536, 2**31 - 1, 2**31, -2**31, 2**63, 10**30]
SPECIAL_FLOATS = [0.0, -0.0, 2.5, 3.0, 1e-300, 1e308, math.nan, math.inf, -math.inf]
SPECIAL_STRINGS = ["", "3", "abc", "float32", "float16", "mixed_float16", "bfloat16",
                   "int8", "bool", "string", "complex64", "None", "true", "a/b", "\x00", "é"]
LONG_LENGTHS = [300, 100_000, 1_000_000]
# Nesting depths: a few levels, past the layer's bound of 16, and past
# Python's recursion limit (which json, repr and Keras's tree code cannot
# walk).
DEPTHS = [2, 3, 17, 100, 500, 5000]
DTYPE_POLICY_CLASSES = ["DTypePolicy", "DTypePolicyMap", "QuantizedDTypePolicy", "NoSuch"]

# The image dtypes MyBilinear takes, which the layer may compute in.
IMAGE_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16",
                "bfloat16", "float32", "float64")

# Inputs the built layer is called on: at most 2 x 6 x 6 x 3.
MAX_BATCH, MAX_SIDE, MAX_CHANNELS = 2, 6, 3


class Deep(NamedTuple):
    """A value nested `depth` lists deep: made at the end (json.dumps cannot
    write it past Python's recursion limit, so a .keras file gets its text)."""
    depth: int
    leaf: Any


class Case(NamedTuple):
    config: Any                   # the hostile config (Deep values still inside)
    changed: Dict[str, Any]       # key -> new value ("<deleted>" if removed)
    keras_file: bool              # written into a .keras file, else from_config
    build_shape: Any              # the .keras build_config's input_shape, if changed
    images_shape: Tuple[int, int, int, int]


DELETED = "<deleted>"
UNCHANGED = object()


def _value(fdp: atheris.FuzzedDataProvider, level: int = 0) -> Any:
    """A value of any kind a config might hold, often a hostile one; lists
    and dicts nest at most 3 levels (Deep nests further)."""
    kind = fdp.ConsumeIntInRange(0, 13)
    if kind == 0:
        return fdp.PickValueInList(SPECIAL_INTS)
    if kind == 1:
        return fdp.ConsumeIntInRange(-5, 70)
    if kind == 2:
        return fdp.PickValueInList(SPECIAL_FLOATS)
    if kind == 3:
        return fdp.PickValueInList(SPECIAL_STRINGS)
    if kind == 4:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if kind == 5:
        return None
    if kind == 6:
        return fdp.ConsumeBool()
    if kind in (7, 8) and level < 3:
        items = [_value(fdp, level + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
        if kind == 7:
            return items
        return {fdp.PickValueInList(OWN_KEYS + KERAS_KEYS + ["config", "class_name"]): item
                for item in items}
    if kind == 9:
        return Deep(fdp.PickValueInList(DEPTHS), [3, 4] if fdp.ConsumeBool() else 1)
    if kind == 10:
        return "x" * fdp.PickValueInList(LONG_LENGTHS)
    if kind == 11:
        # NumPy scalars, which only a Python caller (not a .keras file) passes.
        return fdp.PickValueInList([np.int64(3), np.int32(-1), np.uint8(0), np.float32(3.0),
                                    np.bool_(True), np.float64(math.nan), np.int64(2**40)])
    if kind == 12 and level < 3:
        return {"module": "keras", "class_name": fdp.PickValueInList(DTYPE_POLICY_CLASSES),
                "config": {"name": _value(fdp, level + 1)}, "registered_name": None}
    if kind == 13 and level < 3:
        return [_value(fdp, level + 1), _value(fdp, level + 1)]  # a pair, as target_size wants
    return None  # a nesting kind below level 3: nesting deeper is Deep's job


DTYPE_NAMES = ["float32", "float16", "bfloat16", "float64", "mixed_float16", "mixed_bfloat16",
               "int8", "uint8", "int32", "int64", "uint32", "bool", "string", "complex64",
               "float8_e4m3fn"]


def _value_for(fdp: atheris.FuzzedDataProvider, key: str) -> Any:
    """A value for `key`: half the time one of the kind it wants (a pair of
    small integers, a bool, a dtype name), which may pass or fail; else any."""
    if fdp.ConsumeBool():
        if key == "target_size":
            return [fdp.ConsumeIntInRange(-1, 9), fdp.ConsumeIntInRange(-1, 9)]
        if key in ("align_corners", "half_pixel_centers", "trainable"):
            return fdp.ConsumeBool()
        if key == "dtype":
            return fdp.PickValueInList(DTYPE_NAMES)
    return _value(fdp)


def base_config() -> Dict[str, Any]:
    return MyBilinearLayer((3, 5), align_corners=False, half_pixel_centers=True,
                           name="resize").get_config()


def decode(fdp: atheris.FuzzedDataProvider) -> Case:
    """One hostile case from the fuzzer's bytes."""
    # Bytes run out as zeros: those decode to from_config with changed keys.
    keras_file = fdp.ConsumeIntInRange(0, KERAS_FILE_SHARE - 1) == KERAS_FILE_SHARE - 1
    config: Any = base_config()
    changed: Dict[str, Any] = {}
    if fdp.ConsumeIntInRange(0, 31) == 31:
        config = _value(fdp)
        changed["config"] = config
    else:
        for _ in range(fdp.ConsumeIntInRange(0, 4)):
            group = fdp.ConsumeIntInRange(0, 5)
            key = (fdp.PickValueInList(OWN_KEYS) if group < 3 else
                   fdp.PickValueInList(KERAS_KEYS) if group < 5 else
                   fdp.PickValueInList(UNKNOWN_KEYS + [fdp.ConsumeUnicodeNoSurrogates(6)]))
            if fdp.ConsumeIntInRange(0, 7) == 0:
                config.pop(key, None)
                changed[key] = DELETED
            else:
                config[key] = changed[key] = _value_for(fdp, key)
    build_shape = _value(fdp) if keras_file and fdp.ConsumeIntInRange(0, 3) == 0 else UNCHANGED
    if build_shape is not UNCHANGED:
        changed["build_config"] = build_shape
    images_shape = (fdp.ConsumeIntInRange(1, MAX_BATCH), fdp.ConsumeIntInRange(1, MAX_SIDE),
                    fdp.ConsumeIntInRange(1, MAX_SIDE), fdp.ConsumeIntInRange(1, MAX_CHANNELS))
    return Case(config, changed, keras_file, build_shape, images_shape)


def materialize(value: Any) -> Any:
    """`value` with every Deep made into nested lists (without recursion)."""
    if isinstance(value, Deep):
        nested = value.leaf
        for _ in range(value.depth):
            nested = [nested]
        return nested
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    if isinstance(value, list):
        return [materialize(item) for item in value]
    return value


def depth_of(value: Any) -> int:
    """The deepest nesting of lists and dicts in `value`, Deep values counted
    (without recursion, as the nesting may be deep)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Deep):
            stack.append((item.leaf, depth + item.depth))
        elif isinstance(item, (dict, list)):
            stack.extend((inner, depth + 1)
                         for inner in (item.values() if isinstance(item, dict) else item))
            deepest = max(deepest, depth + 1)
        else:
            deepest = max(deepest, depth)
    return deepest


def json_text(value: Any) -> Optional[str]:
    """`value` as JSON text, Deep values written out as text; None if it holds
    something JSON has no form for (NumPy scalars)."""
    deep: List[Deep] = []

    def placeholders(item: Any) -> Any:
        if isinstance(item, Deep):
            deep.append(item)
            return f"\x00deep{len(deep) - 1}\x00"
        if isinstance(item, dict):
            return {key: placeholders(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [placeholders(inner) for inner in item]
        return item

    try:
        text = json.dumps(placeholders(value))
    except (TypeError, ValueError):
        return None
    for index, item in enumerate(deep):
        text = text.replace(json.dumps(f"\x00deep{index}\x00"),
                            "[" * item.depth + json.dumps(item.leaf) + "]" * item.depth)
    return text


def save_template(folder: str) -> str:
    """A .keras file of a model around the layer; returns its path."""
    inputs = keras.Input(shape=(None, None, MAX_CHANNELS))
    model = keras.Model(inputs, MyBilinearLayer((3, 5), align_corners=False,
                                                half_pixel_centers=True, name="resize")(inputs))
    path = os.path.join(folder, "template.keras")
    model.save(path)
    return path


def _valid_size(value: Any) -> bool:
    """What the layer may take as target_size, judged apart from its code."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return False
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               and 0 < int(v) < 2**31 for v in value)


def check_layer(layer: MyBilinearLayer, config: Dict[str, Any]) -> None:
    """A layer that was made holds valid settings, the config's own.

    Raises:
      AssertionError: it took a bad value without refusing it, or another one.
    """
    if "target_size" in config:
        assert _valid_size(config["target_size"]), \
            f"accepted target_size {str(config['target_size'])[:100]}"
        assert layer.target_size == tuple(int(v) for v in config["target_size"]), \
            f"target_size {layer.target_size} from {config['target_size']}"
    for flag in ("align_corners", "half_pixel_centers"):
        if flag in config:
            assert isinstance(config[flag], (bool, np.bool_)), \
                f"accepted {flag} {str(config[flag])[:100]}"
            assert getattr(layer, flag) is bool(config[flag]), f"{flag} not the config's"
    assert layer.compute_dtype in IMAGE_DTYPES, f"accepted dtype {layer.compute_dtype!r}"
    assert all(type(v) is int for v in layer.target_size), f"target_size {layer.target_size!r}"
    assert type(layer.align_corners) is bool and type(layer.half_pixel_centers) is bool
    assert not (layer.align_corners and layer.half_pixel_centers), "both flags set"


def check_result(layer: MyBilinearLayer, images: np.ndarray, result: tf.Tensor) -> None:
    """The layer's output has the shape and dtype it promises."""
    expected = (images.shape[0], *layer.target_size, images.shape[3])
    assert tuple(result.shape) == expected, f"output shape {result.shape}, expected {expected}"
    dtype = result_dtype(tf.as_dtype(layer.compute_dtype))
    assert result.dtype == dtype, f"output dtype {result.dtype.name}, expected {dtype.name}"
