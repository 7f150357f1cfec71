"""Property tests of MyBilinear and MyBilinearGrad on generated valid inputs.

Hypothesis draws a geometry (batch 0-3, height and width 1-40 in and out,
channels 1-9), the attrs, the image dtype and out_type; values come from a
drawn seed. Each example is checked against the float64 NumPy reference, the
float32 result bitwise against tf.raw_ops.ResizeBilinear, and the gradient
against tf.raw_ops.ResizeBilinearGrad and the adjoint identity
<resize(x), g> == <x, grad(g)>. See tensorflow_ops/hypothesis_profiles.py for
the number of examples.
"""

from typing import NamedTuple

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import tensorflow as tf

from tensorflow_ops import hypothesis_profiles
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import bilinear_reference
from tensorflow_ops.my_bilinear.python.tests import test_cases

hypothesis_profiles.load_profile()

IMAGE_DTYPES = [tf.int8, tf.uint8, tf.int16, tf.uint16, tf.int32, tf.int64,
                tf.half, tf.bfloat16, tf.float32, tf.float64]
FLOAT_DTYPES = [tf.half, tf.bfloat16, tf.float32, tf.float64]

# Relative error of one rounding to each type (with a factor for the few
# operations of a lerp, and float coordinates off by up to size * 2^-24).
_ROUNDING = {tf.half: 2e-3, tf.bfloat16: 1.6e-2, tf.float32: 1e-5, tf.float64: 1e-12}


class Geometry(NamedTuple):
    batch: int
    in_height: int
    in_width: int
    out_height: int
    out_width: int
    channels: int
    align_corners: bool
    half_pixel_centers: bool


@st.composite
def geometries(draw) -> Geometry:
    """Up-sampling, down-sampling and equal sizes, with every valid attr pair."""
    in_height, in_width = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    out_height = draw(st.one_of(st.just(in_height), st.integers(1, 40)))
    out_width = draw(st.one_of(st.just(in_width), st.integers(1, 40)))
    align_corners, half_pixel_centers = draw(st.sampled_from(test_cases.ATTRS))
    return Geometry(draw(st.integers(0, 3)), in_height, in_width, out_height,
                    out_width, draw(st.integers(1, 9)), align_corners,
                    half_pixel_centers)


def random_values(shape, dtype: tf.DType, seed: int, limit: float) -> np.ndarray:
    """Floats in [-1, 1); integers over their whole range, clipped to +-limit."""
    rng = np.random.default_rng(seed)
    np_dtype = dtype.as_numpy_dtype
    if dtype.is_floating:
        return rng.uniform(-1, 1, shape).astype(np_dtype)
    low = max(float(dtype.min), -limit)
    high = min(float(dtype.max), limit)
    return rng.uniform(low, high, shape).astype(np.float64).astype(np_dtype)


def attrs(g: Geometry) -> dict:
    return dict(align_corners=g.align_corners, half_pixel_centers=g.half_pixel_centers)


class MyBilinearPropertyTest(test_util.TestCase):

    @given(g=geometries(), image_dtype=st.sampled_from(IMAGE_DTYPES),
           out_type=st.sampled_from(FLOAT_DTYPES), via_wrapper=st.booleans(),
           seed=st.integers(0, 2**32 - 1))
    def test_forward_matches_reference_and_tensorflow(self, g, image_dtype, out_type,
                                                      via_wrapper, seed):
        # Integer images resized into half stay below its largest value, 65504.
        limit = 3e4 if out_type == tf.half else np.inf
        images = random_values((g.batch, g.in_height, g.in_width, g.channels),
                               image_dtype, seed, limit)
        size = (g.out_height, g.out_width)
        if via_wrapper:
            out_type = image_dtype if image_dtype.is_floating else tf.float32
            result = my_bilinear(images, size, **attrs(g))
        else:
            result = ops.my_bilinear(images=images, size=size, out_type=out_type,
                                     **attrs(g))
        self.assertEqual(result.dtype, out_type)
        self.assertEqual(tuple(result.shape),
                         (g.batch, g.out_height, g.out_width, g.channels))

        expected = bilinear_reference.resize_bilinear(
            images.astype(np.float64), g.out_height, g.out_width, **attrs(g))
        # Computed in double only for double results; in float otherwise.
        compute_type = tf.float64 if out_type == tf.float64 else tf.float32
        scale = max(1.0, float(np.max(np.abs(images.astype(np.float64)), initial=0)))
        tolerance = scale * (_ROUNDING[compute_type] + _ROUNDING[out_type])
        self.assertAllClose(result.numpy().astype(np.float64), expected,
                            rtol=0, atol=tolerance)

        if out_type == tf.float32:
            # Same formulas in the same precision as TensorFlow: the same bits.
            theirs = tf.raw_ops.ResizeBilinear(images=images, size=size, **attrs(g))
            self.assertEqual(result.numpy().tobytes(), theirs.numpy().tobytes())

    @given(g=geometries(), dtype=st.sampled_from(FLOAT_DTYPES),
           seed=st.integers(0, 2**32 - 1))
    def test_gradient_matches_tensorflow_and_is_the_adjoint(self, g, dtype, seed):
        images = random_values((g.batch, g.in_height, g.in_width, g.channels),
                               dtype, seed, np.inf)
        grads = random_values((g.batch, g.out_height, g.out_width, g.channels),
                              dtype, seed + 1, np.inf)
        ours = ops.my_bilinear_grad(grads=grads, original_image=images, **attrs(g))
        self.assertEqual(ours.dtype, dtype)
        ours = ours.numpy().astype(np.float64)

        # Each input pixel sums the weighted gradients of about
        # (out / in + 2) ** 2 output pixels, in float for half and bfloat16
        # (an absolute error), then rounds the sum once to `dtype` (relative).
        ratio = g.out_height * g.out_width / (g.in_height * g.in_width)
        sum_type = tf.float64 if dtype == tf.float64 else tf.float32
        atol = (2 + 2 * ratio) * _ROUNDING[sum_type]
        expected = bilinear_reference.resize_bilinear_grad(
            grads.astype(np.float64), g.in_height, g.in_width, **attrs(g))
        self.assertAllClose(ours, expected, rtol=_ROUNDING[dtype], atol=atol)

        theirs = tf.raw_ops.ResizeBilinearGrad(grads=grads, original_image=images,
                                               **attrs(g)).numpy().astype(np.float64)
        # TensorFlow sums in float too (with float coordinates for double), so
        # each side is that close to the exact result.
        self.assertAllClose(ours, theirs, rtol=2 * _ROUNDING[dtype],
                            atol=atol + (2 + 2 * ratio) * _ROUNDING[tf.float32])

        # <resize(x), g> == <x, grad(g)>, both sides from the op's own outputs.
        resized = ops.my_bilinear(images=images, size=(g.out_height, g.out_width),
                                  out_type=dtype, **attrs(g)).numpy().astype(np.float64)
        lhs_terms = resized * grads.astype(np.float64)
        rhs_terms = images.astype(np.float64) * ours
        magnitude = np.sum(np.abs(lhs_terms)) + np.sum(np.abs(rhs_terms))
        self.assertAllClose(np.sum(lhs_terms), np.sum(rhs_terms), rtol=0,
                            atol=4 * _ROUNDING[dtype] * magnitude + 1e-300)


if __name__ == "__main__":
    tf.test.main()
