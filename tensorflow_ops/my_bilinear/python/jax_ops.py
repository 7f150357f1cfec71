"""MyBilinear and MyBilinearGrad for JAX, through XLA's FFI.

    import tensorflow_ops.my_bilinear.jax_ops as jax_ops
    resized = jax_ops.my_bilinear(images, (64, 48), align_corners=False,
                                  half_pixel_centers=True)

The handlers (cc/jax/my_bilinear_ffi.cc) run the same compiled math as the
TensorFlow CPU kernels, so the results are the same bits. This module imports
no TensorFlow (imported as above; `from tensorflow_ops.my_bilinear import
jax_ops` runs the package's __init__ in full first, TensorFlow included): it
finds my_bilinear_jax_ffi.so where the op library is found
(library_loader.find_library) and registers its handlers with XLA on import.

Both functions are linear in their array argument and each is the other's
adjoint, so jax.custom_vjp makes each the gradient of the other: jax.grad,
jax.jacrev and every higher order work, as do jax.jit and jax.vmap (whose
extra leading axes the handlers fold into the batch).
"""

import ctypes
import functools
import os
from typing import Any, Sequence, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from tensorflow_ops import library_loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY_NAME = "my_bilinear_jax_ffi.so"
BUILD_TARGET = "//tensorflow_ops/my_bilinear:my_bilinear_jax_ffi.so"

# XLA's names of the handlers; the library's symbols (cc/jax) for each platform.
RESIZE_TARGET = "MyBilinear"
RESIZE_GRAD_TARGET = "MyBilinearGrad"
_SYMBOLS = {
    "cpu": ("MyBilinearFfi", "MyBilinearGradFfi"),
    "CUDA": ("MyBilinearFfiCuda", "MyBilinearGradFfiCuda"),
}

# The image dtypes of the TensorFlow CPU kernel; the floating ones are also
# the dtypes of the gradient.
IMAGE_DTYPES = tuple(np.dtype(name) for name in (
    "int8", "uint8", "int16", "uint16", "int32", "int64"))
FLOAT_DTYPES = (jnp.dtype(jnp.float16), jnp.dtype(jnp.bfloat16),
                np.dtype("float32"), np.dtype("float64"))
IMAGE_DTYPES = IMAGE_DTYPES + FLOAT_DTYPES

_INT32_MAX = int(np.iinfo(np.int32).max)
_INT64_MAX = int(np.iinfo(np.int64).max)


def _register_handlers() -> Tuple[str, ...]:
    """Loads the FFI library and registers its handlers; returns the platforms
    registered (CUDA only where the library was built with --config=cuda)."""
    path = library_loader.find_library("my_bilinear_jax_ffi.so", _PACKAGE_DIR, BUILD_TARGET)
    try:
        library = ctypes.cdll.LoadLibrary(path)
    except OSError as error:
        raise ImportError(f"{path} could not be loaded: {error}. Rebuild it with "
                          f"`python3 configure.py && bazel build {BUILD_TARGET}`.") from error
    platforms = []
    for platform, symbols in _SYMBOLS.items():
        if not all(hasattr(library, symbol) for symbol in symbols):
            continue
        for target, symbol in zip((RESIZE_TARGET, RESIZE_GRAD_TARGET), symbols):
            jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(library, symbol)),
                                        platform=platform)
        platforms.append(platform)
    if "cpu" not in platforms:
        raise ImportError(f"{path} holds no MyBilinearFfi handler; rebuild it with "
                          f"`python3 configure.py && bazel build {BUILD_TARGET}`.")
    return tuple(platforms)


PLATFORMS = _register_handlers()


def _shape_string(shape: Sequence[int]) -> str:
    """A shape as TensorFlow's kernels print it: [2,3,4,1]."""
    return "[" + ",".join(str(dim) for dim in shape) + "]"


