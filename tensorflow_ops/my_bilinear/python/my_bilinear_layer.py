"""MyBilinearLayer: the MyBilinear resize as a Keras 3 layer.

It is registered with Keras, so a model saved with `model.save("m.keras")` loads
with `keras.models.load_model("m.keras")` once `tensorflow_ops.my_bilinear` is
imported, without `custom_objects`.

It runs on two Keras backends: TensorFlow (the MyBilinear op) and JAX
(jax_ops, the same math through XLA's FFI, with the same bits). Under JAX,
this module neither loads the TensorFlow op library nor calls TensorFlow.
"""

import reprlib
from typing import Any, Dict, Sequence, Tuple

import keras
import numpy as np

# The resize of the backend Keras runs on, imported with this module, so that
# a missing library fails the import (with how to build it); None on a backend
# the layer does not run on, whose layers refuse to be made.
_BACKEND = keras.backend.backend()
_RESIZE: Any = None
SUPPORTS_JIT_COMPILE = False
if _BACKEND == "tensorflow":
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    from tensorflow_ops.my_bilinear.python import my_bilinear_ops  # pylint: disable=g-import-not-at-top
    _RESIZE = my_bilinear_ops.my_bilinear
    SUPPORTS_JIT_COMPILE = my_bilinear_ops.SUPPORTS_JIT_COMPILE
elif _BACKEND == "jax":
    from tensorflow_ops.my_bilinear.python import jax_ops  # pylint: disable=g-import-not-at-top
    _RESIZE = jax_ops.my_bilinear
    # The FFI handlers run under jax.jit, which is what Keras's jit_compile is
    # on this backend.
    SUPPORTS_JIT_COMPILE = True

_SUPPORTED_BACKENDS = ("tensorflow", "jax")

_INT32_MAX = int(np.iinfo(np.int32).max)

# The dtypes MyBilinear takes as images: the layer's compute dtype must be one.
_COMPUTE_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "int64", "float16",
                   "bfloat16", "float32", "float64")

# A valid config nests 4 levels (the dtype policy's config); a tampered one may
# nest thousands, which Python's repr (and so Keras's error messages) cannot
# print. Deeper configs are refused before Keras formats them.
MAX_CONFIG_NESTING = 16

# Bad values are shown shortened: a config may hold a megabyte-long string or
# a deeply nested list, which would drown (or break) the message.
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = 6


def _shown(value: Any) -> str:
    """`value` as a message shows it: its repr, shortened."""
    return _SHORT.repr(value)


def my_bilinear_supports_jit() -> bool:
    """Whether XLA can compile MyBilinear: the layer's `supports_jit`.

    Keras's default `compile(jit_compile="auto")` turns XLA on when TensorFlow
    sees a GPU and every layer reports `supports_jit`, and an op without an XLA
    kernel then fails inside `fit`. On TensorFlow the answer is the op
    package's own `SUPPORTS_JIT_COMPILE`, which my_bilinear_xla_test and this
    layer's test check against an actual jit compilation; on JAX, jit is
    always on the table (my_bilinear_jax_keras_test compiles it).
    """
    return SUPPORTS_JIT_COMPILE


def _checked_target_size(target_size: Sequence[int]) -> Tuple[int, int]:
    """Returns `target_size` as (height, width) of positive int32 Python ints."""
    # A string or dict of two items would unpack, but is no size.
    if isinstance(target_size, (str, bytes, dict)):
        raise ValueError(f"target_size must be (height, width), got {_shown(target_size)}")
    try:
        height, width = target_size
    except (TypeError, ValueError):
        raise ValueError(
            f"target_size must be (height, width), got {_shown(target_size)}") from None
    size = []
    for value in (height, width):
        # bool is an int subclass (NumPy's is not), but True is no size.
        if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
            raise ValueError(
                f"target_size must hold two integers, got {_shown(target_size)}")
        if int(value) <= 0:
            raise ValueError(f"target_size must be positive, got {_shown(target_size)}")
        if int(value) > _INT32_MAX:
            raise ValueError(f"target_size must fit int32, got {_shown(target_size)}")
        size.append(int(value))
    return size[0], size[1]


