"""MyBilinearGrad is bitwise deterministic across runs (across thread counts:
my_bilinear_cpu_paths_test, whose children fix the count)."""

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear.python.tests import grad_determinism_probe


class MyBilinearDeterminismTest(test_util.TestCase):

    def test_repeated_runs_are_bitwise_equal(self):
        self.assertEqual(grad_determinism_probe.gradient_digest(),
                         grad_determinism_probe.gradient_digest())

    def test_tape_gradient_is_bitwise_repeatable(self):
        rng = np.random.default_rng(2)
        images = tf.constant(rng.random((2, 40, 30, 3), np.float32))
        upstream = tf.constant(rng.uniform(-1, 1, (2, 97, 71, 3)).astype(np.float32))

        def gradient():
            with tf.GradientTape() as tape:
                tape.watch(images)
                output = my_bilinear(images, (97, 71), align_corners=False,
                                     half_pixel_centers=True)
            return tape.gradient(output, images, output_gradients=upstream).numpy()

        first = gradient()
        for _ in range(3):
            self.assertEqual(gradient().tobytes(), first.tobytes())


if __name__ == "__main__":
    tf.test.main()
