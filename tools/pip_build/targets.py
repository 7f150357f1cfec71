"""What the pip build compiles: the op libraries of the BUILD files, without Bazel.

Everything comes from the BUILD files, read by tools/build_file_reader.py: the
op packages from tensorflow_ops/op_packages.bzl (the wheel's list), each
package's tf_custom_op_library calls (srcs, gpu_srcs, copts, linkopts) and the
cc_library targets they depend on (their includes and defines, transitively).
There is no second list of sources to keep in step with them.
"""

import ast
import dataclasses
import os
import shlex
from typing import Any, Dict, Iterator, List, Optional, Tuple

from tools import build_file_reader

# Dependencies the TensorFlow and CUDA flags stand for (tf_custom_op_library
# adds them itself; a BUILD file may name them too).
_PROVIDED_BY_FLAGS = ("@local_config_tf//", "@local_config_cuda//", "@local_config_jax//")
_OP_PACKAGES_BZL = os.path.join("tensorflow_ops", "op_packages.bzl")
# The macros' .bzl: a call of a symbol loaded from it under another name (an
# alias) is still that macro, and would otherwise be skipped unseen.
_MACROS_LABEL = "//third_party/tf:tensorflow.bzl"
_MACROS_BZL = os.path.join("third_party", "tf", "tensorflow.bzl")
_JAX_MACROS_LABEL = "//third_party/jax:jax.bzl"

# The arguments of tf_custom_op_library this build reads; any other (cc_binary's
# defines, local_defines, includes, features, ...) would change Bazel's library
# without changing this one, so it is refused rather than ignored.
_OP_LIBRARY_ARGUMENTS = frozenset(["name", "srcs", "gpu_srcs", "deps", "copts",
                                   "linkopts", "visibility", "tags", "testonly"])
# The same for jax_ffi_library (third_party/jax/jax.bzl).
_FFI_LIBRARY_ARGUMENTS = _OP_LIBRARY_ARGUMENTS | {"handlers", "gpu_handlers"}
# The arguments of a tf_kernel_library dependency this build reads or that do
# not change its compiles (its sources compile with the macros' flags alone).
_KERNEL_LIBRARY_ARGUMENTS = frozenset(["name", "srcs", "gpu_srcs", "hdrs", "deps",
                                       "visibility", "tags", "testonly", "alwayslink"])
# cc_library arguments of a header-only dependency this build reads or that do
# not change its compiles.
_DEP_ARGUMENTS = frozenset(["name", "hdrs", "srcs", "textual_hdrs", "deps", "includes",
                            "defines", "visibility", "tags", "testonly", "copts",
                            "local_defines", "linkopts", "alwayslink"])
# Source kinds of cc rules: compiled by the host compiler, or headers.
_COMPILED = (".cc", ".cpp", ".cxx", ".c++", ".C", ".c")
_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", ".H")


class TargetError(Exception):
    """A BUILD file asks for something the pip build does not do."""


@dataclasses.dataclass
class OpLibrary:
    """One tf_custom_op_library, with paths relative to the workspace root."""
    path: str                 # tensorflow_ops/<op>/<name>.so, its place in the wheel
    srcs: List[str]           # C++ sources compiled with the macros' flags
    kernel_srcs: List[str]    # sources of its tf_kernel_library deps: the macros'
                              # flags without the library's copts, one object each
                              # for every library that links them
    xla_srcs: List[str]       # *_xla.cc: compiled against tf2xla's headers too
    gpu_srcs: List[str]       # *.cu.cc, and the host *.cc that launch them: compiled
                              # by nvcc (the .cc as C++) when CUDA is asked for
    copts: List[str]          # the call's copts, after the shared flags
    linkopts: List[str]
    dep_flags: List[str]      # -isystem and -D of the cc_library deps
    # A JAX FFI library (jax_ffi_library): the handler symbols it exports, on
    # the CPU and with CUDA; None for a TensorFlow op library.
    handlers: Optional[List[str]] = None
    gpu_handlers: Optional[List[str]] = None
    # The *.cu.cc of its tf_kernel_library deps' gpu_srcs: compiled by nvcc
    # when CUDA is asked for, with the macros' flags alone, one object for
    # every library that links them.
    kernel_gpu_srcs: List[str] = dataclasses.field(default_factory=list)

    @property
    def is_jax_ffi(self) -> bool:
        """Whether it is a JAX FFI library, which links nothing of TensorFlow."""
        return self.handlers is not None

    @property
    def links_xla(self) -> bool:
        """Whether it links libtensorflow_cc (only libraries with XLA kernels do)."""
        return bool(self.xla_srcs)


