"""Generates every variant of the template op into a copy of the workspace, and
builds and tests them there.

The copy holds the workspace's files as git sees them (tracked, and untracked
but not ignored) and its .tf_configure.bazelrc. tools/new_op.py writes one op
with no flags, one with --grad, one with --gpu and one with --gpu --grad; one
nested Bazel run (its own output root under TEST_TMPDIR, shut down and removed
at the end; objects from tests/nested_bazel_cache.py) builds all four and runs
the smallest tests that prove each works: the op's Python tests (its unit and
property tests, one target), the unit tests of its math, and the GPU grid test
and the GPU test where there are GPU kernels. It runs in the
configuration this test was built in: under
--config=cuda the BUILD file passes `--cuda_build_defs=` the build's CUDA facts,
and the nested run compiles the GPU kernels with nvcc for the same compute
capabilities, besides the CPU code and tests of every variant.
An end-to-end test (//tests:end_to_end), outside `bazel test //...`: .ci/run
runs it once, with --config=cuda where nvcc exists, else CPU-only. The same
server then checks that the wheel's and the fuzzer's op lists took the
new packages in, and the vendoring tool must accept every folder; under
--config=cuda the --gpu ops' objects hold device code and the others' none,
and a child Python finds GPU kernels registered by the --gpu ops' libraries
and by no other.
"""

import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List
import unittest

from tests import nested_bazel_cache

# The workspace as it is on disk (the test is tagged "external": never cached).
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
# Each generated op, with its flags and the tests the nested run runs.
VARIANTS = {
    "plain_copy": ([], ["test", "math_test"]),
    "copy_with_grad": (["--grad"], ["test", "math_test"]),
    "copy_on_gpu": (["--gpu"], ["test", "math_test", "gpu_grid_test", "gpu_test"]),
    "copy_on_gpu_with_grad": (["--gpu", "--grad"],
                              ["test", "math_test", "gpu_grid_test", "gpu_test"]),
}
CUDA_FLAG = "--cuda_build_defs="
# Prints which op libraries register a GPU kernel.
_GPU_KERNELS = """
import json, sys
import tensorflow as tf
from tensorflow.python.framework import kernels
found = {}
for library, op_name in zip(sys.argv[1::2], sys.argv[2::2]):
    tf.load_op_library(library)
    devices = {k.device_type for k in kernels.get_registered_kernels_for_op(op_name).kernel}
    found[op_name] = "GPU" in devices
print(json.dumps(found))
"""


def _workspace_files() -> list:
    """The workspace's files as git sees them: tracked, and untracked but not
    ignored (a new op folder before its first commit), that exist."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=WORKSPACE, capture_output=True, check=True).stdout.decode()
    return sorted(path for path in listed.split("\0")
                  if path and os.path.isfile(os.path.join(WORKSPACE, path)))


def _copy_workspace(target: str) -> None:
    for path in _workspace_files() + [".tf_configure.bazelrc"]:
        os.makedirs(os.path.dirname(os.path.join(target, path)), exist_ok=True)
        shutil.copy2(os.path.join(WORKSPACE, path), os.path.join(target, path))


def _compute_capabilities(build_defs: str) -> List[str]:
    """CUDA_COMPUTE_CAPABILITIES of @local_config_cuda's build_defs.bzl."""
    with open(build_defs) as defs:
        match = re.search(r"^CUDA_COMPUTE_CAPABILITIES = (\[.*\])$", defs.read(), re.M)
    return ast.literal_eval(match.group(1))


