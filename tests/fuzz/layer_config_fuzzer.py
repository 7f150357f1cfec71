"""Coverage-guided fuzz target (Atheris) for MyBilinearLayer.from_config and
the loading of .keras files, with hostile configs (layer_configs.py).

Each input is decoded into a config of the layer with up to four keys
changed (or the whole config replaced), given to `MyBilinearLayer.from_config`
or, for one input in layer_configs.KERAS_FILE_SHARE, written into the
config.json of a saved model and loaded with `keras.models.load_model`. Where
that makes a layer, its settings must be valid, and it is called on a small
input: the result must have the shape and dtype the layer promises.

The outcomes allowed:
- making the layer: success, or ValueError or TypeError (what Keras raises
  for its own keys, and wraps ours in) whose message names a changed key or
  value; and, from a .keras file nested deeper than Python's recursion limit,
  json's RecursionError ("while decoding a JSON ..."), raised before any
  Keras or layer code runs: that is Python refusing the file, not a finding.
- calling it: a result, or InvalidArgumentError or ResourceExhaustedError
  with a message (a target size too large to compute, as the op fuzzer allows).
Anything else is a finding: libFuzzer writes the input to crash-<sha1>, and
`--describe FILE` prints the case.

    python tests/fuzz/layer_config_fuzzer.py -runs=3000 -seed=1    # CI
    mkdir -p /tmp/config_corpus && python tests/fuzz/layer_config_fuzzer.py \\
        /tmp/config_corpus -max_total_time=600 -artifact_prefix=/tmp/config_findings-
    python tests/fuzz/layer_config_fuzzer.py --describe crash-0123...

Atheris instruments the layer's package and the decoder, not Keras
(instrumenting its 500 modules took 40 s at every start); how each call
ended is signalled as coverage too (fuzz_support.make_outcome_signal), so
inputs reaching a new refusal are kept. The address space is capped as in
op_fuzzer.py.
"""

import collections
import io
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import atheris  # pylint: disable=g-import-not-at-top

import keras  # pylint: disable=g-import-not-at-top
import numpy as np  # pylint: disable=g-import-not-at-top
import tensorflow as tf  # pylint: disable=g-import-not-at-top

with atheris.instrument_imports(include=["tensorflow_ops", "layer_configs"]):
    from tensorflow_ops.my_bilinear.python import my_bilinear_layer

    import fuzz_support
    import layer_configs

# libFuzzer flags unless given on the command line, as op_fuzzer.py's: inputs
# start at full length (a case with long values needs a hundred bytes or so).
DEFAULT_FLAGS = {"rss_limit_mb": 0, "len_control": 0, "max_len": 512, "timeout": 60}
STATS_EVERY = 1000
stats = collections.Counter()
signal = fuzz_support.make_outcome_signal()
BASE_KEYS = sorted(layer_configs.base_config())
template_bytes = b""  # the saved .keras file, set by main()


class Finding(AssertionError):
    """An outcome the layer must not have."""


def _names_a_change(message: str, case: layer_configs.Case) -> bool:
    """Whether the message names a changed key or the start of a changed
    value. Keras's wrapping prints the whole config ("config={...}"), which
    names every key, so only the text before it and the wrapped error count."""
    tail = message.split("config=", 1)[0] + message.rsplit("Exception encountered:", 1)[-1]
    changed = dict(case.changed)
    if "config" in changed:  # every key of a replaced config is new or gone
        changed.update({key: layer_configs.DELETED for key in BASE_KEYS})
        changed.update(case.config if isinstance(case.config, dict) else {})
    for key, value in changed.items():
        if key and key in tail:
            return True
        # As the layer prints it (shortened, keys sorted), or as Keras does
        # (str(), which a value nested past the recursion limit breaks).
        shallow = layer_configs.depth_of(value) < 100  # Deep values still unmade
        value = layer_configs.materialize(value)
        shown = [my_bilinear_layer._shown(value)[:20]]  # pylint: disable=protected-access
        if shallow:
            shown.append(str(value)[:20])
        if any(text and text in tail for text in shown):
            return True
    return False


def _expect_refusal(error: Exception, case: layer_configs.Case, stage: str) -> None:
    if (case.keras_file and isinstance(error, RecursionError)
            and "while decoding a JSON" in str(error)
            and max(layer_configs.depth_of(case.config),
                    layer_configs.depth_of(case.build_shape)) >= sys.getrecursionlimit()):
        stats[f"{stage} json RecursionError"] += 1
        return
    if not isinstance(error, (ValueError, TypeError)) or not str(error).strip():
        raise error
    if not _names_a_change(str(error), case):
        raise Finding(f"{stage}: {type(error).__name__} names no changed key or value "
                      f"of {sorted(case.changed)}: {str(error)[:300]}") from error
    stats[f"{stage} {type(error).__name__}"] += 1
    signal(stage + re.split(r"[0-9\[('\"]", str(error).rsplit(":", 1)[0], maxsplit=1)[0])


