"""The XLA kernels compile in bounded time and memory at any up-sampling
factor: their HLO is the same at factor 16 as at 65536, in each axis, for the
forward pass and the gradient, in both attr modes.

The gradient once emitted one gather and add per output row or column that
reads the same input row or column, so its HLO grew with the factor: 14,353
instructions at 1024 (95 s and 2.8 GB to compile), and past 22 GB, killed by
the operating system, at 65536. The cases run in a child process
(xla_compile_probe) whose resident memory this test watches and caps, so such
a regression fails this test instead of taking the machine down. This
process only starts and reads the children: it imports no TensorFlow (nor
the op package, whose import would), which spares it about 3 s of CPU.
"""

import json
import os
import subprocess
import sys
import time
from typing import Dict, List, Tuple

from absl.testing import absltest
import numpy as np

FACTORS = [1, 16, 64, 1024, 65536]
# Input indices along the up-sampled axis: with 2, each one is read by about
# half of the output, the most slots a factor can give.
IN_SIZE = 2
# The size of the other axis, as xla_compile_probe sets it.
OTHER_SIZE = 3
# The child measured about 650 MB at its peak, of which about 550 MB is
# TensorFlow itself. The cap leaves room for a busy machine's variation, and
# is 10 times below what the unbounded HLO reached.
MEMORY_LIMIT_MB = 2048
# The most HLO instructions of any case: 581 measured (the unrolled gradient had 913 at factor 64).
HLO_INSTRUCTION_CAP = 800
# The child took about 17 s on 2 cores; the cap only ends a hang before
# Bazel's limit for the target, it times nothing.
TIMEOUT_SECONDS = 240
POLL_SECONDS = 0.05


def _case_sizes(axis: str, factor: int, in_size: int) -> Tuple[List[int], List[int]]:
    """The input and output [height, width] that xla_compile_probe gives a
    case: `in_size` indices along `axis` ("rows" or "columns") up-sampled to
    in_size * factor, and OTHER_SIZE along the other axis."""
    if axis == "rows":
        return [in_size, OTHER_SIZE], [in_size * factor, OTHER_SIZE]
    return [OTHER_SIZE, in_size], [OTHER_SIZE, in_size * factor]


def _resident_mb(pid: int) -> float:
    """The resident memory of process `pid`, 0 once it has ended."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def run_probe(factors: List[int]) -> Dict:
    """Runs xla_compile_probe in a child, killed if its resident memory passes
    MEMORY_LIMIT_MB or it runs past TIMEOUT_SECONDS; returns its report."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               TF_CPP_MIN_LOG_LEVEL="2")
    command = [sys.executable, "-m", "tensorflow_ops.my_bilinear.python.tests.xla_compile_probe",
               "--factors", ",".join(map(str, factors)), "--in-size", str(IN_SIZE),
               "--refusals"]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as child:
        start, peak_mb, killed_for = time.monotonic(), 0.0, None
        while child.poll() is None:
            peak_mb = max(peak_mb, _resident_mb(child.pid))
            if peak_mb > MEMORY_LIMIT_MB:
                killed_for = f"resident memory {peak_mb:.0f} MB > {MEMORY_LIMIT_MB} MB"
            elif time.monotonic() - start > TIMEOUT_SECONDS:
                killed_for = f"still running after {TIMEOUT_SECONDS} s"
            if killed_for:
                child.kill()
                break
            time.sleep(POLL_SECONDS)
        stdout, stderr = child.communicate()
    if killed_for or child.returncode != 0:
        # The probe names each case as it starts: the last one is the culprit.
        raise AssertionError(
            f"xla_compile_probe: {killed_for or f'exit code {child.returncode}'}\n"
            f"cases done:\n{stdout[-3000:]}\n{stderr[-3000:]}")
    return json.loads(stdout.strip().splitlines()[-1])


