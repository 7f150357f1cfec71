"""This workspace's BUILD files and macros stay within TensorFlow's macro signatures.

Every call of tf_custom_op_library, tf_gpu_kernel_library and tf_cc_test in the
workspace must pass only arguments that TensorFlow's macro of the same name
accepts (tools/tf_macros.py records them), so that a BUILD file moves into a
TensorFlow tree by changing its load() line. The workspace's own macros
(third_party/tf/tensorflow.bzl) must not accept arguments TensorFlow's lack, nor
make optional what TensorFlow requires.
"""

import ast
import os
import unittest

from tools import build_file_reader
from tools import tf_macros

# The workspace as it is on disk (the test is tagged "external": never cached),
# so that a new op folder is checked without listing it anywhere.
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
MACROS_BZL = "//third_party/tf:tensorflow.bzl"
_SKIPPED_DIRS = {".git", ".venv", "stand_ins"}


def _build_files():
    for folder, dirs, files in os.walk(WORKSPACE):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("bazel-")]
        for name in files:
            if name in ("BUILD", "BUILD.bazel"):
                yield os.path.join(folder, name)


class TfMacroArgsTest(unittest.TestCase):

    def test_build_files_pass_only_arguments_tensorflow_accepts(self):
        problems, checked = [], 0
        for path in _build_files():
            build = build_file_reader.read_build_file(path)
            where = os.path.relpath(path, WORKSPACE)
            for call in build.calls:
                if build.loads.get(call.kind) != MACROS_BZL:
                    continue
                if call.kind not in tf_macros.MACROS:
                    problems.append(f"{where}:{call.line}: {call.kind} is not a "
                                    "TensorFlow macro (see tools/tf_macros.py)")
                    continue
                checked += 1
                problems += tf_macros.check_call(call.kind, call.kwargs,
                                                 f"{where}:{call.line}")
        self.assertEqual(problems, [])
        self.assertGreaterEqual(checked, 3)  # the op library and two C++ tests at least

    def test_workspace_macros_have_tensorflows_parameters(self):
        with open(os.path.join(WORKSPACE, "third_party", "tf", "tensorflow.bzl")) as bzl:
            tree = ast.parse(bzl.read())
        defined = {node.name: node for node in tree.body
                   if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}
        self.assertTrue(defined)
        for name, node in defined.items():
            self.assertIn(name, tf_macros.MACROS, f"{name} is not a TensorFlow macro")
            macro = tf_macros.MACROS[name]
            params = [a.arg for a in node.args.args]
            required = params[:len(params) - len(node.args.defaults)]
            for param in params:
                self.assertTrue(macro.accepts(param),
                                f"{name}({param}) is not a parameter of TensorFlow's {name}")
            self.assertEqual(sorted(macro.required - {"name"}),
                             sorted(set(required) & macro.required - {"name"}),
                             f"{name}: TensorFlow requires {sorted(macro.required)}")

    def test_a_wrong_argument_is_caught(self):
        # The check itself can fail: an argument of ours that TensorFlow lacks.
        problems = tf_macros.check_call("tf_cc_test", {"name": "t", "srcs": [], "deps": [],
                                                       "copts": []}, "BUILD:1")
        self.assertEqual(problems, ["BUILD:1: tf_cc_test has no argument `copts`"])
        self.assertEqual(tf_macros.check_call("tf_cc_test", {"name": "t", "srcs": []}, "B"),
                         ["B: tf_cc_test requires `deps`"])
        # TensorFlow's macro sets `data` itself, so **kwargs cannot carry it.
        self.assertEqual(tf_macros.check_call("tf_custom_op_library",
                                              {"name": "t.so", "data": []}, "B"),
                         ["B: tf_custom_op_library has no argument `data`"])


if __name__ == "__main__":
    unittest.main()
