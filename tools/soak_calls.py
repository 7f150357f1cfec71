"""The calls that tools/soak.py makes, and the checks of their results.

A call is MyBilinear (the generated `ops.my_bilinear`, any image dtype into
any floating `out_type`) or MyBilinearGrad (`tf.GradientTape` over the public
`my_bilinear`, floating images), in one of three modes: eager, `tf.function`
and `tf.function(jit_compile=True)`. Every attr combination the op accepts is
drawn. A sampled call's result is compared with TensorFlow's own
`ResizeBilinear` / `ResizeBilinearGrad`, so that a soak cannot pass while the
ops return garbage.

Every function that a mode can call is traced, and every XLA computation
compiled, by `CallTable.prime()` before the soak's clock starts: the set is
finite (see JIT_CASES), so the growth check afterwards sees caches that can no
longer grow legitimately.
"""

import itertools
from typing import Callable, Dict, NamedTuple, Optional, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.my_bilinear_ops import result_dtype

MODES = ("eager", "function", "jit")
OPS = ("MyBilinear", "MyBilinearGrad")
IMAGE_DTYPES = (tf.int8, tf.uint8, tf.int16, tf.uint16, tf.int32, tf.int64,
                tf.half, tf.bfloat16, tf.float32, tf.float64)
FLOAT_DTYPES = (tf.half, tf.bfloat16, tf.float32, tf.float64)
# (align_corners, half_pixel_centers): the three combinations the op accepts.
ATTRS = ((True, False), (False, False), (False, True))

# No input, output or gradient holds more than this many elements (1 MiB of
# float32), so a call's memory is small next to the growth bound.
MAX_ELEMENTS = 1 << 18
CHANNELS = (1, 2, 3, 4, 5, 8, 17)

# XLA compiles once per input shape and `size` value, and keeps every
# executable: with random shapes its cache would grow for as long as new
# shapes come, legitimately. Under jit each attr combination therefore has one
# geometry, (images shape, size), so jit mode needs 30 forward compiles (10
# image dtypes x 3 attrs, out_type the wrapper's) and 12 gradient ones, all
# made by prime(). Up in both axes, down in both, and mixed.
JIT_CASES = {
    (True, False): ((2, 16, 24, 3), (40, 9)),
    (False, False): ((1, 50, 40, 8), (25, 64)),
    (False, True): ((3, 32, 32, 4), (64, 64)),
}

# How far a result may be from TensorFlow's, in units of the largest |image|.
# Eager and tf.function: float32 is bitwise ResizeBilinear (the project's
# claim, my_bilinear_ops_test), half and bfloat16 are its float32 rounded
# (bitwise, measured on 600 random cases), float64 computes coordinates in
# float64, where TensorFlow's kernel uses float32 ones (up to 1.2e-5 seen in
# the soak; my_bilinear_contract.md). Under XLA,
# fused multiply-adds move float32 by a few ulp (my_bilinear_xla_test allows
# 2 ulp per addition), which can flip one rounding of a 16-bit output.
EXACT_TOLERANCE = {tf.half: 0.0, tf.bfloat16: 0.0, tf.float32: 0.0, tf.float64: 5e-5}
XLA_TOLERANCE = {tf.half: 2.0**-10, tf.bfloat16: 2.0**-7, tf.float32: 2.0**-20,
                 tf.float64: 5e-5}
# MyBilinearGrad against ResizeBilinearGrad in float64: within GRAD_RTOL of
# each sum (the upstream gradients are nonnegative, so sums do not cancel) plus
# GRAD_SHARE_OF_LARGEST of the largest. float32's bound is my_bilinear_grad_test's.
# Half and bfloat16 sums are rounded to their type along the way, by up to a
# few of its ulps of the larger terms. float64 weights differ from TensorFlow's
# float32 ones by up to about 1e-7, which is large beside a small weight.
GRAD_RTOL = {tf.half: 2.0**-9, tf.bfloat16: 2.0**-6, tf.float32: 1e-5, tf.float64: 0.0}
GRAD_SHARE_OF_LARGEST = {tf.half: 2.0**-9, tf.bfloat16: 2.0**-6, tf.float32: 0.0,
                         tf.float64: 1e-5}


class Mismatch(AssertionError):
    """A result that differs from TensorFlow's beyond the tolerance."""


class Call(NamedTuple):
    mode: str
    op: str
    images: np.ndarray
    size: Tuple[int, int]
    out_type: tf.DType            # MyBilinear's; the images' dtype for the gradient
    attrs: Tuple[bool, bool]      # align_corners, half_pixel_centers

    def describe(self) -> str:
        return (f"{self.mode} {self.op}: images {self.images.dtype} "
                f"{list(self.images.shape)}, size {list(self.size)}, out_type "
                f"{self.out_type.name}, align_corners={self.attrs[0]}, "
                f"half_pixel_centers={self.attrs[1]}")


