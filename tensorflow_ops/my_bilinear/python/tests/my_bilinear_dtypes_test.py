"""Image dtypes, out_type and exact copies: MyBilinear against
tf.raw_ops.ResizeBilinear bit for bit, for every image type it accepts."""

from absl.testing import parameterized
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops as tf_ops

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import bilinear_reference
from tensorflow_ops.my_bilinear.python.tests import test_cases

INTEGER_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64]

# Up, down, mixed and equal sizes, with 1, 3 (the 4-lane float path) and 4 channels.
_CASES = [((2, 5, 7, 3), (9, 4)), ((1, 8, 9, 1), (3, 2)), ((2, 3, 4, 4), (12, 17)),
          ((1, 6, 5, 3), (6, 5)), ((1, 1, 1, 2), (3, 3)), ((1, 29, 17, 3), (8, 5))]


def _random_integers(shape, dtype, seed=0) -> np.ndarray:
    """Values spread over the whole range of `dtype` (int64: over +-2^40)."""
    info = np.iinfo(dtype)
    low, high = max(int(info.min), -2**40), min(int(info.max), 2**40)
    return np.random.default_rng(seed).integers(low, high, shape, endpoint=True,
                                                dtype=dtype)


def _bits(tensor: tf.Tensor) -> bytes:
    return tensor.numpy().tobytes()


class MyBilinearDtypesTest(test_util.TestCase, parameterized.TestCase):

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_integer_images_equal_tensorflow_bitwise(self, align_corners,
                                                     half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for dtype in INTEGER_DTYPES:
            for shape, size in _CASES:
                images = _random_integers(shape, dtype)
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape, size=size):
                    ours = my_bilinear(images, size, **attrs)
                    self.assertEqual(ours.dtype, tf.float32)
                    theirs = tf.raw_ops.ResizeBilinear(images=images, size=size, **attrs)
                    self.assertEqual(_bits(ours), _bits(theirs))
                    expected = bilinear_reference.resize_bilinear(
                        images, size[0], size[1], align_corners, half_pixel_centers)
                    self.assertAllClose(ours, expected, rtol=1e-6,
                                        atol=1e-6 * float(np.max(np.abs(expected))))

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_default_out_type_equals_tensorflow_for_float_images(
            self, align_corners, half_pixel_centers):
        # The generated op returns float32 by default, as ResizeBilinear does,
        # and computes in float like it: the same bits for every float type.
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for dtype in test_cases.DTYPES:
            for shape, size in _CASES:
                images = test_cases.random_images(shape, dtype, seed=3)
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape, size=size):
                    ours = ops.my_bilinear(images=images, size=size, **attrs)
                    self.assertEqual(ours.dtype, tf.float32)
                    theirs = tf.raw_ops.ResizeBilinear(images=images, size=size, **attrs)
                    self.assertEqual(_bits(ours), _bits(theirs))

    def test_every_out_type_is_the_float_result_rounded(self):
        images = _random_integers((2, 5, 7, 3), np.uint8)
        as_float = ops.my_bilinear(images=images, size=[9, 4])
        for out_type in (tf.half, tf.bfloat16, tf.float32):
            with self.subTest(out_type=out_type.name):
                result = ops.my_bilinear(images=images, size=[9, 4], out_type=out_type)
                self.assertEqual(result.dtype, out_type)
                self.assertEqual(_bits(result), _bits(tf.cast(as_float, out_type)))
        as_double = ops.my_bilinear(images=images, size=[9, 4], out_type=tf.float64)
        expected = bilinear_reference.resize_bilinear(images, 9, 4, True, False)
        self.assertAllClose(as_double, expected, rtol=1e-12, atol=1e-12)

    def test_integer_images_have_no_gradient(self):
        images = tf.constant(_random_integers((1, 4, 4, 1), np.uint8))
        with tf.GradientTape() as tape:
            tape.watch(images)
            resized = my_bilinear(images, (7, 7))
        self.assertIsNone(tape.gradient(resized, images))
        # The tape never asks an integer tensor for its gradient; a graph can
        # reach the registered function, which must answer None for it.
        with tf.Graph().as_default():
            resized = my_bilinear(tf.zeros([1, 4, 4, 1], tf.uint8), (7, 7))
            gradient_function = tf_ops.gradient_registry.lookup("MyBilinear")
            self.assertEqual(gradient_function(resized.op, tf.ones_like(resized)),
                             [None, None])

    def test_gradient_through_a_different_out_type_reaches_the_images(self):
        images = tf.constant(test_cases.random_images((1, 4, 5, 2), np.float16))
        grads = tf.constant(np.random.default_rng(2).uniform(-1, 1, (1, 7, 3, 2)),
                            tf.float32)
        with tf.GradientTape() as tape:
            tape.watch(images)
            resized = ops.my_bilinear(images=images, size=[7, 3])  # float32 result
            loss = tf.reduce_sum(resized * grads)
        images_grad = tape.gradient(loss, images)
        self.assertEqual(images_grad.dtype, tf.float16)
        expected = bilinear_reference.resize_bilinear_grad(grads.numpy(), 4, 5, True,
                                                           False)
        self.assertAllClose(images_grad, expected, rtol=2e-3, atol=2e-3)


