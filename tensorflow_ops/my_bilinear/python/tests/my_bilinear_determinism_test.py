"""MyBilinearGrad is bitwise deterministic: across runs and across thread counts."""

import os

import numpy as np
import tensorflow as tf

from tensorflow_ops import fresh_process
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear.python.tests import grad_determinism_probe


def _digest_with_threads(threads: int) -> str:
    """The probe's digest in a child process with `threads` intra-op threads."""
    result = fresh_process.run_module(grad_determinism_probe.__name__,
                                      ["--threads", str(threads)])
    return result["digest"]


class MyBilinearDeterminismTest(test_util.TestCase):

    def test_repeated_runs_are_bitwise_equal(self):
        self.assertEqual(grad_determinism_probe.gradient_digest(),
                         grad_determinism_probe.gradient_digest())

    def test_one_two_and_four_threads_are_bitwise_equal(self):
        """One thread and four in children; two in this process where that is
        its default (one per CPU it may run on, as on CI's machine), which
        spares a child its start of TensorFlow, else in a child too."""
        one_thread = _digest_with_threads(1)
        self.assertEqual(len(one_thread), 64)
        self.assertEqual(_digest_with_threads(4), one_thread)
        default_threads = (tf.config.threading.get_intra_op_parallelism_threads()
                           or len(os.sched_getaffinity(0)))
        two_threads = (grad_determinism_probe.gradient_digest() if default_threads == 2
                       else _digest_with_threads(2))
        self.assertEqual(two_threads, one_thread)

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