def _random_values(rng: np.random.Generator, shape, dtype: tf.DType) -> np.ndarray:
    """Floats in [0, 1), integers in [-1000, 1000) clipped to the dtype's range."""
    if dtype.is_floating:
        return rng.random(shape, np.float32).astype(dtype.as_numpy_dtype)
    info = np.iinfo(dtype.as_numpy_dtype)
    return rng.integers(max(int(info.min), -1000), min(int(info.max), 1000), shape,
                        dtype=np.int64).astype(dtype.as_numpy_dtype)


def _shrink(dims: list, keep: int) -> None:
    """Halves the largest of dims[keep:] until their product fits MAX_ELEMENTS."""
    while int(np.prod(dims, dtype=np.int64)) > MAX_ELEMENTS:
        axis = max(range(keep, len(dims)), key=lambda i: dims[i])
        dims[axis] //= 2


def random_geometry(rng: np.random.Generator) -> Tuple[Tuple[int, ...], Tuple[int, int]]:
    """A random images shape and size, input and output within MAX_ELEMENTS."""
    batch = 0 if rng.random() < 0.02 else int(rng.integers(1, 5))
    shape = [batch, int(rng.integers(1, 65)), int(rng.integers(1, 65)),
             int(rng.choice(CHANNELS))]
    _shrink(shape, keep=1)
    size = [int(rng.integers(1, 129)), int(rng.integers(1, 129))]
    out = [max(batch, 1)] + size + [shape[3]]
    _shrink(out, keep=1)
    return tuple(shape), (out[1], out[2])


def random_call(rng: np.random.Generator, mode: str, op: str) -> Call:
    attrs = ATTRS[int(rng.integers(len(ATTRS)))]
    if op == "MyBilinear":
        image_dtype = IMAGE_DTYPES[int(rng.integers(len(IMAGE_DTYPES)))]
    else:
        image_dtype = FLOAT_DTYPES[int(rng.integers(len(FLOAT_DTYPES)))]
    if mode == "jit":
        shape, size = JIT_CASES[attrs]
        out_type = result_dtype(image_dtype)
    else:
        shape, size = random_geometry(rng)
        out_type = (FLOAT_DTYPES[int(rng.integers(len(FLOAT_DTYPES)))]
                    if op == "MyBilinear" else image_dtype)
    return Call(mode, op, _random_values(rng, shape, image_dtype), size, out_type, attrs)


def _forward(images, size, out_type, attrs):
    return ops.my_bilinear(images=images, size=size, out_type=out_type,
                           align_corners=attrs[0], half_pixel_centers=attrs[1])


def _gradient(images, size, upstream, attrs):
    """The resized images and their gradient (run by MyBilinearGrad)."""
    with tf.GradientTape() as tape:
        tape.watch(images)
        resized = my_bilinear(images, size, align_corners=attrs[0],
                              half_pixel_centers=attrs[1])
    return resized, tape.gradient(resized, images, output_gradients=upstream)


class CallTable:
    """The tf.functions of the function and jit modes, one per signature.

    Each has an input_signature of unknown shapes, so it is traced once; the
    table is filled by prime() and only read afterwards, from every thread.
    """

    def __init__(self) -> None:
        self._functions: Dict[tuple, Callable] = {}

    @staticmethod
    def _keys():
        for mode, attrs, image_dtype in itertools.product(("function", "jit"), ATTRS,
                                                          IMAGE_DTYPES):
            out_types = FLOAT_DTYPES if mode == "function" else (result_dtype(image_dtype),)
            for out_type in out_types:
                yield (mode, "MyBilinear", image_dtype, out_type, attrs)
            if image_dtype.is_floating:
                yield (mode, "MyBilinearGrad", image_dtype, image_dtype, attrs)

    def _make(self, key) -> Callable:
        mode, op, image_dtype, out_type, attrs = key
        images = tf.TensorSpec([None] * 4, image_dtype)
        size = tf.TensorSpec([2], tf.int32)
        if op == "MyBilinear":
            body = lambda i, s: _forward(i, s, out_type, attrs)
            signature = [images, size]
        else:
            body = lambda i, s, u: _gradient(i, s, u, attrs)
            signature = [images, size, tf.TensorSpec([None] * 4, image_dtype)]
        return tf.function(body, input_signature=signature, jit_compile=mode == "jit")

    def prime(self, rng: np.random.Generator) -> int:
        """Traces every function and compiles every jit case; returns how many."""
        # Each function is traced once, but the functions share their Python
        # code, which TensorFlow's retracing warning takes for retracing.
        logger = tf.get_logger()
        level = logger.level
        logger.setLevel("ERROR")
        try:
            self._prime(rng)
        finally:
            logger.setLevel(level)
        return len(self._functions)

    def _prime(self, rng: np.random.Generator) -> None:
        for key in self._keys():
            self._functions[key] = self._make(key)
            mode, op, image_dtype, out_type, attrs = key
            shape, size = JIT_CASES[attrs] if mode == "jit" else ((1, 2, 3, 1), (3, 2))
            run(self, Call(mode, op, _random_values(rng, shape, image_dtype), size,
                           out_type, attrs), rng, check=False)

    def function(self, call: Call) -> Callable:
        image_dtype = tf.as_dtype(call.images.dtype)
        return self._functions[(call.mode, call.op, image_dtype, call.out_type, call.attrs)]


