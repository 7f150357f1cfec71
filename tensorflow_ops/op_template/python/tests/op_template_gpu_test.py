"""The GPU kernels of OpTemplate against its CPU kernels.

Every test needs a GPU that TensorFlow sees; without one the whole class is
skipped, and says why. Without a GPU, op_template_gpu_grid_test checks the GPU
kernels' loop and math on the host.
"""

import unittest

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.op_template import ops

_NO_GPU = ("no GPU visible to TensorFlow (tf.config.list_physical_devices('GPU') "
           "is empty): op_template_gpu_grid_test checks the GPU kernels on the host")
# Empty, smaller than a block, and more blocks than one.
SHAPES = [[0], [3], [300, 7]]


def on_gpu(values: np.ndarray) -> tf.Tensor:
    """`values` as a tensor in GPU memory, so that TensorFlow cannot run the op
    on the CPU because its inputs are there."""
    with tf.device("/GPU:0"):
        return tf.identity(values)


@unittest.skipUnless(tf.config.list_physical_devices("GPU"), _NO_GPU)
class OpTemplateGpuTest(test_util.TestCase):

    def assert_on_gpu(self, tensor: tf.Tensor):
        self.assertIn("GPU:0", tensor.device)

    def test_forward_matches_cpu(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    x = np.random.default_rng(0).uniform(-5, 5, shape).astype(dtype)
                    with tf.device("/CPU:0"):
                        want = ops.op_template(x=x, scale=-1.25)
                    with tf.device("/GPU:0"):
                        got = ops.op_template(x=on_gpu(x), scale=-1.25)
                    self.assert_on_gpu(got)
                    self.assertAllEqual(got, want)
    # --grad: begin

    def test_gradient_matches_cpu(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    rng = np.random.default_rng(1)
                    grads = rng.uniform(-5, 5, shape).astype(dtype)
                    x = rng.uniform(-5, 5, shape).astype(dtype)
                    with tf.device("/CPU:0"):
                        want = ops.op_template_grad(grads=grads, x=x, scale=0.5)
                    with tf.device("/GPU:0"):
                        got = ops.op_template_grad(
                            grads=on_gpu(grads), x=on_gpu(x), scale=0.5)
                    self.assert_on_gpu(got)
                    self.assertAllEqual(got, want)

    def test_gpu_refuses_grads_of_another_shape(self):
        grads, x = on_gpu(np.ones([2], np.float32)), on_gpu(np.ones([3], np.float32))
        with tf.device("/GPU:0"):
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        "grads must have the shape of x"):
                ops.op_template_grad(grads=grads, x=x, scale=1.0)
    # --grad: end


if __name__ == "__main__":
    tf.test.main()
