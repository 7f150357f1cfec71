"""Runs the fuzz targets for a fixed number of iterations with a fixed seed:
the op fuzzer eagerly, under XLA (--mode=jit) and through JAX (--mode=jax),
and the layer config fuzzer.

Each fuzzer runs in a child process, so that a crash of an op (a signal, a
sanitizer report, an abort) fails this test instead of killing it; the input
that caused it is then printed, decoded into the call it makes.
"""

import glob
import os
import subprocess
import sys
import tempfile
from typing import List

from absl.testing import absltest

_FUZZ_DIR = os.path.dirname(os.path.abspath(__file__))
_FUZZER = os.path.join(_FUZZ_DIR, "op_fuzzer.py")
_CONFIG_FUZZER = os.path.join(_FUZZ_DIR, "layer_config_fuzzer.py")
RUNS = 5000  # the fuzzer prints how its calls ended every 5000 calls
# Under XLA most calls are refused when compiling; the rest compile (a tenth
# of a second or more each): 2000 take about 25 s here.
JIT_RUNS = 2000
# Through JAX: about 100 calls a second, each also made of the FFI handler.
JAX_RUNS = 1500
# About 190 configs a second, one in eight through a .keras file.
CONFIG_RUNS = 3000
SEED = 1


def _child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    return env


class OpFuzzTest(absltest.TestCase):

    def _run(self, fuzzer: str, flags: List[str], runs: int) -> str:
        """Runs `fuzzer` with `flags` for `runs` inputs; fails describing any
        finding (decoded with the same flags), else returns its output."""
        findings_dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        command = [sys.executable, fuzzer, *flags, f"-runs={runs}", f"-seed={SEED}",
                   f"-artifact_prefix={findings_dir}/"]
        run = subprocess.run(command, env=_child_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, check=False,
                             cwd=findings_dir)
        if run.returncode != 0:
            described = []
            for finding in sorted(glob.glob(os.path.join(findings_dir, "*-*"))):
                call = subprocess.run([sys.executable, fuzzer, *flags, "--describe", finding],
                                      env=_child_env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, check=False)
                with open(finding, "rb") as data:
                    described.append(f"{finding} ({data.read().hex()}):\n{call.stdout}")
            self.fail(f"{' '.join(command)} exited with {run.returncode}:\n"
                      f"{run.stdout[-6000:]}\ncrashing input:\n" + "\n".join(described))
        self.assertIn(f"Done {runs} runs", run.stdout)
        return run.stdout

    def _assert_every_op_ran(self, output: str, runs: int) -> List[str]:
        """The calls got past the argument checks into every kernel; returns the ops."""
        stats_line = next(line for line in output.splitlines()
                          if line.startswith(f"op_fuzzer after {runs} calls"))
        ops_line = next(line for line in output.splitlines() if line.startswith("fuzzing "))
        op_names = [part.split(" (")[0] for part in
                    ops_line[len("fuzzing "):].split("; ")[0].split(", ")]
        for op_name in op_names:
            self.assertIn(f"'{op_name} ran'", stats_line)
        return op_names

    def test_fixed_seed_run_has_no_finding(self):
        output = self._run(_FUZZER, [], RUNS)
        self._assert_every_op_ran(output, RUNS)

    def test_fixed_seed_jit_run_has_no_finding(self):
        output = self._run(_FUZZER, ["--mode=jit", f"--stats_every={JIT_RUNS}"], JIT_RUNS)
        # Only ops with an XLA kernel, found in the registry; an op without
        # one fails under the same wrapper, so "ran" means compiled by XLA.
        self.assertIn("; mode jit", output)
        self.assertRegex(output, r"jit mode is real: \w+ \(no XLA kernel\) fails under "
                                 r"the jit wrapper: .*XLA_CPU_JIT")
        op_names = self._assert_every_op_ran(output, JIT_RUNS)
        self.assertIn("MyBilinear", op_names)
        self.assertNotIn("ZeroOut", op_names)
        stats_line = next(line for line in output.splitlines()
                          if line.startswith(f"op_fuzzer after {JIT_RUNS} calls"))
        # Gradients compiled too (which ops' depends on the inputs' dtypes).
        self.assertRegex(stats_line, r"'\w+ gradient ran': [1-9]")

    def test_fixed_seed_jax_run_has_no_finding(self):
        output = self._run(_FUZZER, ["--mode=jax", f"--stats_every={JAX_RUNS}"], JAX_RUNS)
        self.assertIn("; mode jax", output)
        op_names = self._assert_every_op_ran(output, JAX_RUNS)
        self.assertEqual(op_names, ["MyBilinear", "MyBilinearGrad"])
        stats_line = next(line for line in output.splitlines()
                          if line.startswith(f"op_fuzzer after {JAX_RUNS} calls"))
        # Refused by jax_ops at trace time and by the handlers, and run by
        # both, gradients included.
        for outcome in ("MyBilinear wrapper ValueError", "MyBilinear handler INVALID_ARGUMENT",
                        "MyBilinear handler ran", "MyBilinearGrad gradient ran",
                        "MyBilinearGrad handler INVALID_ARGUMENT"):
            self.assertRegex(stats_line, f"'{outcome}': [1-9]")

    def test_fixed_seed_layer_config_run_has_no_finding(self):
        output = self._run(_CONFIG_FUZZER, [], CONFIG_RUNS)
        stats_line = next(line for line in output.splitlines()
                          if line.startswith(f"layer_config_fuzzer after {CONFIG_RUNS} calls"))
        # Both ways in made layers that ran, and refused configs, each way.
        for outcome in ("from_config made a layer", "load_model made a layer", "call ran",
                        "from_config ValueError", "from_config TypeError",
                        "load_model ValueError", "load_model TypeError"):
            self.assertRegex(stats_line, f"'{outcome}': [1-9]")


if __name__ == "__main__":
    absltest.main()
