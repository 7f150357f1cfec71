"""The pip build (tools/pip_build) refuses BUILD contents it would otherwise
misread silently, and its incremental build tracks every header.

Each case is a small workspace in a temporary folder: tensorflow_ops/newop with
a crafted BUILD file, and the real tools/ and third_party/tf/*.bzl. No compile
of the op libraries (tests/pip_install_test.py does the whole build).
"""

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

# The workspace as it is on disk (tagged "external"), as tf_macro_args_test.
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, WORKSPACE)

from tools import build_file_reader  # pylint: disable=g-import-not-at-top,wrong-import-position
from tools.pip_build import backend  # pylint: disable=g-import-not-at-top,wrong-import-position
from tools.pip_build import build  # pylint: disable=g-import-not-at-top,wrong-import-position
from tools.pip_build import compiler  # pylint: disable=g-import-not-at-top,wrong-import-position
from tools.pip_build import targets  # pylint: disable=g-import-not-at-top,wrong-import-position
from tools.pip_build import toolchain  # pylint: disable=g-import-not-at-top,wrong-import-position

_LOAD = 'load("//third_party/tf:tensorflow.bzl", "tf_custom_op_library")\n'
_GENCODE_SM75 = ["-gencode", "arch=compute_75,code=sm_75"]


class TargetsTest(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        open(os.path.join(self.root, "WORKSPACE"), "w").close()
        os.makedirs(os.path.join(self.root, "third_party", "tf"))
        for bzl in ("tensorflow.bzl", "library_copts.bzl"):
            shutil.copy(os.path.join(WORKSPACE, "third_party", "tf", bzl),
                        os.path.join(self.root, "third_party", "tf"))
        self.package = os.path.join(self.root, "tensorflow_ops", "newop")
        os.makedirs(os.path.join(self.package, "sub"))
        for name in ("a.cc", "b.cxx", "x.h", "sub/BUILD", "sub/c.cc"):
            open(os.path.join(self.package, name), "w").close()
        with open(os.path.join(self.root, "tensorflow_ops", "op_packages.bzl"), "w") as bzl:
            bzl.write('OP_PACKAGES = ["newop"]\n')

    def _libraries(self, build: str, load: str = _LOAD):
        with open(os.path.join(self.package, "BUILD"), "w") as build_file:
            build_file.write(load + build)
        return targets.op_libraries(self.root, "_xla.cc")

    def _cuda_toolchain(self) -> toolchain.Toolchain:
        """The pip build's toolchain for this workspace with nvcc at /cuda for
        sm_75; nothing runs."""
        return toolchain.Toolchain(
            root=self.root, cxx=["g++"],
            tensorflow={"cxx_standard": "c++17", "defines": [], "include_dir": "/tf"},
            constants=build_file_reader.read_plain_bzl(
                os.path.join(WORKSPACE, "third_party", "tf", "build_flags.bzl")),
            xla_include_dir=None, jaxlib={},
            cuda=toolchain.Cuda("nvcc", "/cuda", _GENCODE_SM75, ["sm_75"]))

    def _refused(self, build: str, pattern: str, load: str = _LOAD):
        with self.assertRaisesRegex(targets.TargetError, pattern):
            self._libraries(build, load)

    def test_a_plain_library(self):
        (library,) = self._libraries('tf_custom_op_library(name = "newop.so", '
                                     'srcs = ["a.cc", "x.h"] + ["b.cxx"])')
        self.assertEqual(library.srcs, ["tensorflow_ops/newop/a.cc",
                                        "tensorflow_ops/newop/b.cxx"])

    def test_glob_does_not_cross_into_a_subpackage(self):
        # sub/ has a BUILD file: Bazel's glob leaves sub/c.cc to that package.
        (library,) = self._libraries('tf_custom_op_library(name = "newop.so", '
                                     'srcs = glob(["**/*.cc"]))')
        self.assertEqual(library.srcs, ["tensorflow_ops/newop/a.cc"])

    def test_an_aliased_macro_is_refused_not_skipped(self):
        self._refused('op_lib(name = "newop.so", srcs = ["a.cc"])', "under another name",
                      load='load("//third_party/tf:tensorflow.bzl", '
                           'op_lib = "tf_custom_op_library")\n')

    def test_labels_in_srcs_are_refused_not_dropped(self):
        for label in (":gen.cc", ":files", "//tensorflow_ops/other:shared.cc"):
            self._refused(f'tf_custom_op_library(name = "newop.so", srcs = ["a.cc", '
                          f'"{label}"])', "labels in `srcs`")

    def test_an_unknown_source_kind_is_refused(self):
        self._refused('tf_custom_op_library(name = "newop.so", srcs = ["a.cc", "k.S"])',
                      "does not know how to build")
        # In gpu_srcs the macros compile only .cc files (.cu.cc as CUDA).
        self._refused('tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], '
                      'gpu_srcs = ["k.cpp"])', "does not know how to build")

    def test_host_sources_in_gpu_srcs_compile_as_cpp_under_nvcc(self):
        # As nvcc_objects (nvcc_compile.bzl): a .cu.cc for the GPUs, the host
        # .cc that launches its kernels as C++, with no device pass.
        for name in ("k.cu.cc", "k_functors.cc"):
            open(os.path.join(self.package, name), "w").close()
        (library,) = self._libraries(
            'tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], '
            'gpu_srcs = ["k.cu.cc", "k_functors.cc", "x.h"])')
        self.assertEqual(library.gpu_srcs, ["tensorflow_ops/newop/k.cu.cc",
                                            "tensorflow_ops/newop/k_functors.cc"])
        gencode = _GENCODE_SM75
        tools = self._cuda_toolchain()
        kernels, host = (tools.nvcc_command(library, source, "out.o")
                         for source in library.gpu_srcs)
        self.assertEqual(kernels[:5], ["nvcc", "-x", "cu"] + gencode)
        self.assertEqual(host[:3], ["nvcc", "-x", "c++"])
        self.assertNotIn("-gencode", host)
        self.assertIn("-DGOOGLE_CUDA=1", host)
        # nvcc writes the header list (-MD -MF) too, so a kept build folder
        # recompiles a GPU source only when it or a header changed.
        steps = build._compile_steps(tools, os.path.join(self.root, "out"), [library])
        self.assertEqual([s.label for s in steps if s.label.startswith("nvcc ")],
                         ["nvcc " + source for source in library.gpu_srcs])
        self.assertTrue(all(step.depfile for step in steps))

    def _edit_library_copts(self, *replacements) -> None:
        """Rewrites this workspace's library_copts.bzl, each text found once."""
        path = os.path.join(self.root, toolchain.LIBRARY_COPTS_BZL)
        with open(path) as bzl:
            text = bzl.read()
        for old, new in replacements:
            self.assertEqual(text.count(old), 1, old)
            text = text.replace(old, new)
        with open(path, "w") as bzl:
            bzl.write(text)

    def _gpu_library(self):
        open(os.path.join(self.package, "k.cu.cc"), "w").close()
        (library,) = self._libraries(
            'tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], gpu_srcs = ["k.cu.cc"])')
        return library

    def test_flags_come_from_the_macros_library_copts(self):
        # The pip build runs library_copts.bzl's host_copts() and nvcc_copts(),
        # so a flag added there reaches its command lines as it reaches Bazel's,
        # in the same place, and TensorFlow's defines with it.
        self._edit_library_copts(
            ("    return TF_DEFINES + ", '    return ["-DHOST"] + TF_DEFINES + '),
            ('    return ["-std=" + TF_CXX_STANDARD] + NVCC_COPTS',
             '    return ["-DNVCC", "-std=" + TF_CXX_STANDARD] + NVCC_COPTS'))
        library = self._gpu_library()
        tools = dataclasses.replace(self._cuda_toolchain(), tensorflow={
            "cxx_standard": "c++17", "defines": ["-DTF_ABI=1"], "include_dir": "/tf"})
        host = tools.compile_command(library, library.srcs[0], "a.o")
        nvcc = tools.nvcc_command(library, library.gpu_srcs[0], "k.o")
        start = host.index("-DHOST")
        self.assertEqual(host[start:start + 3], ["-DHOST", "-DTF_ABI=1", "-std=c++17"])
        self.assertNotIn("-DNVCC", host)
        start = nvcc.index("-DNVCC")
        self.assertEqual(nvcc[start:start + 2], ["-DNVCC", "-std=c++17"])
        self.assertIn("-DTF_ABI=1", nvcc)
        self.assertNotIn("-DHOST", nvcc)

    def test_a_name_the_pip_build_does_not_give_is_refused(self):
        # library_copts.bzl's functions run alone, with the names of
        # build_flags.bzl and build_defs.bzl: any other fails, naming them.
        self._edit_library_copts(
            ("    return TF_DEFINES + ", "    return TF_UNKNOWN + TF_DEFINES + "))
        library = self._gpu_library()
        with self.assertRaisesRegex(targets.TargetError, r"host_copts\(\) .*TF_UNKNOWN"):
            self._cuda_toolchain().compile_command(library, library.srcs[0], "a.o")

    def test_kernel_library_cuda_sources_compile_once_for_every_library(self):
        # As tf_kernel_library's <name>_gpu (tensorflow.bzl): one nvcc object,
        # without the linking libraries' copts, in each library under CUDA
        # and in none without it.
        for name in ("k.cu.cc", "k_functors.cc"):
            open(os.path.join(self.package, name), "w").close()
        load = ('load("//third_party/tf:tensorflow.bzl", "tf_custom_op_library", '
                '"tf_kernel_library")\n')
        libraries = self._libraries(
            'tf_kernel_library(name = "math", srcs = ["a.cc"], '
            'gpu_srcs = ["k.cu.cc", "x.h"])\n'
            'tf_custom_op_library(name = "newop.so", srcs = ["b.cxx"], '
            'copts = ["-DONE"], deps = [":math"])\n'
            'tf_custom_op_library(name = "other.so", srcs = ["b.cxx"], '
            'copts = ["-DTWO"], deps = [":math"])', load)
        self.assertEqual([l.kernel_gpu_srcs for l in libraries],
                         [["tensorflow_ops/newop/k.cu.cc"]] * 2)
        self.assertEqual([l.gpu_srcs for l in libraries], [[], []])
        tools = self._cuda_toolchain()
        out = os.path.join(self.root, "out")
        nvcc = [s for s in build._compile_steps(tools, out, libraries)
                if s.label.startswith("nvcc ")]
        self.assertEqual([s.label for s in nvcc], ["nvcc tensorflow_ops/newop/k.cu.cc"])
        self.assertNotIn("-Xcompiler=-DONE", nvcc[0].command)
        objects = [build._objects(tools, out, l) for l in libraries]
        self.assertIn(nvcc[0].output, objects[0])
        self.assertIn(nvcc[0].output, objects[1])
        # Those objects call CUDA's runtime: every library that links them
        # links it too, a JAX FFI library (which links with -z defs) included.
        cudart = "/cuda/lib64/libcudart_static.a"
        tools.tensorflow.update(lib_dir="/tf/lib", framework_lib="libtf.so.2", cc_lib="")
        self.assertIn(cudart, tools.link_command(libraries[0], objects[0], "newop.so"))
        ffi = dataclasses.replace(libraries[0], handlers=["H"], gpu_handlers=[])
        self.assertIn(cudart, tools.link_command(ffi, objects[0], "newop_ffi.so"))
        cpu_only = dataclasses.replace(tools, cuda=None)
        self.assertFalse(any(s.label.startswith("nvcc ")
                             for s in build._compile_steps(cpu_only, out, libraries)))
        self.assertNotIn(nvcc[0].output, build._objects(cpu_only, out, libraries[0]))
        self.assertNotIn(cudart, cpu_only.link_command(libraries[0], objects[0], "newop.so"))
        # TensorFlow's tf_kernel_library takes no host .cc in gpu_srcs.
        self._refused('tf_kernel_library(name = "math", srcs = ["a.cc"], '
                      'gpu_srcs = ["k_functors.cc"])\n'
                      'tf_custom_op_library(name = "newop.so", deps = [":math"])',
                      "does not know how to build", load)

    def test_arguments_it_does_not_read_are_refused(self):
        for argument in ('local_defines = ["FAST=1"]', 'defines = ["X"]',
                         'includes = ["sub"]', 'features = ["-x"]'):
            self._refused(f'tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], '
                          f'{argument})', "not supported by the pip build")

    def test_copts_and_linkopts_are_split_as_bazel_splits_them(self):
        (library,) = self._libraries(
            'tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], '
            'copts = ["-DA=1 -DB=2", "-DS=\'a b\'"], linkopts = ["-Wl,-z,defs -lrt"])')
        self.assertEqual(library.copts, ["-DA=1", "-DB=2", "-DS=a b"])
        self.assertEqual(library.linkopts, ["-Wl,-z,defs", "-lrt"])

    def test_make_variables_are_refused(self):
        self._refused('tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], '
                      'copts = ["-I$(GENDIR)"])', "Make")

    def test_a_dependency_with_an_include_prefix_is_refused(self):
        self._refused('cc_library(name = "h", hdrs = ["x.h"], strip_include_prefix = "sub")\n'
                      'tf_custom_op_library(name = "newop.so", srcs = ["a.cc"], deps = [":h"])',
                      "strip_include_prefix")


class IncrementalBuildTest(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="pip build ")  # a space in every path
        self.addCleanup(shutil.rmtree, self.folder)
        os.makedirs(os.path.join(self.folder, "system"))
        self.header = os.path.join(self.folder, "system", "tf_header.h")
        self._write(self.header, "inline int value() { return 1; }\n")
        self.source = os.path.join(self.folder, "src.cc")
        self._write(self.source, '#include "tf_header.h"\nint f() { return value(); }\n')

    @staticmethod
    def _write(path: str, text: str):
        with open(path, "w") as file:
            file.write(text)

    def _step(self) -> compiler.Step:
        return compiler.Step("src.cc", ["g++", "-isystem", os.path.dirname(self.header),
                                        "-c", self.source, "-o",
                                        os.path.join(self.folder, "src.o")],
                             os.path.join(self.folder, "src.o"))

    def test_an_unchanged_object_is_reused_even_in_a_folder_with_spaces(self):
        compiler.run_steps([self._step()], 1, "compile")
        self.assertTrue(compiler.up_to_date(self._step()))

    def test_a_changed_system_header_recompiles(self):
        # TensorFlow's headers are -isystem ones: upgraded in place, they change
        # while the command line stays the same.
        compiler.run_steps([self._step()], 1, "compile")
        time.sleep(1.1)
        self._write(self.header, "inline int value() { return 2; }\n")
        self.assertFalse(compiler.up_to_date(self._step()))

    def test_a_failure_names_the_exit_status(self):
        step = compiler.Step("sh", ["sh", "-c", "exit 3"], os.path.join(self.folder, "x.o"),
                             depfile=False)
        with self.assertRaisesRegex(compiler.CompileError, "exit status 3"):
            compiler.run_steps([step], 1, "compile")

    def test_a_missing_compiler_stops_the_build_at_once(self):
        steps = [compiler.Step("missing", [os.path.join(self.folder, "no_such_g++")],
                               os.path.join(self.folder, "m.o"), depfile=False)]
        steps += [compiler.Step(f"slow {i}", ["sleep", "2"],
                                os.path.join(self.folder, f"s{i}.o"), depfile=False)
                  for i in range(4)]
        start = time.monotonic()
        with self.assertRaises(FileNotFoundError):
            compiler.run_steps(steps, 1, "compile")
        self.assertLess(time.monotonic() - start, 4)


class SettingsTest(unittest.TestCase):

    def test_cuda_is_1_or_0(self):
        self.assertTrue(backend._switch({"cuda": "1"}, "cuda", "NO_SUCH_VARIABLE"))  # pylint: disable=protected-access
        self.assertFalse(backend._switch({}, "cuda", "NO_SUCH_VARIABLE"))  # pylint: disable=protected-access
        for value in ("true", "yes", "on"):
            with self.assertRaisesRegex(SystemExit, "expected 1 or 0"):
                backend._switch({"cuda": value}, "cuda", "NO_SUCH_VARIABLE")  # pylint: disable=protected-access


class JaxFfiLinkTest(unittest.TestCase):
    """A JAX FFI library links nothing of TensorFlow, so each symbol it uses
    must be in its own objects: the link (JAX_FFI_LINKOPTS) says which is
    missing, where a plain shared link would leave it to fail at dlopen."""

    def test_an_undefined_symbol_fails_the_link(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        source = os.path.join(folder, "handler.cc")
        with open(source, "w") as file:
            file.write('void NeverCompiledLauncher();\n'
                       'extern "C" void Handler() { NeverCompiledLauncher(); }\n')
        obj = os.path.join(folder, "handler.o")
        compiler.run_steps([compiler.Step("handler.cc", ["g++", "-fPIC", "-c", source,
                                                         "-o", obj], obj, depfile=False)],
                           1, "compile")
        library = targets.OpLibrary(
            path="tensorflow_ops/newop/newop_jax_ffi.so", srcs=[], kernel_srcs=[],
            xla_srcs=[], gpu_srcs=[], copts=[], linkopts=[], dep_flags=[],
            handlers=["Handler"], gpu_handlers=[])
        tools = toolchain.Toolchain(
            root=folder, cxx=["g++"], tensorflow={}, xla_include_dir=None, jaxlib={},
            cuda=None, constants=build_file_reader.read_plain_bzl(
                os.path.join(WORKSPACE, "third_party", "tf", "build_flags.bzl")))
        output = os.path.join(folder, "newop_jax_ffi.so")
        build._write_version_script(library, False, output + ".lds")
        command = tools.link_command(library, [obj], output)
        self.assertIn("-Wl,-z,defs", command)
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("NeverCompiledLauncher", result.stderr)
        # The same link without the flag succeeds: the flag is what catches it.
        result = subprocess.run([f for f in command if f != "-Wl,-z,defs"],
                                capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
