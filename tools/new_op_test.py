"""Fast tests of tools/new_op.py: names, refusals, no overwriting, the registry
edit, the template's markers and formatting, and what it generates from the
template (tests/new_op_bazel_test.py builds and tests every variant with Bazel).

Each test writes into a small stand-in workspace in a temporary folder; only
the TensorFlow name check runs TensorFlow (in a child process, as the tool does).
"""

import contextlib
import importlib.util
import io
import os
import re
import shutil
import tempfile
import unittest
from unittest import mock

from tools import build_file_reader
from tools import new_op
from tools import new_op_names
from tools import new_op_template
from tools import tf_macros

# The workspace as it is on disk (the test is tagged "external": never cached).
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
REGISTRY_TEXT = '''"""Op packages."""

OP_PACKAGES = [
    "my_bilinear",
    "split_at",
    "zero_out",
]
'''


def _copy_template(workspace: str) -> None:
    """The workspace's template op, into the stand-in workspace `workspace`."""
    shutil.copytree(os.path.join(WORKSPACE, new_op_template.TEMPLATE_FOLDER),
                    os.path.join(workspace, new_op_template.TEMPLATE_FOLDER),
                    ignore=shutil.ignore_patterns("__pycache__"))


def _snapshot(folder: str) -> dict:
    """Every file under `folder` with its content."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, folder)] = handle.read()
    return files


class NamesTest(unittest.TestCase):

    def test_camel_case_and_back(self):
        self.assertEqual(new_op_names.camel_case("scale_by"), "ScaleBy")
        self.assertEqual(new_op_names.camel_case("conv3d_rows"), "Conv3dRows")
        for snake in ("scale_by", "conv3d_rows", "my_op", "scale2_by"):
            op_name = new_op_names.camel_case(snake)
            self.assertEqual(new_op_names.generated_function_name(op_name), snake)

    def test_function_names_are_tensorflows(self):
        # Op names and the functions TensorFlow generated for them, read from
        # its gen_*_ops.py sources: importing TensorFlow would cost seconds.
        ops_folder = os.path.join(
            os.path.dirname(importlib.util.find_spec("tensorflow").origin), "python", "ops")
        defined = {}
        for module in ("gen_ctc_ops", "gen_math_ops", "gen_nn_ops"):
            with open(os.path.join(ops_folder, module + ".py"), encoding="utf-8") as source:
                defined[module] = set(re.findall(r"^def (\w+)\(", source.read(), re.M))
            self.assertGreater(len(defined[module]), 2, module)  # the pattern matches
        for module, op_name in (("gen_nn_ops", "Conv2DBackpropInput"),
                                ("gen_ctc_ops", "CTCLoss"), ("gen_nn_ops", "LRN"),
                                ("gen_math_ops", "BatchMatMulV2"), ("gen_nn_ops", "Relu6"),
                                ("gen_nn_ops", "FusedBatchNormGradV3")):
            with self.subTest(op_name=op_name):
                function = new_op_names.generated_function_name(op_name)
                self.assertIn(function, defined[module])

    def test_refused_names(self):
        for name, reason in (("MyOp", "snake_case"), ("my-op", "snake_case"),
                             ("1op", "snake_case"), ("my__op", "snake_case"),
                             ("_my_op", "snake_case"), ("my_op_", "snake_case"),
                             ("resize_2x", "snake_case"), ("", "snake_case"),
                             ("import", "keyword"), ("a_b", "two letters"),
                             ("scale_x_y", "two letters")):
            with self.subTest(name=name):
                self.assertIn(reason, new_op_names.name_problem(name))
        for name in ("my_op", "scale2_by", "conv3d", "op"):
            self.assertEqual(new_op_names.name_problem(name), "", name)


class RegistryTest(unittest.TestCase):

    def test_inserts_in_sorted_order_and_changes_nothing_else(self):
        for package, position in (("aa_first", 0), ("scale_by", 1), ("zz_last", 3)):
            with self.subTest(package=package):
                text = new_op.add_to_registry(REGISTRY_TEXT, package)
                lines = REGISTRY_TEXT.splitlines(keepends=True)
                start = lines.index("OP_PACKAGES = [\n") + 1
                lines.insert(start + position, f'    "{package}",\n')
                self.assertEqual(text, "".join(lines))

    def test_refuses_a_listed_package_and_a_list_it_cannot_read(self):
        with self.assertRaisesRegex(new_op.Refusal, "split_at is already listed"):
            new_op.add_to_registry(REGISTRY_TEXT, "split_at")
        for text in ("OP_PACKAGES = []\n", 'OP_PACKAGES = ["a", "b"]\n',
                     REGISTRY_TEXT.replace('    "split_at",\n', '    "split_at",  # x\n')):
            with self.assertRaisesRegex(new_op.Refusal, "does not hold the list"):
                new_op.add_to_registry(text, "new_one")

    def test_the_workspace_registry_lists_every_op_package(self):
        # The wheel and the fuzzer take their op packages from this list.
        with open(os.path.join(WORKSPACE, new_op.REGISTRY)) as registry:
            listed = new_op.listed_packages(registry.read())
        declared = []
        for package in sorted(os.listdir(os.path.join(WORKSPACE, "tensorflow_ops"))):
            build = os.path.join(WORKSPACE, "tensorflow_ops", package, "BUILD")
            if package == new_op_template.TEMPLATE_PACKAGE:
                continue  # built and tested, never shipped nor fuzzed
            if os.path.isfile(build) and any(
                    call.kind == "tf_custom_op_library"
                    for call in build_file_reader.read_build_file(build).calls):
                declared.append(package)
        self.assertEqual(listed, declared)


    def test_the_wheel_and_the_fuzzer_take_every_listed_package(self):
        # Read as the vendoring tool reads BUILD files: the loaded list is evaluated.
        with open(os.path.join(WORKSPACE, new_op.REGISTRY)) as registry:
            listed = new_op.listed_packages(registry.read())
        labels = [f"//tensorflow_ops/{package}:{package}_py" for package in listed]
        for build, target in (("tensorflow_ops/BUILD", "all_ops"),
                              ("tests/fuzz/BUILD", "op_calls")):
            calls = build_file_reader.read_build_file(os.path.join(WORKSPACE, build)).calls
            (call,) = [call for call in calls if call.name == target]
            self.assertLessEqual(set(labels), set(call.kwargs["deps"]), build)


class ToolTest(unittest.TestCase):
    """The command line, in a stand-in workspace; TensorFlow's registry is
    replaced by a fixed list except in test_refuses_a_tensorflow_op_name."""

    def setUp(self):
        self.workspace = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.addCleanup(shutil.rmtree, self.workspace)
        os.makedirs(os.path.join(self.workspace, "tensorflow_ops", "zero_out", "cc", "ops"))
        with open(os.path.join(self.workspace, new_op.REGISTRY), "w") as registry:
            registry.write(REGISTRY_TEXT)
        with open(os.path.join(self.workspace, "tensorflow_ops", "zero_out", "cc", "ops",
                               "zero_out_ops.cc"), "w") as ops_file:
            ops_file.write('REGISTER_OP("ZeroOut")\n    .Input("x: T");\n'
                           'REGISTER_OP(\n    "TakenGrad");\n')
        _copy_template(self.workspace)
        patcher = mock.patch.object(
            new_op, "tensorflow_ops_registered",
            side_effect=lambda names, _: [n for n in names if n in ("Relu", "Relu6")])
        patcher.start()
        self.addCleanup(patcher.stop)

    def run_tool(self, *args: str):
        """(exit status, stdout, stderr) of the tool on the stand-in workspace."""
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = new_op.main([*args, "--workspace", self.workspace])
        return status, stdout.getvalue(), stderr.getvalue()

    def assert_refused(self, args, message: str):
        before = _snapshot(self.workspace)
        status, _, stderr = self.run_tool(*args)
        self.assertEqual(status, 2, stderr)
        self.assertIn(message, stderr)
        self.assertIn("nothing was written", stderr)
        self.assertEqual(_snapshot(self.workspace), before)

    def test_refuses_bad_names_and_destinations(self):
        self.assert_refused(["ScaleBy"], "not a snake_case name")
        self.assert_refused(["scale_x_y"], "at least two letters")
        self.assert_refused(["scale_by", "--dest", "elsewhere/scale_by"],
                            "--dest must be tensorflow_ops/<package>")
        self.assert_refused(["scale_by", "--dest", "tensorflow_ops/a/b"],
                            "--dest must be tensorflow_ops/<package>")
        self.assert_refused(["scale_by", "--dest", "tensorflow_ops/Bad"],
                            "not a snake_case package name")

    def test_refuses_names_that_would_break_the_generated_code(self):
        # C++ keywords, and namespaces and macros the C++ uses.
        for name in ("int", "new", "auto", "errno", "tensorflow", "absl", "std"):
            self.assert_refused([name, "--grad"], "C++ keyword or a namespace or macro")
        # Python builtins, and names the generated code uses itself.
        self.assert_refused(["str", "--grad"], "Python builtin")
        for name in ("scale", "x", "tf", "np", "ops", "reference", "grads", "upstream"):
            self.assert_refused([name, "--grad"], "generated code already uses")
        # A package that would hide a module of tensorflow_ops.
        with open(os.path.join(self.workspace, "tensorflow_ops", "shared_helpers.py"),
                  "w") as module:
            module.write("")
        self.assert_refused(["shared_helpers"], "is a module of the workspace")
        self.assert_refused(["scale_by", "--dest", "tensorflow_ops/class"],
                            "is a Python keyword")

    def test_names_holding_the_templates_or_its_words_are_handled(self):
        # A package or op name holding the template's name is renamed once, not
        # twice, and README prose does not reserve words.
        for args, package in ((["scale_by", "--dest", "tensorflow_ops/loop_templates"],
                               "loop_templates"),
                              (["stop_template", "--grad"], "stop_template"),
                              (["copy"], "copy")):
            with self.subTest(args=args):
                status, _, stderr = self.run_tool(*args)
                self.assertEqual(status, 0, stderr)
                build = build_file_reader.read_build_file(
                    os.path.join(self.workspace, "tensorflow_ops", package, "BUILD"))
                self.assertIn(f"{package}_py", [call.name for call in build.calls])
        with open(os.path.join(self.workspace, "tensorflow_ops", "loop_templates",
                               "__init__.py")) as init:
            self.assertIn("from tensorflow_ops.loop_templates.python import", init.read())
        # An op whose CamelCase name the C++ uses unqualified (CpuDevice) is refused.
        self.assert_refused(["cpu_device", "--grad"], "gives CpuDevice")

    def test_refuses_an_existing_folder_and_never_overwrites(self):
        folder = os.path.join(self.workspace, "tensorflow_ops", "scale_by")
        os.makedirs(folder)
        with open(os.path.join(folder, "BUILD"), "w") as build:
            build.write("# mine\n")
        self.assert_refused(["scale_by", "--grad"], "tensorflow_ops/scale_by exists")
        # Even past the check (a folder that appears meanwhile), nothing is replaced.
        names = new_op_names.OpNames("scale_by", "scale_by", gpu=False, grad=True)
        with self.assertRaises(FileExistsError):
            new_op.generate(names, self.workspace)
        with open(os.path.join(folder, "BUILD")) as build:
            self.assertEqual(build.read(), "# mine\n")

    def test_refuses_a_package_already_in_the_registry(self):
        self.assert_refused(["split_at"], "split_at is already listed")

    def test_refuses_op_names_the_workspace_registers(self):
        self.assert_refused(["zero_out", "--dest", "tensorflow_ops/zeros"],
                            "op ZeroOut is already registered by "
                            "tensorflow_ops/zero_out/cc/ops/zero_out_ops.cc")
        # Only the gradient op's name is taken: refused with --grad alone.
        self.assert_refused(["taken", "--grad"], "op TakenGrad is already registered")
        self.assertEqual(self.run_tool("taken")[0], 0)

    def test_refuses_op_names_tensorflow_registers(self):
        self.assert_refused(["relu6"], "TensorFlow already has an op or a gradient named Relu6")

    def test_writes_the_folder_and_the_registry_line(self):
        status, stdout, _ = self.run_tool("scale_by", "--gpu", "--grad")
        self.assertEqual(status, 0)
        folder = os.path.join(self.workspace, "tensorflow_ops", "scale_by")
        written = sorted(_snapshot(folder))
        self.assertEqual(written, sorted([
            "BUILD", "README.md", "__init__.py",
            "cc/ops/scale_by_ops.cc",
            "cc/kernels/scale_by_op.h", "cc/kernels/scale_by_op.cc",
            "cc/kernels/scale_by_grad_op.cc", "cc/kernels/scale_by_gpu_functors.cc",
            "cc/kernels/scale_by_gpu_launchers.h", "cc/kernels/scale_by_gpu_launchers.cu.cc",
            "cc/kernels/scale_by_validation.h", "cc/kernels/scale_by_validation.cc",
            "cc/math/scale_by_elements.h", "cc/math/scale_by_ranges.h",
            "cc/math/scale_by_gpu_kernels.cu.h",
            "cc/tests/scale_by_math_test.cc", "cc/tests/scale_by_gpu_grid_test.cc",
            "python/__init__.py", "python/scale_by_ops.py",
            "python/tests/scale_by_reference.py", "python/tests/scale_by_ops_test.py",
            "python/tests/scale_by_property_test.py", "python/tests/scale_by_test.py",
            "python/tests/scale_by_gpu_test.py"]))
        with open(os.path.join(self.workspace, new_op.REGISTRY)) as registry:
            self.assertEqual(registry.read(),
                             new_op.add_to_registry(REGISTRY_TEXT, "scale_by"))
        self.assertIn("bazel test //tensorflow_ops/scale_by/...", stdout)
        # A second run refuses and leaves everything as the first wrote it.
        self.assert_refused(["scale_by"], "tensorflow_ops/scale_by exists")

    def test_dest_names_the_package_and_the_op_keeps_its_name(self):
        self.assertEqual(self.run_tool("scale_by", "--dest", "tensorflow_ops/scaling")[0], 0)
        build = build_file_reader.read_build_file(
            os.path.join(self.workspace, "tensorflow_ops", "scaling", "BUILD"))
        self.assertIn("scaling_py", [call.name for call in build.calls])
        self.assertIn("scale_by_op.so", [call.name for call in build.calls])
        with open(os.path.join(self.workspace, new_op.REGISTRY)) as registry:
            self.assertIn('    "scaling",\n', registry.read())


class TensorFlowNameTest(unittest.TestCase):

    def test_refuses_a_tensorflow_op_name(self):
        # TensorFlow itself, in a child process as the tool runs it.
        # Queue has no op but a registered gradient function, which a
        # generated --grad would collide with.
        registered = new_op.tensorflow_ops_registered(
            ["Relu", "ScaleByNotAnOp", "Queue"], WORKSPACE)
        self.assertEqual(registered, ["Relu", "Queue"])


class TemplateTest(unittest.TestCase):
    """The template op's markers and formatting, and what the tool makes of it
    for every combination of flags, without Bazel."""

    VARIANTS = [(gpu, grad) for gpu in (False, True) for grad in (False, True)]
    MARKER_TEXT = re.compile(r"--grad: |--gpu: |template only")

    @classmethod
    def setUpClass(cls):
        cls.clang_format = new_op.clang_format_path(WORKSPACE)
        cls.template = {}
        for relative in new_op_template.template_files(WORKSPACE):
            with open(os.path.join(WORKSPACE, new_op_template.TEMPLATE_FOLDER, relative),
                      encoding="utf-8") as source:
                cls.template[relative] = source.read()

    def generated(self, name: str, gpu: bool, grad: bool, package: str = "") -> dict:
        names = new_op_names.OpNames(package or name, name, gpu=gpu, grad=grad)
        return new_op_template.op_files(names, WORKSPACE, self.clang_format)

    def test_clang_format_formats_every_file_it_is_given(self):
        """In one run, in subfolders too (a formatter that returned its input
        would pass the fixed-point checks below); paths outside the op's
        folder, or that clang-format would take for options, are refused."""
        formatted = new_op_template.clang_format(self.clang_format, {
            "a.cc": "int  f( ){return 1;}\n", "cc/b.h": "int  g( ){return 2;}\n",
            "c.py": "x  =  1\n"})
        self.assertEqual(formatted, {"a.cc": "int f() { return 1; }\n",
                                     "cc/b.h": "int g() { return 2; }\n",
                                     "c.py": "x  =  1\n"})
        self.assertEqual(new_op_template.clang_format(self.clang_format, {
            "-a.cc": "int  x;\n"}), {"-a.cc": "int x;\n"})
        for path in ("/tmp/a.cc", "../a.cc", "cc/../../a.cc"):
            with self.assertRaisesRegex(new_op_template.TemplateError, "not a path inside"):
                new_op_template.clang_format(self.clang_format, {path: "int x;\n"})

    def test_the_template_is_formatted_as_clang_format_would(self):
        cc_files = [path for path in self.template if new_op_template.is_cc(path)]
        self.assertGreater(len(cc_files), 10)
        formatted = new_op_template.clang_format(self.clang_format, self.template)
        for path in cc_files:
            text = self.template[path]
            with self.subTest(path=path):
                self.assertEqual(text, formatted[path], f"{path}: run clang-format "
                                 "--style=Google -i on it")

    def test_every_optional_part_is_in_the_template(self):
        for flag in ("--grad", "--gpu"):
            marked = [path for path, text in self.template.items()
                      if f"{flag}: begin" in text]
            self.assertGreaterEqual(len(marked), 3, flag)
            self.assertTrue(any(new_op_template.file_flags(path) == {flag}
                                for path in self.template), flag)

    def test_unpaired_markers_are_refused(self):
        for text, message in (("a\n// --grad: begin\nb\n", "never closed"),
                              ("a\n# --gpu: end\n", "closes no"),
                              ("// --grad: begin\n// --gpu: end\n", "closes no")):
            with self.assertRaisesRegex(new_op_template.TemplateError, message):
                new_op_template.keep_parts(text, frozenset(), "f.cc")

    def test_a_name_as_long_as_the_templates_gives_back_the_template(self):
        # resize_rows, ResizeRows and RESIZE_ROWS are as long as op_template,
        # OpTemplate and OP_TEMPLATE: clang-format moves nothing, so renaming
        # back must give the template without its markers, byte for byte.
        files = self.generated("resize_rows", gpu=True, grad=True)
        self.assertEqual(len(files), len(self.template))
        everything = frozenset({"--grad", "--gpu"})
        for relative, text in self.template.items():
            with self.subTest(path=relative):
                path = relative.replace("op_template", "resize_rows")
                back = (files[path].replace("resize_rows", "op_template")
                        .replace("ResizeRows", "OpTemplate")
                        .replace("RESIZE_ROWS", "OP_TEMPLATE"))
                self.assertEqual(back, new_op_template.keep_parts(text, everything, relative))

    def test_every_variant_is_complete_and_reads_like_code(self):
        for gpu, grad in self.VARIANTS:
            for name, package in (("my_op", ""), ("resample_feature_rows", ""),
                                  ("scale_by", "scaling")):
                with self.subTest(name=name, gpu=gpu, grad=grad):
                    files = self.generated(name, gpu, grad, package)
                    self.check_variant(new_op_names.OpNames(
                        package or name, name, gpu=gpu, grad=grad), files)

    def check_variant(self, names: new_op_names.OpNames, files: dict):
        wanted = {relative.replace("op_template", names.name)
                  for relative in self.template
                  if new_op_template.file_flags(relative) <= new_op_template.flags(names)}
        self.assertEqual(set(files), wanted)
        # The generated C++ is a fixed point of clang-format.
        formatted = new_op_template.clang_format(self.clang_format, files)
        for path, text in files.items():
            self.assertIsNone(new_op_template.LEFTOVER.search(text), path)
            self.assertIsNone(self.MARKER_TEXT.search(text), path)
            self.assertTrue(text == "" or text.endswith("\n") and not text.endswith("\n\n"),
                            path)
            self.assertNotIn("\n\n\n\n", text, path)
            self.assertEqual([line for line in text.splitlines() if line != line.rstrip()],
                             [], path)
            if new_op_template.is_cc(path):
                self.assertNotIn("\n\n\n", text, path)
                self.assertEqual(formatted[path], text, path)
            if path.endswith(".py"):
                compile(text, path, "exec")
                self.assertEqual([line for line in text.splitlines() if len(line) > 100],
                                 [], path)
            # What was not asked for is gone, not just unused.
            if not names.grad:
                self.assertNotIn(names.grad_op, text, path)
                self.assertNotIn(f"{names.name}_grad", text, path)
            if not names.gpu:
                self.assertIsNone(re.search(r"gpu_srcs|GpuDevice|__global__|_gpu_", text),
                                  path)
        self.assertIn("TODO(you)", files[f"cc/math/{names.name}_elements.h"])
        self.assertIn("TODO(you)", files[f"python/tests/{names.name}_reference.py"])
        wrapper = files[f"python/{names.name}_ops.py"]
        self.assertEqual(f'\n@tf.RegisterGradient("{names.op}")\n' in wrapper, names.grad)
        self.assertIn(f'"//{names.folder}:{names.name}_op.so"', wrapper)
        self.assertIn(f"from tensorflow_ops.{names.package}.python import {names.name}_ops\n",
                      files["__init__.py"])
        # The BUILD file names only files that exist, and passes TensorFlow's
        # macros only arguments they accept.
        build = build_file_reader.read_build_file_text(files["BUILD"])
        self.assertIn(f"{names.package}_py", [call.name for call in build.calls])
        for call in build.calls:
            for argument, value in call.kwargs.items():
                if argument not in ("srcs", "hdrs", "gpu_srcs"):
                    continue
                for file_name in build_file_reader.files_of(value):
                    self.assertTrue(file_name in files, f"{call.name}: {file_name}")
            if call.kind in tf_macros.MACROS:
                self.assertEqual(tf_macros.check_call(call.kind, call.kwargs, call.name), [])


if __name__ == "__main__":
    unittest.main()