def _check_flags(align_corners: Any, half_pixel_centers: Any) -> Tuple[bool, bool]:
    for name, value in (("align_corners", align_corners),
                        ("half_pixel_centers", half_pixel_centers)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a Python or NumPy bool, got {value!r}")
    if half_pixel_centers and align_corners:
        raise ValueError("half_pixel_centers=true requires align_corners=false, got "
                         "align_corners=true")
    return bool(align_corners), bool(half_pixel_centers)


def _check_image_shape(name: str, shape: Sequence[int]) -> None:
    """The TensorFlow kernels' check of a [batch, height, width, channels] shape."""
    if len(shape) != 4:
        raise ValueError(f"{name} must be 4-D [batch, height, width, channels], got "
                         f"shape {_shape_string(shape)}")
    if shape[1] <= 0 or shape[2] <= 0:
        raise ValueError(f"{name} must have positive height and width, got shape "
                         f"{_shape_string(shape)}")
    if shape[3] <= 0:
        raise ValueError(f"{name} must have at least one channel, got shape "
                         f"{_shape_string(shape)}")


def _check_size(size: Any) -> Tuple[int, int]:
    """`size` as (height, width) Python ints: static, positive, fitting int32."""
    if isinstance(size, jax.core.Tracer):
        raise TypeError("size must be static (Python ints or a tuple); got a traced "
                        f"value {size!r}: output shapes are fixed when JAX traces")
    values = np.asarray(size)
    if values.dtype.kind not in "iu" or values.shape != (2,):
        raise TypeError(f"size must be two integers [height, width], got {size!r}")
    height, width = (int(value) for value in values)
    if height <= 0 or width <= 0:
        raise ValueError(f"size must be positive, got [{height}, {width}]")
    if height > _INT32_MAX or width > _INT32_MAX:
        raise ValueError(f"size must fit int32, got [{height}, {width}]")
    return height, width


def _as_images(images: Any) -> jax.Array:
    images = jnp.asarray(images)
    if images.dtype not in IMAGE_DTYPES:
        raise TypeError(f"images must have one of the dtypes "
                        f"{', '.join(str(d) for d in IMAGE_DTYPES)}, got {images.dtype}")
    return images


def result_dtype(images_dtype: Any) -> np.dtype:
    """The dtype my_bilinear returns: floating images keep theirs, integer
    images give float32 (as TensorFlow's ResizeBilinear)."""
    dtype = jnp.dtype(images_dtype)
    return dtype if dtype in FLOAT_DTYPES else np.dtype("float32")


def _check_result_bytes(out_shape: Tuple[int, ...], out_dtype: Any) -> None:
    """Refuses a result whose bytes overflow int64, which XLA aborts the process
    on (an unchecked StatusOr) rather than reporting."""
    size = np.dtype(out_dtype).itemsize
    for dim in out_shape:
        size *= int(dim)
    if size > _INT64_MAX:
        raise ValueError(f"output shape {_shape_string(out_shape)} overflows 64-bit "
                         "sizes")


def _ffi_call(target: str, operand: jax.Array, out_shape: Tuple[int, ...],
              out_dtype: Any, align_corners: bool, half_pixel_centers: bool) -> jax.Array:
    """The handler on `operand`. Under jax.vmap the handler gets the operand and
    result with the vmapped axes first, and folds them into the batch; the rule
    checks the batched result's size, which the vmapped axes multiply past
    what my_bilinear checked."""
    _check_result_bytes(out_shape, out_dtype)

    @jax.custom_batching.custom_vmap
    def call(operand):
        return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(out_shape, out_dtype))(
            operand, align_corners=np.bool_(align_corners),
            half_pixel_centers=np.bool_(half_pixel_centers))

    @call.def_vmap
    def _batched(axis_size, in_batched, operand):
        if not in_batched[0]:
            operand = jnp.broadcast_to(operand, (axis_size, *operand.shape))
        return _ffi_call(target, operand, (axis_size, *out_shape), out_dtype,
                         align_corners, half_pixel_centers), True

    return call(operand)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _resize(images: jax.Array, size: Tuple[int, int], align_corners: bool,
            half_pixel_centers: bool) -> jax.Array:
    batch, _, _, channels = images.shape
    return _ffi_call(RESIZE_TARGET, images, (batch, *size, channels),
                     result_dtype(images.dtype), align_corners, half_pixel_centers)


def _resize_fwd(images, size, align_corners, half_pixel_centers):
    # Only the input's height and width are needed, and they are static: no
    # residual arrays.
    return _resize(images, size, align_corners, half_pixel_centers), images.shape[1:3]


def _resize_bwd(size, align_corners, half_pixel_centers, in_size, grads):
    del size
    return (_resize_grad(grads, in_size, align_corners, half_pixel_centers),)


_resize.defvjp(_resize_fwd, _resize_bwd)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2, 3))
def _resize_grad(grads: jax.Array, in_size: Tuple[int, int], align_corners: bool,
                 half_pixel_centers: bool) -> jax.Array:
    batch, _, _, channels = grads.shape
    return _ffi_call(RESIZE_GRAD_TARGET, grads, (batch, *in_size, channels), grads.dtype,
                     align_corners, half_pixel_centers)


def _resize_grad_fwd(grads, in_size, align_corners, half_pixel_centers):
    return (_resize_grad(grads, in_size, align_corners, half_pixel_centers),
            grads.shape[1:3])


