"""Every CPU path gives the same bits: the baseline x86-64 path, AVX2, and the
widest this machine has (AVX-512 for half and bfloat16 where it exists), over
geometries that run the vector loops and their tails, in every dtype."""

from typing import Optional

import tensorflow as tf

from tensorflow_ops import fresh_process
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear.python import cpu_path_probe


def _digest_on_path(path: Optional[str]) -> str:
    """The probe's digest in a child process; `path` narrows the CPU path."""
    result = fresh_process.run_module(
        cpu_path_probe.__name__, [], env_changes={"TENSORFLOW_OPS_CPU_PATH": path})
    return result["digest"]


class MyBilinearCpuPathsTest(test_util.TestCase):

    def test_every_path_gives_the_same_bits(self):
        widest = _digest_on_path(None)
        self.assertEqual(len(widest), 64)
        self.assertEqual(_digest_on_path("avx2"), widest)
        self.assertEqual(_digest_on_path("baseline"), widest)


if __name__ == "__main__":
    tf.test.main()
