"""tools/vendor_into_tf.py without Bazel: what it writes, and what it refuses."""

import contextlib
import io
import json
import os
import tempfile
import unittest

from tools import build_file_reader
from tools import tf_macros
from tools import vendor_into_tf
from tools.vendor_python import VendorError

DEST = "tensorflow/examples/custom_ops_doc/my_bilinear"
# The workspace as it is on disk (the test is tagged "external": never cached).
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _run(*args: str):
    """Runs the tool's main(); returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = vendor_into_tf.main(list(args))
    return code, out.getvalue(), err.getvalue()


def _write(root: str, relative: str, text: str) -> None:
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


def _tf_tree() -> str:
    root = tempfile.mkdtemp()
    _write(root, "tensorflow/tensorflow.bzl", "")
    return root


# The Keras serialization package of the op layers, and the registered names
# built from it: names, not paths.
_KERAS_NAMES = ('package="tensorflow_ops"', '"tensorflow_ops>')

class VendorIntoTfTest(unittest.TestCase):

    def setUp(self):
        super().setUp()
        vendor_into_tf.WORKSPACE_ROOT = WORKSPACE
        self.tree = _tf_tree()
        self.dest = os.path.join(self.tree, DEST)

    def _files(self):
        return sorted(os.path.relpath(os.path.join(d, f), self.dest)
                      for d, _, fs in os.walk(self.dest) for f in fs)

    def test_refuses_a_folder_that_is_not_a_tensorflow_tree(self):
        empty = tempfile.mkdtemp()
        code, _, err = _run("--tf-source", empty)
        self.assertEqual(code, 1)
        self.assertIn("is not a TensorFlow source tree", err)
        self.assertIn(os.path.join(empty, "tensorflow", "tensorflow.bzl"), err)
        self.assertEqual(os.listdir(empty), [])

    def _refused_argument(self, *args: str) -> str:
        """Runs the tool expecting argparse's exit 2; returns its message."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as exit_:
            vendor_into_tf.main(["--tf-source", self.tree, *args])
        self.assertEqual(exit_.exception.code, 2)
        self.assertEqual(os.listdir(os.path.join(self.tree, "tensorflow")),
                         ["tensorflow.bzl"])  # nothing written
        return err.getvalue()

    def test_refuses_a_dest_that_is_not_a_package_path(self):
        for dest in ("tensorflow/../../x", "tensorflow/my op", "tensorflow/my-op",
                     "third_party/x", "tensorflow"):
            self.assertIn("must be a package under tensorflow/",
                          self._refused_argument("--dest", dest), dest)

    def test_refuses_an_op_that_is_not_an_op_folder(self):
        for op in ("tensorflow_ops", "tensorflow_ops/", "tensorflow_ops/../tools",
                   "/tmp/zero_out", "tensorflow_ops/no_such_op"):
            err = self._refused_argument("--op", op)
            self.assertRegex(err, "not an op folder|no BUILD file", op)

    def test_an_absolute_op_path_inside_the_workspace_is_the_op_folder(self):
        code, out, _ = _run("--tf-source", self.tree, "--dry-run",
                            "--op", os.path.join(WORKSPACE, "tensorflow_ops", "zero_out"))
        self.assertEqual(code, 0)
        self.assertIn("would vendor tensorflow_ops/zero_out into "
                      "//tensorflow/examples/custom_ops_doc/zero_out", out)

    def test_dry_run_lists_the_files_and_writes_nothing(self):
        code, out, _ = _run("--tf-source", self.tree, "--dry-run")
        self.assertEqual(code, 0)
        self.assertIn(f"would write {self.dest}/BUILD", out)
        self.assertIn(f"would write {self.dest}/python/my_bilinear_ops.py", out)
        self.assertFalse(os.path.exists(self.dest))

    def test_second_run_changes_nothing(self):
        self.assertEqual(_run("--tf-source", self.tree)[0], 0)
        before = {f: open(os.path.join(self.dest, f)).read() for f in self._files()}
        code, out, _ = _run("--tf-source", self.tree)
        self.assertEqual(code, 0)
        lines = [l for l in out.splitlines() if l.startswith(("write", "update", "remove"))]
        self.assertEqual(lines, [])
        after = {f: open(os.path.join(self.dest, f)).read() for f in self._files()}
        self.assertEqual(after, before)
        self.assertIn(vendor_into_tf.MANIFEST, after)

    def test_refuses_to_overwrite_a_file_it_did_not_write(self):
        _write(self.dest, "BUILD", "# the fork's own BUILD\n")
        code, _, err = _run("--tf-source", self.tree)
        self.assertEqual(code, 1)
        self.assertIn("not written by this tool", err)
        self.assertEqual(self._files(), ["BUILD"])  # nothing else was written

    def test_refuses_to_overwrite_a_file_edited_since(self):
        self.assertEqual(_run("--tf-source", self.tree)[0], 0)
        _write(self.dest, "python/my_bilinear_ops.py", "# edited in the fork\n")
        code, _, err = _run("--tf-source", self.tree)
        self.assertEqual(code, 1)
        self.assertIn("changed since this tool wrote it", err)

    def test_removes_a_file_it_wrote_that_the_op_no_longer_has(self):
        self.assertEqual(_run("--tf-source", self.tree)[0], 0)
        manifest_path = os.path.join(self.dest, vendor_into_tf.MANIFEST)
        with open(manifest_path) as handle:
            manifest = json.load(handle)
        _write(self.dest, "python/old_op.py", "# from an earlier version of the op\n")
        manifest["files"]["python/old_op.py"] = vendor_into_tf._sha256(
            "# from an earlier version of the op\n")
        with open(manifest_path, "w") as handle:
            json.dump(manifest, handle)
        code, out, _ = _run("--tf-source", self.tree)
        self.assertEqual(code, 0)
        self.assertIn(f"remove {self.dest}/python/old_op.py", out)
        self.assertFalse(os.path.exists(os.path.join(self.dest, "python/old_op.py")))

    def test_rewrites_includes_imports_and_the_library_load(self):
        self.assertEqual(_run("--tf-source", self.tree)[0], 0)
        for relative in self._files():
            with open(os.path.join(self.dest, relative)) as handle:
                text = handle.read()
            if relative.endswith((".py", ".cc", ".h")):
                self.assertNotIn("tensorflow_ops.my_bilinear", text, relative)
                self.assertNotIn("tensorflow_ops/my_bilinear", text, relative)
                self.assertNotIn("import library_loader", text, relative)
        with open(os.path.join(self.dest, "python", "my_bilinear_ops.py")) as handle:
            wrapper = handle.read()
        self.assertIn('resource_loader.get_path_to_datafile("../my_bilinear_op.so")', wrapper)
        with open(os.path.join(self.dest, "cc/kernels/my_bilinear_cpu_functors.h")) as handle:
            self.assertIn(f'#include "{DEST}/cc/math/bilinear_cpu_paths.h"', handle.read())

    def test_build_file_uses_only_tensorflow_macros_and_their_arguments(self):
        self.assertEqual(_run("--tf-source", self.tree)[0], 0)
        build = build_file_reader.read_build_file(os.path.join(self.dest, "BUILD"))
        kinds = {call.kind for call in build.calls}
        self.assertIn("tf_custom_op_library", kinds)
        self.assertIn("py_strict_library", kinds)
        self.assertTrue(kinds & {"tf_py_test", "cuda_py_test"})
        for call in build.calls:
            if call.kind in ("package", "licenses"):
                continue
            self.assertIn(call.kind, tf_macros.MACROS)
            self.assertEqual(build.loads[call.kind], tf_macros.MACROS[call.kind].load_from)
            self.assertEqual(tf_macros.check_call(call.kind, call.kwargs, call.name), [])
            for dep in call.kwargs.get("deps", []):
                self.assertNotIn("tensorflow_ops", dep)
                self.assertNotIn("local_config_tf", dep)

    def test_no_vendored_python_file_names_the_workspace_package(self):
        # Every op folder: module strings (`python -m tensorflow_ops.saved_call_probe`
        # in zero_out's and split_at's tests) must name the vendored copies too.
        ops = sorted(d for d in os.listdir(os.path.join(WORKSPACE, "tensorflow_ops"))
                     if os.path.isfile(os.path.join(WORKSPACE, "tensorflow_ops", d,
                                                    "BUILD")))
        self.assertIn("zero_out", ops)
        for op in ops:
            dest = f"tensorflow/examples/custom_ops_doc/{op}"
            try:
                plan = vendor_into_tf.make_plan(f"tensorflow_ops/{op}", dest)
            except VendorError as error:  # refused by name: nothing half-written
                self.assertNotIn(op, ("my_bilinear", "zero_out", "split_at"), error)
                continue
            for relative, text in plan.files.items():
                # C++ keeps its namespace tensorflow_ops; only includes name paths.
                # Keras's registered name stays "tensorflow_ops>MyBilinearLayer",
                # so models saved with the workspace's layer load in-tree too.
                mark = "tensorflow_ops" if relative.endswith(".py") else '"tensorflow_ops/'
                leftover = [line for line in text.splitlines() if mark in line
                            and not any(name in line for name in _KERAS_NAMES)]
                self.assertEqual(leftover, [], f"{op}/{relative}")
            if op in ("zero_out", "split_at"):
                self.assertIn("saved_call_probe.py", plan.files)