def op_packages(root: str) -> List[str]:
    """OP_PACKAGES of tensorflow_ops/op_packages.bzl: the op folders the wheel ships."""
    constants = build_file_reader.read_plain_bzl(os.path.join(root, _OP_PACKAGES_BZL))
    return list(constants["OP_PACKAGES"])


def _strings(value: Any, where: str, argument: str) -> List[str]:
    if isinstance(value, build_file_reader.Select):
        raise TargetError(f"{where}: select() in `{argument}` is not supported by the "
                          "pip build; list the values")
    return list(value or [])


def _files(value: Any, where: str, argument: str) -> List[str]:
    """The file names of a srcs-like argument. A label (a generated file, a
    filegroup, another package's file) would be dropped by files_of, leaving
    Bazel's library with code this one lacks, so it is refused."""
    values = _strings(value, where, argument)
    labels = [v for v in values if isinstance(v, str) and v.startswith((":", "//", "@"))]
    if labels:
        raise TargetError(f"{where}: labels in `{argument}` ({', '.join(labels)}) are "
                          "not supported by the pip build; list the package's own files")
    return build_file_reader.files_of(values)


def _flags(value: Any, where: str, argument: str) -> List[str]:
    """copts or linkopts as Bazel passes them: each string split as the Bourne
    shell splits words. "Make" variables and $(location) need Bazel."""
    flags: List[str] = []
    for item in _strings(value, where, argument):
        if "$(" in item or "$$" in item:
            raise TargetError(f"{where}: `{argument}` entry {item!r} uses a \"Make\" "
                              "variable or $(location), which the pip build cannot expand")
        flags += shlex.split(item)
    return flags


def _label(label: str, package: str) -> Tuple[str, str]:
    """(package, target name) of a label of this workspace."""
    if label.startswith(":"):
        return package, label[1:]
    if label.startswith("//"):
        path, _, name = label[2:].partition(":")
        return path, name or os.path.basename(path)
    raise TargetError(f"{label}: only labels of this workspace are supported")


@dataclasses.dataclass
class _Reached:
    """A target found by _Workspace.reachable."""
    label: str                   # as the requiring target spells it
    required_by: str             # where it is named (file:line and target)
    package: str
    call: build_file_reader.Call
    where: str                   # its own file:line and target