class XlaCompileBoundsTest(absltest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.report = run_probe(FACTORS)

    def test_every_case_compiles_within_the_memory_limit(self):
        cases = self.report["cases"]
        self.assertLen(cases, 2 * 2 * 2 * len(FACTORS))
        self.assertLessEqual(self.report["peak_rss_mb"], MEMORY_LIMIT_MB)

    def test_hlo_does_not_grow_with_the_factor(self):
        """Per (op, axis, attr mode), the HLO at factor 65536 is no larger than
        at 16 but for the unrolled slots left over from whole loop iterations
        (at most 15 of about 6 instructions each), and within a fixed cap at
        every factor (the unrolled gradient had 913 at factor 64)."""
        by_kind: Dict[tuple, Dict[int, int]] = {}
        for case in self.report["cases"]:
            kind = (case["op"], case["axis"], case["mode"])
            by_kind.setdefault(kind, {})[case["factor"]] = case["instructions"]
        self.assertLen(by_kind, 8)
        for kind, counts in by_kind.items():
            with self.subTest(kind=kind):
                self.assertLessEqual(max(counts.values()), HLO_INSTRUCTION_CAP, counts)
                self.assertLessEqual(counts[FACTORS[-1]], counts[16] + 15 * 8, counts)

    def test_constants_are_bounded_by_the_output_size(self):
        """The forward pass's weights: one table per axis, at most out_h +
        out_w entries. The gradient's: a few entries per output index (about
        2 here, where each of the 2 input indices is read by all outputs)."""
        for case in self.report["cases"]:
            _, out_hw = _case_sizes(case["axis"], case["factor"], IN_SIZE)
            bound = sum(out_hw) if case["op"] == "forward" else 2 * sum(out_hw)
            with self.subTest(**{k: case[k] for k in ("op", "axis", "factor", "mode")}):
                self.assertLessEqual(case["largest_constant"], bound)

    def test_sizes_past_the_machines_memory_are_refused_when_compiling(self):
        """The refusals come from lowering to HLO, before XLA compiles: an
        output the CPU kernel's allocator refuses, in its words, and weight
        tables past half the machine's memory (2^31 entries, 258 GB with
        their copies), and a gradient into an image of 64 GiB, which crashed
        the process before."""
        refusals = {r["name"]: r for r in self.report["refusals"]}
        output = refusals["output_4_tib"]
        prefix = "OOM when allocating tensor with shape[1,1048576,1048576,1] and type float"
        for where in ("eager", "xla"):
            self.assertStartsWith(output[where], "ResourceExhaustedError: " + prefix)
        self.assertIn("(refused when compiling)", output["xla"])
        self.assertStartsWith(
            refusals["grad_into_64_gib"]["xla"],
            "ResourceExhaustedError: OOM when allocating tensor with "
            "shape[1,17179869184,1,1] and type float")
        self.assertRegex(refusals["rows_int32_max"]["xla"],
                         r"^ResourceExhaustedError: MyBilinear under jit_compile needs "
                         r"tables of 2147483648 entries at compile time")

    def test_tables_past_an_address_space_limit_are_refused(self):
        """Under ulimit -v (xla_memory_limit_probe: 1 GiB beside what is
        mapped), a size that fits compiles and runs, and tables of about 4 GB
        are refused naming their size: a failed allocation inside XLA had
        crashed the process (a segmentation fault), as the op fuzzer found."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        probe = subprocess.run(
            [sys.executable, "-m",
             "tensorflow_ops.my_bilinear.python.tests.xla_memory_limit_probe"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=TIMEOUT_SECONDS, check=False)
        self.assertEqual(probe.returncode, 0, probe.stderr[-3000:])
        outcomes = {case["case"]: case for case in
                    map(json.loads, probe.stdout.strip().splitlines())}
        self.assertEqual(outcomes["fits"]["forward"], "ok")
        self.assertEqual(outcomes["fits"]["gradient"], "ok")
        for op, entries in (("MyBilinear", 2**25 + 2), ("MyBilinearGrad", 3 * 2**24)):
            outcome = outcomes["tables_past_limit"]["forward" if op == "MyBilinear"
                                                    else "gradient"]
            self.assertStartsWith(
                outcome, f"ResourceExhaustedError: {op} under jit_compile needs tables "
                f"of {entries} entries at compile time")
            self.assertIn("bytes of memory this process can use", outcome)

    def test_results_agree_with_the_eager_kernels(self):
        """XLA may fuse multiply-adds, so within 2 float32 ulp per added term
        (each of the gradient's sums adds about 2 * factor terms of magnitude
        at most 1); my_bilinear_xla_bitwise_test checks bits at factor 1024."""
        for case in self.report["cases"]:
            in_hw, out_hw = _case_sizes(case["axis"], case["factor"], IN_SIZE)
            terms = 3 if case["op"] == "forward" else 2 * case["factor"] + 2
            with self.subTest(**{k: case[k] for k in ("op", "axis", "factor", "mode")}):
                result_hw = out_hw if case["op"] == "forward" else in_hw
                self.assertEqual(case["shape"], [1, *result_hw, 1])
                self.assertLessEqual(case["max_error"],
                                     2 * terms * np.finfo(np.float32).eps)


if __name__ == "__main__":
    absltest.main()