class SyntheticOpTest(unittest.TestCase):
    """An op folder with CUDA and XLA sources, made up for the tool alone."""

    def _plan(self, build: str, files):
        workspace = tempfile.mkdtemp()
        for name in files:
            _write(workspace, f"tensorflow_ops/toy/{name}",
                   '#include "tensorflow_ops/toy/toy.h"\n' if name.endswith(".cc") else
                   "import numpy as np\n")
        _write(workspace, "tensorflow_ops/toy/BUILD", build)
        plan = vendor_into_tf.make_plan("tensorflow_ops/toy", "tensorflow/toy", workspace)
        return plan, build_file_reader.read_build_file_text(plan.files["BUILD"])

    def test_gpu_and_xla_sources_go_where_tensorflow_puts_them(self):
        plan, build = self._plan('''
load("//third_party/tf:tensorflow.bzl", "tf_custom_op_library")
tf_custom_op_library(
    name = "toy.so",
    srcs = ["toy.h", "toy_op.cc", "toy_kernel.cc", "toy_kernel.cu.cc", "toy_xla.cc"],
)
py_test(name = "toy_test", srcs = ["toy_test.py"], data = [":toy.so"])
''', ["toy.h", "toy_op.cc", "toy_kernel.cc", "toy_kernel.cu.cc", "toy_xla.cc",
      "toy_test.py"])
        calls = {call.name: call for call in build.calls}
        library = calls["toy.so"].kwargs
        self.assertEqual(library["srcs"], ["toy.h", "toy_kernel.cc", "toy_op.cc"])
        self.assertEqual(library["gpu_srcs"], ["toy.h", "toy_kernel.cu.cc"])
        xla = calls["toy_xla"]
        self.assertEqual(xla.kind, "cc_library")
        self.assertEqual(xla.kwargs["srcs"], ["toy.h", "toy_xla.cc"])  # it includes toy.h
        self.assertIn("//tensorflow/compiler/tf2xla:xla_op_registry", xla.kwargs["deps"])
        self.assertEqual(xla.kwargs["alwayslink"], 1)
        # With GPU kernels, the test runs on CPU and GPU, as multiplex_2's does.
        self.assertEqual(calls["toy_test"].kind, "cuda_py_test")
        self.assertIn("//third_party/py/numpy", calls["toy_test"].kwargs["deps"])
        self.assertIn('#include "tensorflow/toy/toy.h"', plan.files["toy_xla.cc"])

    def test_host_sources_of_gpu_srcs_go_to_srcs(self):
        # TensorFlow's cuda_library would compile them as CUDA; in srcs its CUDA
        # build compiles them as C++ with GOOGLE_CUDA, and the header they
        # share with the kernels goes to both.
        _, build = self._plan('''
load("//third_party/tf:tensorflow.bzl", "tf_custom_op_library")
tf_custom_op_library(
    name = "toy.so",
    srcs = ["toy.h", "toy_op.cc"],
    gpu_srcs = ["toy.h", "toy_gpu_functors.cc", "toy_gpu_launchers.cu.cc",
                "toy_gpu_launchers.h", "toy_gpu_kernels.cu.h"],
)
''', ["toy.h", "toy_op.cc", "toy_gpu_functors.cc", "toy_gpu_launchers.cu.cc",
      "toy_gpu_launchers.h", "toy_gpu_kernels.cu.h"])
        library = build.calls[-1].kwargs
        self.assertEqual(library["srcs"], ["toy.h", "toy_gpu_functors.cc",
                                           "toy_gpu_launchers.h", "toy_op.cc"])
        self.assertEqual(library["gpu_srcs"], ["toy.h", "toy_gpu_kernels.cu.h",
                                               "toy_gpu_launchers.cu.cc",
                                               "toy_gpu_launchers.h"])

    def test_the_xla_library_gets_the_op_sources_its_xla_files_include(self):
        workspace = tempfile.mkdtemp()
        sources = {
            "toy_xla.cc": '#include "tensorflow_ops/toy/toy_check.h"\n',
            "toy_check.h": '#include "tensorflow_ops/toy/toy_limits.h"\n',
            "toy_check.cc": '#include "tensorflow_ops/toy/toy_check.h"\n'
                            '#include "tensorflow_ops/toy/toy_status.h"\n',
            "toy_limits.h": "", "toy_status.h": "",
            "toy_kernel.h": "", "toy_kernel.cc": '#include "tensorflow_ops/toy/toy_kernel.h"\n',
        }
        for name, text in sources.items():
            _write(workspace, f"tensorflow_ops/toy/{name}", text)
        _write(workspace, "tensorflow_ops/toy/BUILD",
               'tf_custom_op_library(name = "toy.so", srcs = %r)\n' % sorted(sources))
        plan = vendor_into_tf.make_plan("tensorflow_ops/toy", "tensorflow/toy", workspace)
        build = build_file_reader.read_build_file_text(plan.files["BUILD"])
        calls = {call.name: call.kwargs for call in build.calls}
        # The shared check header, what it includes, and the .cc that defines it.
        self.assertEqual(calls["toy_xla"]["srcs"], [
            "toy_check.cc", "toy_check.h", "toy_limits.h", "toy_status.h", "toy_xla.cc"])
        self.assertEqual(calls["toy.so"]["srcs"], sorted(set(sources) - {"toy_xla.cc"}))

    def test_python_tests_of_the_xla_kernels_are_manual_and_say_why(self):
        plan, build = self._plan('''
tf_custom_op_library(name = "toy.so", srcs = ["toy_op.cc", "toy_xla.cc"])
py_test(name = "toy_test", srcs = ["toy_test.py"], tags = ["small"])
py_test(name = "toy_xla_test", srcs = ["toy_xla_test.py"], tags = ["small"])
py_test(name = "toy_bitwise_test", srcs = ["toy_bitwise_test.py", "toy_xla_test.py"])
''', ["toy_op.cc", "toy_xla.cc", "toy_test.py", "toy_xla_test.py", "toy_bitwise_test.py"])
        tags = {call.name: call.kwargs.get("tags", []) for call in build.calls}
        self.assertEqual(tags["toy_test"], ["small"])
        self.assertEqual(tags["toy_xla_test"], ["manual", "small"])
        self.assertEqual(tags["toy_bitwise_test"], ["manual"])
        text = plan.files["BUILD"]
        comment = text[:text.index('name = "toy_xla_test"')].rsplit("\n)\n", 1)[1]
        self.assertIn("//tensorflow/compiler/tf2xla/kernels:xla_ops", comment)

    def test_a_test_of_several_files_runs_the_one_named_as_the_target(self):
        # TensorFlow's macros would look for <name>.py beside the BUILD file.
        files = ["helper.py", "python/tests/toy_ops_test.py", "python/tests/toy_test.py",
                 "python/tests/toy_probe.py"]
        _, build = self._plan('''
py_library(name = "gen_py", srcs = ["helper.py"])
py_test(name = "toy_test", srcs = ["helper.py", "python/tests/toy_ops_test.py",
                                   "python/tests/toy_test.py"])
py_test(name = "toy_ops_test", srcs = ["python/tests/toy_ops_test.py"])
py_test(name = "toy_probe_test", srcs = ["python/tests/toy_probe.py"])
py_test(name = "helper", srcs = ["helper.py", "python/tests/toy_probe.py"])
py_test(name = "from_a_label_test", srcs = [":gen_py"])
''', files)
        mains = {call.name: call.kwargs.get("main") for call in build.calls}
        self.assertEqual(mains["toy_test"], "python/tests/toy_test.py")
        self.assertEqual(mains["toy_ops_test"], "python/tests/toy_ops_test.py")
        self.assertEqual(mains["toy_probe_test"], "python/tests/toy_probe.py")
        self.assertIsNone(mains["helper"])  # helper.py is beside the BUILD file
        self.assertIsNone(mains["from_a_label_test"])

    def test_an_unknown_rule_is_refused_by_name(self):
        with self.assertRaisesRegex(VendorError, "genrule has no in-tree equivalent"):
            self._plan('genrule(name = "g", srcs = ["a.cc"], outs = ["b.cc"], cmd = "")\n',
                       ["a.cc"])

    def test_an_unknown_argument_is_refused_by_name(self):
        with self.assertRaisesRegex(VendorError, "`magic` of tf_custom_op_library"):
            self._plan('tf_custom_op_library(name = "t.so", srcs = ["a.cc"], magic = 3)\n',
                       ["a.cc"])

    def test_includes_outside_the_op_folder_are_refused(self):
        workspace = tempfile.mkdtemp()
        _write(workspace, "tensorflow_ops/toy/a.cc", '#include "tensorflow_ops/other/x.h"\n')
        _write(workspace, "tensorflow_ops/toy/BUILD",
               'tf_custom_op_library(name = "t.so", srcs = ["a.cc"])\n')
        with self.assertRaisesRegex(VendorError, "outside tensorflow_ops/toy"):
            vendor_into_tf.make_plan("tensorflow_ops/toy", "tensorflow/toy", workspace)


if __name__ == "__main__":
    unittest.main()
