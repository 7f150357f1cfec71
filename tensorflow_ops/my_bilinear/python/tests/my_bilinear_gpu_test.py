"""The GPU kernels against the CPU kernels, on a machine with a GPU.

Every test needs a GPU that TensorFlow sees; without one the whole class is
skipped, and says why. The GPU kernels' indexing and arithmetic are checked
without a GPU by bilinear_gpu_grid_test (the same per-element functions on the
host) and their registration by my_bilinear_gpu_registry_test.

The GPU kernels evaluate the CPU kernels' formulas in the same order with no
fused multiply-adds (nvcc -fmad=false), so results are compared bit for bit.
"""

import unittest

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import test_cases

_NO_GPU = ("no GPU visible to TensorFlow (tf.config.list_physical_devices('GPU') "
           "is empty): the GPU kernels are checked on the host by "
           "bilinear_gpu_grid_test and in the registry by "
           "my_bilinear_gpu_registry_test instead")

# (images dtype, out_type) pairs with a GPU kernel.
_FORWARD_TYPES = [(np.float32, np.float32), (np.float64, np.float64),
                  (np.float64, np.float32), (np.float16, np.float16),
                  (test_cases.BFLOAT16, np.float32), (np.uint8, np.float32),
                  (np.int32, np.float32)]
_GRADIENT_TYPES = [np.float16, test_cases.BFLOAT16, np.float32, np.float64]


def _resize_on(device: str, images: np.ndarray, size, out_type, attrs) -> np.ndarray:
    with tf.device(device):
        return ops.my_bilinear(images=images, size=size, out_type=out_type,
                               **attrs).numpy()


def _grad_on(device: str, grads: np.ndarray, original_shape, dtype, attrs) -> np.ndarray:
    with tf.device(device):
        return ops.my_bilinear_grad(grads=grads,
                                    original_image=tf.zeros(original_shape, dtype),
                                    **attrs).numpy()


def _assert_same_bits(test: tf.test.TestCase, got: np.ndarray, want: np.ndarray):
    test.assertEqual(got.dtype, want.dtype)
    test.assertEqual(got.shape, want.shape)
    test.assertEqual(got.tobytes(), want.tobytes())


@unittest.skipUnless(tf.config.list_physical_devices("GPU"), _NO_GPU)
class MyBilinearGpuTest(test_util.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        # A missing GPU kernel must fail, not quietly run on the CPU.
        tf.config.set_soft_device_placement(False)

    @parameterized.named_parameters(test_cases.ATTR_PARAMS)
    def test_forward_equals_cpu(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for shape, size in test_cases.ALL_CASES:
            for images_dtype, out_type in _FORWARD_TYPES:
                images = (test_cases.random_images(shape, np.float32) * 200 - 100
                          ).astype(images_dtype)
                with self.subTest(shape=shape, size=size, dtype=images_dtype,
                                  out_type=out_type):
                    _assert_same_bits(
                        self, _resize_on("/GPU:0", images, size, out_type, attrs),
                        _resize_on("/CPU:0", images, size, out_type, attrs))

    @parameterized.named_parameters(test_cases.ATTR_PARAMS)
    def test_gradient_equals_cpu(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for shape, size in test_cases.ALL_CASES:
            grads_shape = (shape[0], size[0], size[1], shape[3])
            for dtype in _GRADIENT_TYPES:
                grads = (test_cases.random_images(grads_shape, np.float32, seed=1) - 0.5
                         ).astype(dtype)
                with self.subTest(shape=shape, size=size, dtype=dtype):
                    _assert_same_bits(
                        self, _grad_on("/GPU:0", grads, shape, dtype, attrs),
                        _grad_on("/CPU:0", grads, shape, dtype, attrs))

    def test_gradient_is_deterministic(self):
        # Many output pixels per input pixel: where a scatter with atomics
        # would add in a different order from run to run.
        grads = test_cases.random_images((2, 301, 257, 5), np.float32, seed=2) - 0.5
        attrs = dict(align_corners=False, half_pixel_centers=True)
        first = _grad_on("/GPU:0", grads, (2, 17, 13, 5), tf.float32, attrs)
        for _ in range(3):
            _assert_same_bits(self, _grad_on("/GPU:0", grads, (2, 17, 13, 5),
                                             tf.float32, attrs), first)

    def test_bad_input_is_invalid_argument(self):
        images = np.zeros((1, 5, 7, 3), np.float32)
        with tf.device("/GPU:0"):
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        r"size must be positive, got \[4, -3\]"):
                ops.my_bilinear(images=images, size=[4, -3])
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        r"agree on batch and channels"):
                ops.my_bilinear_grad(grads=np.zeros((2, 4, 4, 3), np.float32),
                                     original_image=np.zeros((3, 5, 7, 3), np.float32))

    def test_empty_batch(self):
        with tf.device("/GPU:0"):
            result = ops.my_bilinear(images=np.zeros((0, 4, 4, 3), np.float32),
                                     size=[8, 8])
        self.assertEqual(result.shape, (0, 8, 8, 3))
        self.assertIn("GPU", result.device)


if __name__ == "__main__":
    tf.test.main()
