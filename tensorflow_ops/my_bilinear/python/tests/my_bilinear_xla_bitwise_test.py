"""The XLA tests of my_bilinear_xla_test with FMA contraction off in XLA,
where they require the XLA kernels' results to be bitwise those of the CPU
kernels: the same weights, the same operations, in the same order."""

import os

# Read by XLA when it first compiles, so it must be set before that.
os.environ["XLA_FLAGS"] = " ".join(
    [os.environ.get("XLA_FLAGS", ""), "--xla_cpu_max_isa=AVX"]).strip()

# pylint: disable=g-import-not-at-top,wrong-import-position
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_xla_test
# The tests themselves, run here in bitwise mode.
from tensorflow_ops.my_bilinear.python.tests.my_bilinear_xla_test import MyBilinearXlaTest  # pylint: disable=unused-import


class XlaWithoutFmaTest(test_util.TestCase):

    def test_xla_rounds_multiply_and_add_separately(self):
        """The flag took effect: XLA computes a + (b - a) * t with two
        roundings, as NumPy does, so the bitwise comparisons are meaningful."""
        self.assertTrue(my_bilinear_xla_test.BITWISE)
        rng = np.random.default_rng(0)
        a, b, t = (rng.random(4096, np.float32) for _ in range(3))
        lerp = tf.function(lambda a, b, t: a + (b - a) * t, jit_compile=True)
        self.assertEqual(lerp(a, b, t).numpy().tobytes(), (a + (b - a) * t).tobytes())


if __name__ == "__main__":
    tf.test.main()