class IdentityIsExactTest(test_util.TestCase, parameterized.TestCase):
    """Equal sizes copy the input, as TensorFlow does (issue: weight-0 lerps
    turned Inf into NaN, -0 into +0 and denormals into 0)."""

    _SPECIAL = np.array([np.inf, -0.0, 1e-45, 1.0, -np.inf, 3.5], np.float32)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_special_values_survive_like_tensorflow(self, align_corners,
                                                    half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for dtype in test_cases.DTYPES:
            images = self._SPECIAL.astype(dtype).reshape(1, 2, 3, 1)
            with self.subTest(dtype=np.dtype(dtype).name):
                theirs = tf.raw_ops.ResizeBilinear(images=images, size=[2, 3], **attrs)
                ours = ops.my_bilinear(images=images, size=[2, 3], **attrs)
                self.assertEqual(_bits(ours), _bits(theirs))
                kept = my_bilinear(images, (2, 3), **attrs)
                self.assertEqual(_bits(kept), images.tobytes())

    def test_the_example_from_the_report(self):
        images = np.array([[[[np.inf], [-0.0], [1e-45], [1.0]]]], np.float32)
        result = ops.my_bilinear(images=images, size=[1, 4], align_corners=False,
                                 half_pixel_centers=True).numpy().ravel()
        self.assertEqual(result.tobytes(), images.tobytes())
        self.assertTrue(np.signbit(result[1]))

    def test_gradient_of_identity_is_the_upstream_gradient(self):
        # The true adjoint: an Inf upstream gradient stays Inf (TensorFlow's
        # ResizeBilinearGrad multiplies it by a weight of 0 and gives NaN).
        grads = self._SPECIAL.reshape(1, 2, 3, 1)
        for align_corners, half_pixel_centers in test_cases.ATTRS:
            result = ops.my_bilinear_grad(grads=grads, original_image=np.zeros_like(grads),
                                          align_corners=align_corners,
                                          half_pixel_centers=half_pixel_centers)
            self.assertEqual(_bits(result), grads.tobytes())

    def test_same_size_past_2_to_the_24_is_exact(self):
        # float coordinates cannot address every pixel past 2^24; a copy can.
        width = 2**24 + 3
        images = np.arange(width, dtype=np.float32).reshape(1, 1, width, 1)
        result = ops.my_bilinear(images=images, size=[1, width], align_corners=False,
                                 half_pixel_centers=True)
        self.assertEqual(int(np.count_nonzero(result.numpy() != images)), 0)


if __name__ == "__main__":
    tf.test.main()