def _checked_flag(name: str, value: Any) -> bool:
    """A Python or NumPy bool as a Python bool: "no", None or 1 is no flag."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a bool, got {_shown(value)}")
    return bool(value)


def _check_rank(input_shape: Sequence[Any]) -> None:
    """A shape of 4 dims, each None or a nonnegative integer."""
    try:
        dims = tuple(input_shape)
    except TypeError:
        dims = None
    if dims is None or len(dims) != 4:
        raise ValueError(
            "MyBilinearLayer needs [batch, height, width, channels] inputs, got "
            f"shape {_shown(input_shape)}")
    for dim in dims:
        if dim is not None and (isinstance(dim, (bool, np.bool_))
                                or not hasattr(dim, "__index__") or int(dim) < 0):
            raise ValueError("MyBilinearLayer's input shape must hold None or "
                             f"nonnegative integers, got {_shown(input_shape)}")


def _nesting(config: Any) -> int:
    """How deep lists, tuples and dicts nest in `config`, counted up to
    MAX_CONFIG_NESTING + 1 (without recursion, which a deep config exhausts)."""
    deepest, stack = 0, [(config, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, (list, tuple, dict)):
            continue
        deepest = max(deepest, depth)
        if depth > MAX_CONFIG_NESTING:
            break
        items = value.values() if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items)
    return deepest


def _check_config(config: Any) -> None:
    """Refuses what Keras's from_config would fail on obscurely (or not at
    all): a non-dict config, deep nesting, a dtype config that is no policy,
    and bad values of the layer's own arguments."""
    if not isinstance(config, dict):
        raise TypeError(f"MyBilinearLayer's config must be a dict, got {_shown(config)}")
    for key, value in config.items():
        if _nesting(value) > MAX_CONFIG_NESTING:
            raise ValueError(f"MyBilinearLayer's config nests deeper than "
                             f"{MAX_CONFIG_NESTING} levels at {key!r}: {_shown(value)}")
    dtype = config.get("dtype")
    if isinstance(dtype, dict):
        # Keras's from_config deserializes a dtype dict itself, and raises
        # KeyError or AttributeError for some that are no policy.
        try:
            policy = keras.dtype_policies.deserialize(dtype)
        except Exception as error:  # pylint: disable=broad-except
            raise ValueError(f"MyBilinearLayer's dtype is no dtype policy: "
                             f"{_shown(dtype)} ({type(error).__name__}: {error})") from None
        if not isinstance(policy, keras.dtype_policies.DTypePolicy):
            raise ValueError(f"MyBilinearLayer's dtype is no dtype policy: {_shown(dtype)}")
    if "target_size" in config:
        _checked_target_size(config["target_size"])
    for flag in ("align_corners", "half_pixel_centers"):
        if flag in config:
            _checked_flag(flag, config[flag])


@keras.saving.register_keras_serializable(package="tensorflow_ops")
class MyBilinearLayer(keras.layers.Layer):
    """Resizes [batch, height, width, channels] images to `target_size` with the
    MyBilinear op; the output has `target_size` as height and width.

    The input is cast to the layer's compute dtype first (float16 under the
    "mixed_float16" policy), so the resize runs in that dtype.

    Args:
      target_size: (height, width) of the output, positive integers.
      align_corners: if True, the corner pixels of input and output are aligned.
      half_pixel_centers: if True, pixel centres are at +0.5 (as in
        `tf.image.resize`); needs align_corners=False.
      **kwargs: standard layer arguments (name, dtype, trainable, ...).

    Raises:
      RuntimeError: the Keras backend is neither TensorFlow nor JAX.
      ValueError: `target_size` is not two positive integers that fit int32,
        `align_corners` or `half_pixel_centers` is not a bool, both are set,
        or the compute dtype is not one MyBilinear takes.
    """

    def __init__(self,
                 target_size: Sequence[int],
                 align_corners: bool = True,
                 half_pixel_centers: bool = False,
                 **kwargs: Any) -> None:
        # The backend of the resize imported with this module: Keras's
        # backend is fixed once keras is imported.
        if keras.backend.backend() != _BACKEND or _BACKEND not in _SUPPORTED_BACKENDS:
            raise RuntimeError(
                "MyBilinearLayer runs a TensorFlow custom op or its JAX FFI twin "
                "and needs the TensorFlow or JAX Keras backend, but the backend is "
                f"'{keras.backend.backend()}'. Set KERAS_BACKEND=tensorflow (or jax) "
                "before importing keras.")
        super().__init__(**kwargs)
        self.target_size = _checked_target_size(target_size)
        self.align_corners = _checked_flag("align_corners", align_corners)
        self.half_pixel_centers = _checked_flag("half_pixel_centers", half_pixel_centers)
        if self.align_corners and self.half_pixel_centers:
            raise ValueError(
                "half_pixel_centers=True needs align_corners=False, got both True")
        # Else a dtype such as "bool" or "string" makes the layer, and fails
        # only when called, in the cast or the op.
        if self.compute_dtype not in _COMPUTE_DTYPES:
            raise ValueError(f"MyBilinearLayer computes in one of {', '.join(_COMPUTE_DTYPES)}, "
                             f"got dtype {self.compute_dtype!r}")
        self.supports_jit = my_bilinear_supports_jit()
        self.input_spec = keras.layers.InputSpec(ndim=4)

    def build(self, input_shape: Sequence[Any]) -> None:
        _check_rank(input_shape)
        super().build(input_shape)

    def call(self, inputs: Any) -> Any:
        if _BACKEND == "tensorflow":
            images = tf.cast(inputs, self.compute_dtype)
        else:
            images = keras.ops.cast(inputs, self.compute_dtype)
        return _RESIZE(images, self.target_size,
                       align_corners=self.align_corners,
                       half_pixel_centers=self.half_pixel_centers)

    def compute_output_shape(self, input_shape: Sequence[Any]) -> Tuple[Any, ...]:
        _check_rank(input_shape)
        return (input_shape[0], *self.target_size, input_shape[3])

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "MyBilinearLayer":
        """The layer of `config` (from get_config, or a .keras file).

        The config is checked first (_check_config): Keras's from_config wraps
        any error in a TypeError that prints the whole config, which a deeply
        nested one breaks, and its own dtype handling fails obscurely on some
        dicts.
        """
        _check_config(config)
        return super().from_config(config)

    def get_config(self) -> Dict[str, Any]:
        config = super().get_config()
        config.update(target_size=list(self.target_size),
                      align_corners=self.align_corners,
                      half_pixel_centers=self.half_pixel_centers)
        return config