class _Workspace:
    """The BUILD files of a workspace, each read once."""

    def __init__(self, root: str):
        self.root = root
        self._files: Dict[str, build_file_reader.BuildFile] = {}

    def calls(self, package: str) -> List[build_file_reader.Call]:
        if package not in self._files:
            path = os.path.join(self.root, package, "BUILD")
            if not os.path.isfile(path):
                raise TargetError(f"{package}/BUILD does not exist")
            self._files[package] = build_file_reader.read_build_file(path)
        return self._files[package].calls

    def call(self, package: str, name: str) -> build_file_reader.Call:
        for call in self.calls(package):
            if call.name == name:
                return call
        raise TargetError(f"//{package}:{name} is not declared in {package}/BUILD")

    def reachable(self, labels: List[str], package: str, where: str) -> Iterator[_Reached]:
        """Each target of `labels` (relative to `package`, named in `where`)
        and, transitively, of their deps, once each, in Bazel's order (a target
        before its deps), leaving out those the TensorFlow and CUDA flags stand
        for."""
        seen = set()
        pending = [(label, package, where) for label in labels]
        while pending:
            label, from_package, from_where = pending.pop(0)
            if label.startswith(_PROVIDED_BY_FLAGS):
                continue
            target = _label(label, from_package)
            if target in seen:
                continue
            seen.add(target)
            call = self.call(*target)
            target_where = f"{target[0]}/BUILD:{call.line} ({call.kind} {target[1]})"
            yield _Reached(label, from_where, target[0], call, target_where)
            pending += [(d, target[0], target_where)
                        for d in _strings(call.kwargs.get("deps"), target_where, "deps")]

    def dependencies(self, deps: List[str], package: str,
                     where: str) -> Tuple[List[str], List[str], List[str]]:
        """The -isystem and -D flags of the cc_library deps, transitively and in
        Bazel's order (a target's before its deps'), and the compiled sources of
        the tf_kernel_library deps: C++, and CUDA (gpu_srcs)."""
        flags: List[str] = []
        kernel_srcs: List[str] = []
        kernel_gpu_srcs: List[str] = []
        for dep in self.reachable(deps, package, where):
            call, dep_where, dep_package = dep.call, dep.where, dep.package
            if call.kind == "tf_kernel_library":
                cpu, gpu = self._kernel_sources(dep)
                kernel_srcs += cpu
                kernel_gpu_srcs += gpu
                continue
            if call.kind != "cc_library":
                raise TargetError(f"{dep.required_by}: dependency {dep.label} is a "
                                  f"{call.kind}; the pip build takes cc_library and "
                                  "tf_kernel_library deps only")
            unknown = sorted(set(call.kwargs) - _DEP_ARGUMENTS)
            if unknown:
                raise TargetError(f"{dep_where}: {', '.join(unknown)} of a cc_library "
                                  "dependency is not supported by the pip build")
            # A compiled cc_library would need the flags Bazel gives a plain
            # cc_library, not the macros'; compiled code goes in a tf_kernel_library.
            compiled = [s for s in build_file_reader.files_of(call.kwargs.get("srcs", []))
                        if not s.endswith(_HEADERS)]
            if compiled or call.kwargs.get("linkopts"):
                raise TargetError(f"{dep_where}: a cc_library with sources or linkopts "
                                  "is not supported by the pip build (header-only deps "
                                  "are; compiled ones go in a tf_kernel_library)")
            for include in _strings(call.kwargs.get("includes"), dep_where, "includes"):
                flags += ["-isystem", os.path.normpath(os.path.join(self.root, dep_package,
                                                                     include))]
            flags += ["-D" + d for d in _strings(call.kwargs.get("defines"), dep_where,
                                                 "defines")]
        return flags, kernel_srcs, kernel_gpu_srcs

    @staticmethod
    def _kernel_sources(dep: _Reached) -> Tuple[List[str], List[str]]:
        """The compiled sources of a tf_kernel_library, which compile with the
        macros' flags alone (tensorflow.bzl), whatever links them: C++ sources,
        and the *.cu.cc of gpu_srcs."""
        unknown = sorted(set(dep.call.kwargs) - _KERNEL_LIBRARY_ARGUMENTS)
        if unknown or dep.call.positional:
            raise TargetError(f"{dep.where}: {', '.join(unknown) or 'positional arguments'} "
                              "of a tf_kernel_library is not supported by the pip build")
        if dep.call.kwargs.get("alwayslink", 1) != 1:
            raise TargetError(f"{dep.where}: a tf_kernel_library without alwayslink is "
                              "not supported by the pip build (it links every object)")
        sources = [os.path.join(dep.package, f) for f in
                   _files(dep.call.kwargs.get("srcs"), dep.where, "srcs")]
        gpu = [os.path.join(dep.package, f) for f in
               _files(dep.call.kwargs.get("gpu_srcs"), dep.where, "gpu_srcs")]
        # As in tensorflow.bzl (and TensorFlow): only *.cu.cc and headers.
        odd = ([s for s in sources if not s.endswith(_COMPILED + _HEADERS)] +
               [s for s in gpu if not s.endswith((".cu.cc",) + _HEADERS)])
        if odd:
            raise TargetError(f"{dep.where}: the pip build does not know how to build "
                              f"{', '.join(odd)}")
        return ([s for s in sources if s.endswith(_COMPILED)],
                [s for s in gpu if s.endswith(".cu.cc")])


