"""Runs the op fuzz target for a fixed number of iterations with a fixed seed.

The fuzzer runs in a child process, so that a crash of an op (a signal, a
sanitizer report, an abort) fails this test instead of killing it; the input
that caused it is then printed, decoded into the op call it makes.
"""

import glob
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest

_FUZZER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_fuzzer.py")
RUNS = 5000  # the fuzzer prints how its calls ended every 5000 calls
SEED = 1


def _child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    return env


class OpFuzzTest(absltest.TestCase):

    def test_fixed_seed_run_has_no_finding(self):
        findings_dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        command = [sys.executable, _FUZZER, f"-runs={RUNS}", f"-seed={SEED}",
                   f"-artifact_prefix={findings_dir}/"]
        run = subprocess.run(command, env=_child_env(), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, check=False,
                             cwd=findings_dir)
        if run.returncode != 0:
            described = []
            for finding in sorted(glob.glob(os.path.join(findings_dir, "*-*"))):
                call = subprocess.run([sys.executable, _FUZZER, "--describe", finding],
                                      env=_child_env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, check=False)
                with open(finding, "rb") as data:
                    described.append(f"{finding} ({data.read().hex()}):\n{call.stdout}")
            self.fail(f"fuzzer exited with {run.returncode}:\n{run.stdout[-6000:]}\n"
                      "crashing input:\n" + "\n".join(described))
        self.assertIn(f"Done {RUNS} runs", run.stdout)
        # The calls got past the argument checks into every kernel.
        stats_line = next(line for line in run.stdout.splitlines()
                          if line.startswith(f"op_fuzzer after {RUNS} calls"))
        ops_line = next(line for line in run.stdout.splitlines()
                        if line.startswith("fuzzing "))
        for op_name in [part.split(" (")[0] for part in
                        ops_line[len("fuzzing "):].split("; ")[0].split(", ")]:
            self.assertIn(f"'{op_name} ran'", stats_line)


if __name__ == "__main__":
    absltest.main()
