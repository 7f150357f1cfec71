"""Python API of MyBilinear: loads the op library, wraps its generated ops and
registers their gradients.

`ops` is the module of generated op functions from `tf.load_op_library`
(`ops.my_bilinear`, `ops.my_bilinear_grad`); `my_bilinear` is the friendly entry
point. Importing this module registers the gradient of MyBilinear (computed by
MyBilinearGrad) and of MyBilinearGrad (computed by MyBilinear, since the
gradient op is linear in `grads`), so second-order gradients work too.
"""

import os
from typing import Optional, Sequence, Union

import numpy as np
import tensorflow as tf

from tensorflow_ops import library_loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ops = library_loader.load_op_library(
    "my_bilinear_op.so", _PACKAGE_DIR, build_target=":my_bilinear_op.so")

# Both ops have XLA kernels (cc/kernels/my_bilinear_xla.cc, always linked into
# the library), so they compile under tf.function(jit_compile=True) and Keras's
# jit_compile, with `size` a compile-time constant. my_bilinear_xla_test checks
# that this holds for the loaded library.
SUPPORTS_JIT_COMPILE = True

SizeLike = Union[tf.Tensor, np.ndarray, Sequence[int]]

_INT32_MIN = int(np.iinfo(np.int32).min)
_INT32_MAX = int(np.iinfo(np.int32).max)

# Integer types whose every value fits int32, so a cast is all they need.
_NARROW_INTEGERS = (tf.int8, tf.uint8, tf.int16, tf.uint16)


def _size_as_int32(size: SizeLike) -> tf.Tensor:
    """Converts `size` to an int32 tensor, refusing values that int32 cannot hold."""
    if isinstance(size, (tf.Tensor, tf.Variable)):
        if not size.dtype.is_integer:
            raise TypeError(f"size must hold integers, got dtype {size.dtype.name}")
        if size.dtype == tf.int32:
            return size
        if size.dtype in _NARROW_INTEGERS:
            return tf.cast(size, tf.int32)
        # int64, uint32 and uint64: compared in their own type, which holds both
        # the values and the bounds (unsigned values are never below the bound).
        checks = [tf.debugging.assert_less_equal(
            size, tf.constant(_INT32_MAX, size.dtype), message="size must fit int32")]
        if not size.dtype.is_unsigned:
            checks.append(tf.debugging.assert_greater_equal(
                size, tf.constant(_INT32_MIN, size.dtype), message="size must fit int32"))
        with tf.control_dependencies(checks):
            return tf.cast(size, tf.int32)
    values = np.asarray(size)
    if values.dtype.kind not in "iu":
        raise TypeError(f"size must hold integers, got {size!r}")
    if values.size and (int(values.min()) < _INT32_MIN or int(values.max()) > _INT32_MAX):
        raise ValueError(f"size must fit int32, got {size!r}")
    return tf.constant(values.astype(np.int32))


def result_dtype(images_dtype: tf.DType) -> tf.DType:
    """The dtype `my_bilinear` returns: floating images keep theirs, integer
    images give float32 (as TensorFlow's ResizeBilinear)."""
    return images_dtype if images_dtype.is_floating else tf.float32


def my_bilinear(images: tf.Tensor,
                size: SizeLike,
                align_corners: bool = True,
                half_pixel_centers: bool = False,
                name: Optional[str] = None) -> tf.Tensor:
    """Resizes a batch of images with bilinear interpolation.

    Equal to `tf.raw_ops.ResizeBilinear` with the same attributes, except that
    floating images keep their dtype (half and bfloat16 are computed in float).
    Integer images are read directly, with no cast pass, and give float32.

    Args:
      images: [batch, height, width, channels] of int8, uint8, int16, uint16,
        int32, int64, half, bfloat16, float32 or float64.
      size: [new_height, new_width]: a tuple, a NumPy array or an integer tensor.
      align_corners: if True, the corner pixels of input and output are aligned.
      half_pixel_centers: if True, pixel centres are at +0.5; needs
        align_corners=False.
      name: name scope of the op.

    Returns:
      [batch, new_height, new_width, channels]: the dtype of floating `images`,
      float32 for integer ones.
    """
    with tf.name_scope(name or "MyBilinear"):
        images = tf.convert_to_tensor(images)
        return ops.my_bilinear(
            images=images,
            size=_size_as_int32(size),
            out_type=result_dtype(images.dtype),
            align_corners=align_corners,
            half_pixel_centers=half_pixel_centers)


def _resize_attrs(op: tf.Operation) -> dict:
    return dict(align_corners=op.get_attr("align_corners"),
                half_pixel_centers=op.get_attr("half_pixel_centers"))


@tf.RegisterGradient("MyBilinear")
def _my_bilinear_gradient(op: tf.Operation, grad: tf.Tensor):
    """d(images) = MyBilinearGrad(grad); integer images and `size` get none.

    Where out_type differs from the images' floating type (a direct call of the
    op), the upstream gradient is cast to the images' type first.
    """
    images = op.inputs[0]
    if not images.dtype.is_floating:
        return [None, None]
    images_grad = ops.my_bilinear_grad(
        grads=tf.cast(grad, images.dtype), original_image=images, **_resize_attrs(op))
    return [images_grad, None]


@tf.RegisterGradient("MyBilinearGrad")
def _my_bilinear_grad_gradient(op: tf.Operation, grad: tf.Tensor):
    """MyBilinearGrad is linear in `grads`, with MyBilinear as its adjoint;
    `original_image` contributes only its shape, so it gets no gradient."""
    grads_size = tf.shape(op.inputs[0])[1:3]
    grads_grad = ops.my_bilinear(images=grad, size=grads_size, out_type=grad.dtype,
                                 **_resize_attrs(op))
    return [grads_grad, None]