def _op_library(workspace: _Workspace, package: str, call: build_file_reader.Call,
                xla_suffix: str) -> OpLibrary:
    where = f"{package}/BUILD:{call.line} ({call.kind} {call.name})"
    ffi = call.kind == "jax_ffi_library"
    unknown = sorted(set(call.kwargs) - (_FFI_LIBRARY_ARGUMENTS if ffi else
                                         _OP_LIBRARY_ARGUMENTS))
    if unknown or call.positional:
        raise TargetError(f"{where}: {', '.join(unknown) or 'positional arguments'} "
                          "not supported by the pip build")
    sources = [os.path.join(package, f) for f in
               _files(call.kwargs.get("srcs"), where, "srcs")]
    gpu = [os.path.join(package, f) for f in
           _files(call.kwargs.get("gpu_srcs"), where, "gpu_srcs")]
    odd = ([s for s in sources if not s.endswith(_COMPILED + _HEADERS)] +
           [s for s in gpu if not s.endswith((".cc",) + _HEADERS)])
    if odd:
        raise TargetError(f"{where}: the pip build does not know how to build "
                          f"{', '.join(odd)}")
    compiled = [s for s in sources if s.endswith(_COMPILED)]
    dep_flags, kernel_srcs, kernel_gpu_srcs = workspace.dependencies(
        _strings(call.kwargs.get("deps"), where, "deps"), package, where)
    return OpLibrary(
        path=os.path.join(package, call.name),
        srcs=[s for s in compiled if not s.endswith(xla_suffix)],
        xla_srcs=[s for s in compiled if s.endswith(xla_suffix)],
        gpu_srcs=[s for s in gpu if s.endswith(".cc")],
        copts=_flags(call.kwargs.get("copts"), where, "copts"),
        linkopts=_flags(call.kwargs.get("linkopts"), where, "linkopts"),
        dep_flags=dep_flags,
        kernel_srcs=kernel_srcs,
        kernel_gpu_srcs=kernel_gpu_srcs,
        handlers=_strings(call.kwargs.get("handlers"), where, "handlers") if ffi else None,
        gpu_handlers=(_strings(call.kwargs.get("gpu_handlers"), where, "gpu_handlers")
                      if ffi else None),
    )


def _macro_names(root: str) -> frozenset:
    """The functions tensorflow.bzl defines (its macros' own names)."""
    path = os.path.join(root, _MACROS_BZL)
    if not os.path.isfile(path):
        return frozenset()
    with open(path) as bzl:
        tree = ast.parse(bzl.read(), filename=path)
    return frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef))


def op_libraries(root: str, xla_suffix: str) -> List[OpLibrary]:
    """Every tf_custom_op_library and jax_ffi_library of the op packages the
    wheel ships."""
    workspace = _Workspace(root)
    macros = _macro_names(root)
    libraries = []
    for name in op_packages(root):
        package = f"tensorflow_ops/{name}"
        for call in workspace.calls(package):
            if call.loaded_from == _MACROS_LABEL and macros and call.kind not in macros:
                raise TargetError(f"{package}/BUILD:{call.line}: {call.kind} is loaded "
                                  f"from {_MACROS_LABEL} under another name; load the "
                                  "macro under its own name for the pip build")
            if call.kind == "tf_custom_op_library" or (
                    call.kind == "jax_ffi_library" and call.loaded_from == _JAX_MACROS_LABEL):
                libraries.append(_op_library(workspace, package, call, xla_suffix))
    return libraries


def python_files(root: str, label: str = "//tensorflow_ops:all_ops") -> List[str]:
    """The .py files of the py_library `label` and its py_library deps: what
    Bazel's runfiles of //tensorflow_ops:all_ops (the wheel's contents) hold.
    Test-only libraries are not among its deps, nor are op folders outside
    OP_PACKAGES (op_template), nor tensorflow_ops/cookbook."""
    files = set()
    for target in _Workspace(root).reachable([label], "", label):
        if target.call.kind != "py_library":
            raise TargetError(f"{target.where}: the wheel's Python deps must be "
                              "py_library targets")
        files.update(os.path.join(target.package, f) for f in build_file_reader.files_of(
            _strings(target.call.kwargs.get("srcs"), target.where, "srcs"))
                     if f.endswith(".py"))
    return sorted(files)