class NewOpBazelTest(unittest.TestCase):

    # The nested run's extra Bazel flags; set from the command line in __main__.
    config: List[str] = []

    def setUp(self):
        self.scratch = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.copy = os.path.join(self.scratch, "workspace")
        self.output_root = os.path.join(self.scratch, "bazel_root")
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)
        self.addCleanup(self.bazel, "shutdown")
        _copy_workspace(self.copy)
        # Every command that builds or analyses passes the same flags, so the
        # server keeps its analysis between them.
        self.build_flags = self.config + nested_bazel_cache.flags()

    def bazel(self, *args: str) -> subprocess.CompletedProcess:
        """Bazel in the copy, with its own output root; the server quits on its
        own if shutdown never comes."""
        return subprocess.run(
            ["bazel", f"--output_user_root={self.output_root}", "--max_idle_secs=60",
             *args],
            cwd=self.copy, capture_output=True, text=True, check=False,
            env=dict(os.environ, HOME=self.scratch))

    def objects(self, package: str, source: str) -> List[bytes]:
        """The contents of the nested build's objects of {package}_{source}.
        Bazel's progress lines name only some of the running actions, so the
        objects are the evidence, not the log."""
        found = []
        for path in glob.glob(os.path.join(
                self.copy, "bazel-out", "*", "bin", "tensorflow_ops", package, "**",
                f"{package}_{source}*.o"), recursive=True):
            with open(path, "rb") as compiled:
                found.append(compiled.read())
        return found

    def new_op(self, *args: str) -> None:
        tool = subprocess.run([sys.executable, "tools/new_op.py", *args], cwd=self.copy,
                              capture_output=True, text=True, check=False)
        self.assertEqual(tool.returncode, 0, tool.stdout + tool.stderr)

    def test_generated_ops_build_and_pass_their_tests(self):
        for package, (flags, _) in VARIANTS.items():
            self.new_op(package, *flags)
        config = self.config
        cuda = bool(config)
        targets = [f"//tensorflow_ops/{package}:{package}_{test}"
                   for package, (_, tests) in VARIANTS.items() for test in tests]

        start = time.monotonic()
        run = self.bazel("test", "--color=no", "--curses=no", "--test_output=errors",
                         "--test_summary=short", *self.build_flags, *targets)
        print(f"nested bazel test of {len(targets)} targets {' '.join(config)}: "
              f"{time.monotonic() - start:.0f} s")
        self.assertEqual(run.returncode, 0, run.stdout[-4000:] + run.stderr[-8000:])
        log = run.stdout + run.stderr
        for target in targets:
            self.assertRegex(log, rf"{target}\s+PASSED")
        if cuda:
            # The --gpu ops' kernels are device code, compiled once (the
            # launchers, with the gradient's where --grad asked for it); their
            # OpKernels (the functors) are host code, and no other op has either.
            for package, (flags, _) in VARIANTS.items():
                gpu = "--gpu" in flags
                launchers = self.objects(package, "gpu_launchers")
                self.assertEqual([b".nv_fatbin" in o for o in launchers], [True] if gpu else [],
                                 f"{package}_gpu_launchers.cu.cc")
                grad_op = "".join(part.capitalize() for part in package.split("_")) + "Grad"
                self.assertEqual([grad_op.encode() in o for o in launchers],
                                 [True] if gpu and "--grad" in flags else [False] * gpu,
                                 f"{package}_gpu_launchers.cu.cc: {grad_op}")
                functors = self.objects(package, "gpu_functors")
                self.assertEqual([b".nv_fatbin" in o for o in functors], [False] if gpu else [],
                                 f"{package}_gpu_functors.cc")

        # The wheel and the fuzzer take the new packages with nothing edited by hand.
        query = self.bazel("cquery", *self.build_flags,
                           "deps(//tensorflow_ops:all_ops, 1) + deps(//tests/fuzz:op_calls, 1)")
        self.assertEqual(query.returncode, 0, query.stderr[-4000:])
        for package in VARIANTS:
            self.assertIn(f"//tensorflow_ops/{package}:{package}_py", query.stdout)

        # The vendoring tool takes them as they are (a plan, nothing written).
        tree = os.path.join(self.scratch, "tensorflow_src")
        os.makedirs(os.path.join(tree, "tensorflow"))
        for marker in ("WORKSPACE", "tensorflow/tensorflow.bzl"):
            open(os.path.join(tree, marker), "w").close()
        for package in VARIANTS:
            vendor = subprocess.run(
                [sys.executable, "tools/vendor_into_tf.py", "--tf-source", tree,
                 "--op", f"tensorflow_ops/{package}", "--dry-run"],
                cwd=self.copy, capture_output=True, text=True, check=False)
            self.assertEqual(vendor.returncode, 0, vendor.stdout + vendor.stderr)

        if cuda:
            self.check_gpu_kernels_registered(list(VARIANTS))

    def check_gpu_kernels_registered(self, packages: List[str]) -> None:
        """The --gpu ops' libraries register GPU kernels, the others none (a
        CPU-only build has none to check, so //... skips this TensorFlow
        start)."""
        bin_dir = self.bazel("info", *self.build_flags, "bazel-bin").stdout.strip()
        libraries = []
        wanted = {}
        for package in packages:
            flags = VARIANTS[package][0]
            op_name = "".join(word.capitalize() for word in package.split("_"))
            wanted[op_name] = "--gpu" in flags
            libraries += [os.path.join(bin_dir, "tensorflow_ops", package,
                                       f"{package}_op.so"), op_name]
        probe = subprocess.run([sys.executable, "-c", _GPU_KERNELS, *libraries],
                               capture_output=True, text=True, check=False,
                               env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertEqual(probe.returncode, 0, probe.stderr[-4000:])
        self.assertEqual(json.loads(probe.stdout.strip().splitlines()[-1]), wanted)

if __name__ == "__main__":
    build_defs = [a[len(CUDA_FLAG):] for a in sys.argv[1:] if a.startswith(CUDA_FLAG)]
    if build_defs:
        NewOpBazelTest.config = ["--config=cuda", "--repo_env=TF_CUDA_COMPUTE_CAPABILITIES="
                                 + ",".join(_compute_capabilities(build_defs[0]))]
    unittest.main(argv=[a for a in sys.argv if not a.startswith(CUDA_FLAG)])
