"""MyBilinear against a float64 NumPy reference and tf.raw_ops.ResizeBilinear."""

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear.python.tests import bilinear_reference
from tensorflow_ops.my_bilinear.python.tests import test_cases

# TensorFlow's ResizeBilinear computes in float32 and returns float32, so it is
# the less precise side for double, and the rounding of ours for half/bfloat16.
_TF_TOLERANCE = {np.float16: 1e-3, test_cases.BFLOAT16: 8e-3, np.float32: 1e-5,
                 np.float64: 1e-5}


class MyBilinearOpsTest(test_util.TestCase, parameterized.TestCase):

    def _check_case(self, shape, size, dtype, align_corners, half_pixel_centers):
        images = test_cases.random_images(shape, dtype)
        result = my_bilinear(images, size, align_corners=align_corners,
                             half_pixel_centers=half_pixel_centers)
        self.assertEqual(result.dtype.as_numpy_dtype, dtype)
        self.assertEqual(tuple(result.shape), (shape[0], size[0], size[1], shape[3]))
        result = result.numpy().astype(np.float64)

        expected = bilinear_reference.resize_bilinear(
            images, size[0], size[1], align_corners, half_pixel_centers)
        tolerance = test_cases.REFERENCE_TOLERANCE[dtype]
        self.assertAllClose(result, expected, rtol=tolerance, atol=tolerance)

        from_tf = tf.raw_ops.ResizeBilinear(
            images=images, size=size, align_corners=align_corners,
            half_pixel_centers=half_pixel_centers).numpy().astype(np.float64)
        # float32 is computed exactly as TensorFlow does, so a purely relative bound
        # holds; double may differ from TensorFlow's float arithmetic where the
        # lerp cancels, so it gets an absolute floor too.
        atol = 1e-6 if dtype == np.float64 else 0
        self.assertAllClose(result, from_tf, rtol=_TF_TOLERANCE[dtype], atol=atol)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_all_dtypes_match_references(self, align_corners, half_pixel_centers):
        for dtype in test_cases.DTYPES:
            for shape, size in test_cases.ALL_CASES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape, size=size):
                    self._check_case(shape, size, dtype, align_corners,
                                     half_pixel_centers)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_float32_matches_tensorflow_within_1e5_relative(
            self, align_corners, half_pixel_centers):
        for shape, size in test_cases.ALL_CASES + [((2, 31, 47, 3), (64, 9))]:
            images = test_cases.random_images(shape, np.float32, seed=7)
            ours = my_bilinear(images, size, align_corners, half_pixel_centers).numpy()
            theirs = tf.raw_ops.ResizeBilinear(
                images=images, size=size, align_corners=align_corners,
                half_pixel_centers=half_pixel_centers).numpy()
            with self.subTest(shape=shape, size=size):
                self.assertAllClose(ours, theirs, rtol=1e-5, atol=0)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_float32_is_bitwise_equal_to_tensorflow(self, align_corners,
                                                    half_pixel_centers):
        # Same weights, same operation order, same float precision: the same bits,
        # also for the 4-lane path that 3-channel float images take.
        for shape, size in test_cases.ALL_CASES + [((3, 17, 29, 3), (40, 23)),
                                                   ((1, 29, 17, 3), (8, 5))]:
            images = test_cases.random_images(shape, np.float32, seed=9)
            ours = my_bilinear(images, size, align_corners, half_pixel_centers)
            theirs = tf.raw_ops.ResizeBilinear(
                images=images, size=size, align_corners=align_corners,
                half_pixel_centers=half_pixel_centers)
            with self.subTest(shape=shape, size=size):
                self.assertEqual(ours.numpy().tobytes(), theirs.numpy().tobytes())

    def test_equal_size_with_aligned_corners_is_identity(self):
        images = test_cases.random_images((2, 6, 5, 3), np.float32)
        self.assertAllEqual(my_bilinear(images, (6, 5)), images)

    def test_tf_function_matches_eager(self):
        @tf.function(input_signature=[
            tf.TensorSpec([None, None, None, None], tf.float32),
            tf.TensorSpec([2], tf.int32)])
        def resize(images, size):
            return my_bilinear(images, size, align_corners=False,
                               half_pixel_centers=True)

        for shape, size in test_cases.HAND_MADE_CASES:
            images = test_cases.random_images(shape, np.float32)
            with self.subTest(shape=shape, size=size):
                self.assertAllEqual(
                    resize(images, tf.constant(size)),
                    my_bilinear(images, size, align_corners=False,
                                half_pixel_centers=True))

    def test_size_accepts_tuple_numpy_and_tensors(self):
        images = test_cases.random_images((1, 4, 4, 2), np.float32)
        expected = my_bilinear(images, (3, 5))
        for size in ([3, 5], np.array([3, 5], np.int64), tf.constant([3, 5]),
                     tf.constant([3, 5], tf.int64), tf.Variable([3, 5])):
            with self.subTest(size=repr(size)):
                self.assertAllEqual(my_bilinear(images, size), expected)


if __name__ == "__main__":
    tf.test.main()