def run(table: CallTable, call: Call, rng: np.random.Generator, check: bool) -> bool:
    """Makes the call; with `check`, compares it with TensorFlow's op. Returns
    whether a result was compared (not where it is empty).

    Raises:
      Mismatch: the result is not TensorFlow's within the tolerance.
    """
    images = tf.constant(call.images)
    size = tf.constant(call.size, tf.int32)
    if call.op == "MyBilinear":
        if call.mode == "eager":
            result = _forward(images, size, call.out_type, call.attrs)
        else:
            result = table.function(call)(images, size)
        if check and result.shape.num_elements():
            check_forward(call, result.numpy())
            return True
        return False
    out_shape = (call.images.shape[0], *call.size, call.images.shape[3])
    upstream = tf.constant(_random_values(rng, out_shape, call.out_type))
    if call.mode == "eager":
        resized, grad = _gradient(images, size, upstream, call.attrs)
    else:
        resized, grad = table.function(call)(images, size, upstream)
    if check and resized.shape.num_elements() and grad.shape.num_elements():
        check_forward(call, resized.numpy())
        check_gradient(call, upstream.numpy(), grad.numpy())
        return True
    return False


def _max_error(call: Call, ours: np.ndarray, theirs: np.ndarray) -> Optional[str]:
    """None if `ours` is within the call's tolerance of `theirs`, else why not."""
    tolerances = XLA_TOLERANCE if call.mode == "jit" else EXACT_TOLERANCE
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return f"shape/dtype {ours.shape} {ours.dtype}, expected {theirs.shape} {theirs.dtype}"
    if tolerances[call.out_type] == 0.0:
        if ours.tobytes() == theirs.tobytes():
            return None
        return "not bitwise equal"
    scale = float(np.max(np.abs(call.images.astype(np.float64)), initial=0.0)) or 1.0
    error = float(np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)),
                         initial=0.0))
    if error <= tolerances[call.out_type] * scale:
        return None
    return f"differs by {error:.3g} (allowed {tolerances[call.out_type] * scale:.3g})"


def check_forward(call: Call, result: np.ndarray) -> None:
    """`result` against ResizeBilinear (float32) cast to the call's out_type."""
    theirs = tf.raw_ops.ResizeBilinear(images=call.images, size=call.size,
                                       align_corners=call.attrs[0],
                                       half_pixel_centers=call.attrs[1])
    problem = _max_error(call, result, tf.cast(theirs, call.out_type).numpy())
    if problem:
        raise Mismatch(f"{call.describe()}: result {problem} from ResizeBilinear")


def check_gradient(call: Call, upstream: np.ndarray, grad: np.ndarray) -> None:
    """The gradient against ResizeBilinearGrad in float64, within GRAD_RTOL."""
    theirs = tf.raw_ops.ResizeBilinearGrad(
        grads=upstream.astype(np.float64), original_image=call.images.astype(np.float64),
        align_corners=call.attrs[0], half_pixel_centers=call.attrs[1]).numpy()
    grad = grad.astype(np.float64)
    allowed = (GRAD_RTOL[call.out_type] * np.abs(theirs) + GRAD_SHARE_OF_LARGEST[call.out_type]
               * float(np.max(np.abs(theirs), initial=0.0)))
    if grad.shape != theirs.shape or not np.all(np.abs(grad - theirs) <= allowed):
        raise Mismatch(f"{call.describe()}: gradient differs from ResizeBilinearGrad "
                       f"by up to {float(np.max(np.abs(grad - theirs), initial=0.0)):.3g}")
