"""Vendors MyBilinear into a stand-in TensorFlow tree and builds it there with Bazel.

One nested Bazel run (batch mode, its own output root under TEST_TMPDIR, the
disk cache of tests/nested_bazel_cache.py) builds
the vendored op library with the stand-in's TensorFlow macros and runs one of the
vendored Python tests through tf_py_test/cuda_py_test. It proves the generated
BUILD file parses, passes only arguments the macros accept, compiles against
TensorFlow's headers with the in-tree include paths, and that the rewritten
wrapper finds its library with resource_loader.
"""

import os
import subprocess
import sys
import tempfile
import time
import unittest

from tests import nested_bazel_cache
from tests import stand_in_tf_tree
from tools import build_file_reader

DEST = "tensorflow/examples/custom_ops_doc/my_bilinear"
# The op's Python test target, filtered to a short part of it: the five cases
# of my_bilinear_shape_test.py (a filter that matches nothing passes, so the
# count is checked too).
TEST = "my_bilinear_test"
TEST_FILTER = "my_bilinear_shape_test"
TEST_CASES = 5
# The workspace as it is on disk (the test is tagged "external": never cached).
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _test_target(build_path: str) -> str:
    """The label that runs TEST on CPU: cuda_py_test names it <name>_cpu."""
    build = build_file_reader.read_build_file(build_path)
    kinds = {call.name: call.kind for call in build.calls}
    suffix = "_cpu" if kinds[TEST] == "cuda_py_test" else ""
    return f"//{DEST}:{TEST}{suffix}"


class VendorIntoTfBazelTest(unittest.TestCase):

    def test_vendored_op_builds_and_its_test_passes_in_the_tree(self):
        scratch = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
        tree = os.path.join(scratch, "tensorflow_src")
        stand_in_tf_tree.build(tree)
        tool = subprocess.run(
            [sys.executable, os.path.join(WORKSPACE, "tools", "vendor_into_tf.py"),
             "--tf-source", tree, "--dest", DEST],
            capture_output=True, text=True, check=False)
        self.assertEqual(tool.returncode, 0, tool.stderr)

        library = f"//{DEST}:my_bilinear_op.so"
        target = _test_target(os.path.join(tree, DEST, "BUILD"))
        start = time.monotonic()
        bazel = subprocess.run(
            ["bazel", "--batch", f"--output_user_root={scratch}/bazel_root",
             "test", "--color=no", "--curses=no", *nested_bazel_cache.flags(),
             f"--test_filter={TEST_FILTER}", library, target],
            cwd=tree, capture_output=True, text=True, check=False,
            env=dict(os.environ, HOME=scratch))
        elapsed = time.monotonic() - start
        print(f"nested bazel test {library} {target}: {elapsed:.0f} s")
        self.assertEqual(bazel.returncode, 0, bazel.stdout[-4000:] + bazel.stderr[-8000:])
        self.assertRegex(bazel.stdout + bazel.stderr, rf"{target}\s+PASSED")
        with open(os.path.join(tree, "bazel-testlogs", target[2:].replace(":", "/"),
                               "test.log"), encoding="utf-8") as log:
            self.assertRegex(log.read(), rf"\nRan {TEST_CASES} tests? in ")
        self.assertTrue(os.path.isfile(os.path.join(
            tree, "bazel-bin", DEST, "my_bilinear_op.so")))


if __name__ == "__main__":
    unittest.main()
