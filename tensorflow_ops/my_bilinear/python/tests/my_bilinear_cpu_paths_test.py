"""Every CPU path gives the same bits: the baseline x86-64 path, AVX2, and the
widest this machine has (AVX-512 for half and bfloat16 where it exists), over
geometries that run the vector loops and their tails, in every dtype; and
TENSORFLOW_OPS_CPU_PATH selects the path it names (checked against the CPU's
flags, through the library's TensorflowOpsMyBilinearCpuPath). How the variable's
values are read (any case; other values ignored, with a warning) is checked
without TensorFlow, and without a child process's start of it, by
cc/tests/bilinear_cpu_features_test.cc."""

import os
from typing import Dict, List, Optional

import tensorflow as tf

from tensorflow_ops import fresh_process
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear.python.tests import cpu_path_probe

BASELINE, AVX2, AVX512 = 0, 1, 2


def _cpu_flags() -> List[str]:
    """This machine's CPU flags, as Linux reports them."""
    with open("/proc/cpuinfo", encoding="ascii") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                return line.split(":", 1)[1].split()
    return []


def _widest_path() -> int:
    """The widest path the kernels may take here, from the CPU's flags."""
    flags = set(_cpu_flags())
    if not {"avx2", "fma", "f16c"} <= flags:
        return BASELINE
    if not {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return AVX2
    return AVX512


def _probe(path: Optional[str]) -> Dict[str, object]:
    """The probe's result in a child process; `path` narrows the CPU path."""
    return fresh_process.run_module(cpu_path_probe.__name__, [],
                                    env_changes={"TENSORFLOW_OPS_CPU_PATH": path})


def _default_results() -> Dict[str, object]:
    """The probe's result without TENSORFLOW_OPS_CPU_PATH: this process's
    own where the variable is unset (as Bazel runs the test), which spares a
    child its start of TensorFlow; else a child's, without it."""
    if os.environ.get("TENSORFLOW_OPS_CPU_PATH") is None:
        return {"path": cpu_path_probe.kernel_cpu_path(),
                "digest": cpu_path_probe.results_digest()}
    return _probe(None)


class MyBilinearCpuPathsTest(test_util.TestCase):

    def test_every_path_gives_the_same_bits_whatever_the_variables_case(self):
        widest = _widest_path()
        default = _default_results()
        self.assertEqual(default["path"], widest)
        self.assertEqual(len(default["digest"]), 64)
        avx2 = _probe("Avx2")
        self.assertEqual(avx2["path"], min(widest, AVX2))
        self.assertEqual(avx2["digest"], default["digest"])
        baseline = _probe("BaseLine")
        self.assertEqual(baseline["path"], BASELINE)
        self.assertEqual(baseline["digest"], default["digest"])


if __name__ == "__main__":
    tf.test.main()
