"""Every CPU path and every thread count gives the same bits: the baseline
x86-64 path, AVX2, and the widest this machine has (AVX-512, where it exists,
for the forward passes of half and bfloat16 and the bfloat16 gradient), over
geometries that run the vector loops and their tails, in every dtype; the
gradient on 1, 2 and 4 threads, over sizes that split it over each (each count
on one path: see the test); and TENSORFLOW_OPS_CPU_PATH selects the path it
names (checked against the CPU's flags, through the library's
TensorflowOpsMyBilinearCpuPath). How the variable's values are read (any case;
other values ignored, with a warning) is checked without TensorFlow, and without
a child process's start of it, by cc/tests/bilinear_cpu_features_test.cc.
The same children cross the cache sizes the kernels choose their stores by
(TensorflowOpsMyBilinearLastLevelCacheBytes): TENSORFLOW_OPS_LAST_LEVEL_CACHE=1K,
which streams nearly every output that can stream; this machine's, from sysfs; and
this process's (32 MiB, which its Bazel target sets). The stores never change
the bits; bilinear_streaming_stores_test reads every kind of value."""

import glob
import os
import re
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


def _sysfs_cache_bytes() -> int:
    """The cache size the kernels take without the setting, read here on its
    own: the highest cache level of at least 3 that sysfs lists for the first
    CPU, else the C library's L3 figure, else 32 MiB."""
    best_level, best_bytes = 0, 0
    for folder in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(os.path.join(folder, "level"), encoding="ascii") as level_file:
                level = int(level_file.read())
            with open(os.path.join(folder, "size"), encoding="ascii") as size_file:
                size = re.fullmatch(r"([0-9]+)([KMG]?)\n?", size_file.read())
        except (OSError, ValueError):
            continue
        if size and int(size[1]) > 0 and level >= 3 and level > best_level:
            best_level = level
            best_bytes = int(size[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[size[2]]
    if best_bytes:
        return best_bytes
    reported = os.sysconf("SC_LEVEL3_CACHE_SIZE") if "SC_LEVEL3_CACHE_SIZE" in (
        os.sysconf_names) else 0
    return reported if reported > 0 else 32 << 20


def _probe(path: Optional[str], threads: int,
           cache: Optional[str]) -> Dict[str, object]:
    """cpu_path_probe's results in a child process; `path` narrows the CPU
    path, `threads` sets TensorFlow's intra-op threads, `cache` is the child's
    TENSORFLOW_OPS_LAST_LEVEL_CACHE (None: unset)."""
    return fresh_process.run_module(cpu_path_probe.__name__, ["--threads", str(threads)],
                                    env_changes={"TENSORFLOW_OPS_CPU_PATH": path,
                                                 "TF_NUM_INTRAOP_THREADS": None,
                                                 "TENSORFLOW_OPS_LAST_LEVEL_CACHE": cache})


def _runs_widest_path_on_two_threads() -> bool:
    """Whether this process runs the kernels on the widest path and two
    intra-op threads: TENSORFLOW_OPS_CPU_PATH and TF_NUM_INTRAOP_THREADS unset
    and two threads configured, or TensorFlow's default of one per CPU where
    the process may run on two (as Bazel runs the test on CI's machine)."""
    if any(name in os.environ
           for name in ("TENSORFLOW_OPS_CPU_PATH", "TF_NUM_INTRAOP_THREADS")):
        return False
    configured = tf.config.threading.get_intra_op_parallelism_threads()
    return (configured or len(os.sched_getaffinity(0))) == 2


def _default_results() -> Dict[str, object]:
    """The probe's results on the widest path and two threads: this process's
    own where that is how it runs, which spares a child its start of
    TensorFlow; else a child's."""
    if _runs_widest_path_on_two_threads():
        return cpu_path_probe.probe_results()
    return _probe(None, threads=2,
                  cache=os.environ.get("TENSORFLOW_OPS_LAST_LEVEL_CACHE"))


class MyBilinearCpuPathsTest(test_util.TestCase):

    def test_every_path_and_thread_count_gives_the_same_bits(self):
        """Paths and thread counts are crossed, not multiplied: the widest path
        on two threads, AVX2 on four and the baseline on one, so that two
        children check both, and the path float and double take on an AVX2 or
        AVX-512 machine runs on two and four. A path whose bits depended on the
        thread count would differ from the others on its own count. The 1K
        child's cache size differs from the others' on every machine."""
        widest = _widest_path()
        default = _default_results()
        self.assertEqual(default["path"], widest)
        self.assertEqual(len(default["digest"]), 64)
        self.assertEqual(len(default["gradient_digest"]), 64)
        for name, path, threads, cache, cache_bytes in (
                ("Avx2", min(widest, AVX2), 4, "1K", 1024),
                ("BaseLine", BASELINE, 1, None, _sysfs_cache_bytes())):
            with self.subTest(path=name, threads=threads, cache=cache):
                results = _probe(name, threads, cache)
                self.assertEqual(results["path"], path)
                self.assertEqual(results["threads"], threads)
                self.assertEqual(results["cache_bytes"], cache_bytes)
                self.assertEqual(results["digest"], default["digest"])
                self.assertEqual(results["gradient_digest"], default["gradient_digest"])


if __name__ == "__main__":
    tf.test.main()