def _resize_grad_bwd(in_size, align_corners, half_pixel_centers, out_size, cotangent):
    # The gradient is linear in `grads`, with the forward resize as its adjoint.
    del in_size
    return (_resize(cotangent, tuple(out_size), align_corners, half_pixel_centers),)


_resize_grad.defvjp(_resize_grad_fwd, _resize_grad_bwd)


def _check_output_bytes(images_shape: Sequence[int], size: Tuple[int, int],
                        dtype: np.dtype) -> None:
    batch, _, _, channels = images_shape
    if batch * size[0] * size[1] * channels * dtype.itemsize > _INT64_MAX:
        raise ValueError(f"output shape [{batch}, {size[0]}, {size[1]}, {channels}] for "
                         f"size [{size[0]}, {size[1]}] overflows 64-bit sizes")


def my_bilinear(images: Any, size: Sequence[int], align_corners: bool = True,
                half_pixel_centers: bool = False) -> jax.Array:
    """Resizes a batch of images with bilinear interpolation.

    The JAX twin of `tensorflow_ops.my_bilinear.my_bilinear`, with the same
    bits as the TensorFlow CPU kernel.

    Args:
      images: [batch, height, width, channels] of int8, uint8, int16, uint16,
        int32, int64, float16, bfloat16, float32 or float64.
      size: [new_height, new_width], static: Python ints, a tuple or a NumPy
        array (output shapes are fixed when JAX traces).
      align_corners: if True, the corner pixels of input and output are aligned.
      half_pixel_centers: if True, pixel centres are at +0.5; needs
        align_corners=False.

    Returns:
      [batch, new_height, new_width, channels]: the dtype of floating `images`,
      float32 for integer ones. Differentiable in floating `images`.

    Raises:
      TypeError: a dtype MyBilinear does not take, a traced or non-integer
        `size`, or flags that are not bools.
      ValueError: the TensorFlow kernels' checks (shapes, sizes, flags), with
        their messages.
    """
    align_corners, half_pixel_centers = _check_flags(align_corners, half_pixel_centers)
    images = _as_images(images)
    _check_image_shape("images", images.shape)
    size = _check_size(size)
    _check_output_bytes(images.shape, size, result_dtype(images.dtype))
    if images.dtype not in FLOAT_DTYPES:
        # Integer images have no gradient; custom_vjp would ask for one.
        batch, _, _, channels = images.shape
        return _ffi_call(RESIZE_TARGET, images, (batch, *size, channels),
                         np.dtype("float32"), align_corners, half_pixel_centers)
    return _resize(images, size, align_corners, half_pixel_centers)


def my_bilinear_grad(grads: Any, original_image: Any, align_corners: bool = True,
                     half_pixel_centers: bool = False) -> jax.Array:
    """The gradient of my_bilinear with respect to `original_image`.

    The JAX twin of the MyBilinearGrad op: `original_image` gives only its
    shape (so it gets a zero gradient), and the result has its shape and the
    dtype of `grads`.

    Args:
      grads: [batch, new_height, new_width, channels] of float16, bfloat16,
        float32 or float64: the gradient of my_bilinear's output.
      original_image: [batch, height, width, channels] of the same dtype.
      align_corners: as for my_bilinear.
      half_pixel_centers: as for my_bilinear.

    Returns:
      [batch, height, width, channels], the dtype of `grads`.

    Raises:
      TypeError: a dtype other than the four floating ones, differing dtypes,
        or flags that are not bools.
      ValueError: the TensorFlow kernel's checks of the shapes, with its messages.
    """
    align_corners, half_pixel_centers = _check_flags(align_corners, half_pixel_centers)
    grads = jnp.asarray(grads)
    original_image = jnp.asarray(original_image)
    for name, value in (("grads", grads), ("original_image", original_image)):
        if value.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float16, bfloat16, float32 or float64, "
                            f"got {value.dtype}")
    if grads.dtype != original_image.dtype:
        raise TypeError(f"grads and original_image must have one dtype, got "
                        f"{grads.dtype} and {original_image.dtype}")
    _check_image_shape("grads", grads.shape)
    _check_image_shape("original_image", original_image.shape)
    if (grads.shape[0] != original_image.shape[0]
            or grads.shape[3] != original_image.shape[3]):
        raise ValueError(
            "grads and original_image must agree on batch and channels, got grads shape "
            f"{_shape_string(grads.shape)} and original_image shape "
            f"{_shape_string(original_image.shape)}")
    return _resize_grad(grads, tuple(original_image.shape[1:3]), align_corners,
                        half_pixel_centers)