def _load_tampered(case: layer_configs.Case) -> keras.Model:
    """The template .keras file with the case's config (and build_config) in
    config.json, loaded. The file is removed at once: libFuzzer ends the
    process without Python's clean-up."""
    with tempfile.NamedTemporaryFile(suffix=".keras", delete=False) as tampered:
        with zipfile.ZipFile(io.BytesIO(template_bytes)) as original, \
                zipfile.ZipFile(tampered, "w") as out:
            for item in original.infolist():
                data = original.read(item.filename)
                if item.filename == "config.json":
                    data = _tampered_config_json(data.decode(), case).encode()
                out.writestr(item, data)
    try:
        return keras.models.load_model(tampered.name)
    finally:
        os.remove(tampered.name)


def _tampered_config_json(text: str, case: layer_configs.Case) -> str:
    """config.json with the layer's config, and build_config's input_shape if
    the case changes it, replaced by the case's JSON text."""
    model = json.loads(text)
    layer = next(layer for layer in model["config"]["layers"]
                 if layer["class_name"] == "MyBilinearLayer")
    layer["config"] = "\x00config\x00"
    if case.build_shape is not layer_configs.UNCHANGED:
        layer["build_config"]["input_shape"] = "\x00shape\x00"
    text = json.dumps(model)
    text = text.replace(json.dumps("\x00config\x00"), layer_configs.json_text(case.config))
    if case.build_shape is not layer_configs.UNCHANGED:
        text = text.replace(json.dumps("\x00shape\x00"), layer_configs.json_text(case.build_shape))
    return text


def _keras_file_case(case: layer_configs.Case) -> bool:
    """Whether the case can be written as JSON (NumPy scalars cannot)."""
    if not case.keras_file:
        return False
    shape = case.build_shape
    return (layer_configs.json_text(case.config) is not None and
            (shape is layer_configs.UNCHANGED or layer_configs.json_text(shape) is not None))


def test_one_input(data: bytes) -> None:
    stats["calls"] += 1
    if stats["calls"] % STATS_EVERY == 0:
        print(f"layer_config_fuzzer after {stats['calls']} calls: "
              f"{dict(sorted(stats.items()))}", flush=True)
    case = layer_configs.decode(atheris.FuzzedDataProvider(data))
    from_file = _keras_file_case(case)
    stage = "load_model" if from_file else "from_config"
    if from_file:
        case = case._replace(images_shape=case.images_shape[:3] + (layer_configs.MAX_CHANNELS,))
    try:
        if from_file:
            model = _load_tampered(case)
            layer = next(layer for layer in model.layers
                         if isinstance(layer, layer_configs.MyBilinearLayer))
        else:
            model = layer = layer_configs.MyBilinearLayer.from_config(
                layer_configs.materialize(case.config))
    except Finding:
        raise
    except Exception as error:  # pylint: disable=broad-except
        _expect_refusal(error, case, stage)
        return
    config = layer_configs.materialize(case.config)
    layer_configs.check_layer(layer, config if isinstance(config, dict) else {})
    stats[f"{stage} made a layer"] += 1
    images = np.ones(case.images_shape, np.float32)
    try:
        result = model(images)
    except (tf.errors.InvalidArgumentError, tf.errors.ResourceExhaustedError) as error:
        if not error.message.strip():
            raise
        stats[f"call {type(error).__name__}"] += 1
        signal("call " + type(error).__name__)
        return
    layer_configs.check_result(layer, images, result)
    stats["call ran"] += 1
    signal(f"{stage} ran")


def main(argv) -> None:
    global template_bytes  # pylint: disable=global-statement
    if len(argv) == 3 and argv[1] == "--describe":
        with open(argv[2], "rb") as finding:
            case = layer_configs.decode(atheris.FuzzedDataProvider(finding.read()))
        print(f"{'a .keras file' if _keras_file_case(case) else 'from_config'}: changed "
              f"{ {key: str(value)[:200] for key, value in case.changed.items()} }, build "
              f"shape {str(case.build_shape)[:200]}, called on {case.images_shape}")
        return
    folder = tempfile.mkdtemp(prefix="layer_config_fuzzer_")
    try:
        with open(layer_configs.save_template(folder), "rb") as template:
            template_bytes = template.read()
    finally:
        shutil.rmtree(folder)
    print(f"fuzzing MyBilinearLayer configs, from_config and .keras files "
          f"({len(template_bytes)} bytes)", flush=True)
    tf.constant(0.0) + 1.0  # start the eager context and its thread pools
    fuzz_support.cap_memory()
    atheris.Setup(fuzz_support.with_default_flags(argv, DEFAULT_FLAGS), test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
