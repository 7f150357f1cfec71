"""Translates an op folder's BUILD calls into the in-tree calls TensorFlow uses.

Each rule of the workspace maps to the rule TensorFlow's own
`tensorflow/examples/custom_ops_doc` packages use for the same job:

  workspace (third_party/tf, native)   in-tree (tools/tf_macros.py says where from)
  tf_custom_op_library                 tf_custom_op_library (CUDA sources -> gpu_srcs)
  tf_gpu_kernel_library,               the same macros
  tf_kernel_library, tf_cc_test,
  tf_cc_binary
  cc_library                           cc_library via //tensorflow/core/platform:rules_cc.bzl
  py_library                           py_strict_library
  py_test                              cuda_py_test when the op has GPU kernels,
                                       tf_py_test otherwise (as multiplex_2 / _1 do)
  targets tagged workspace_only        left out (tools/vendor_into_tf.py), with
  (the JAX FFI library, jax_ops and    their labels in the deps and data of the
  their tests)                         others: a TensorFlow tree has no jaxlib

XLA kernels (`*_xla.cc`, in any rule or argument) cannot go into a
tf_custom_op_library: its check_deps forbids //tensorflow/core:framework, which
every XlaOpKernel needs. In-tree they are a cc_library with alwayslink = 1 on
the tf2xla targets, linked into TensorFlow like tensorflow/core/tpu/kernels/xla.
"""

import dataclasses
import json
import os
from typing import Any, Dict, List, Optional, Set

from tools import build_file_reader
from tools import tf_macros
from tools.vendor_python import VendorError

CUDA_SUFFIXES = (".cu.cc", ".cu.h")
XLA_SUFFIX = "_xla.cc"
# Python tests of the XLA kernels: those with a source file whose name has "xla"
# in it (my_bilinear_xla_test.py). In-tree those kernels are in the separate
# <op>_xla library, not in the op's .so, so the tests pass only once that library
# is linked into TensorFlow; they are generated tagged "manual".
XLA_TEST_MARK = "xla"
XLA_TEST_COMMENT = (
    "Needs the XLA kernels, which are not in the op's .so: tagged manual. Run it\n"
    "after adding the _xla library above to the deps of\n"
    "//tensorflow/compiler/tf2xla/kernels:xla_ops (linked into TensorFlow).")
XLA_DEPS = [
    "//tensorflow/compiler/tf2xla:xla_compiler",
    "//tensorflow/compiler/tf2xla:xla_op_registry",
    "@local_xla//xla/hlo/builder:xla_builder",
]
# Workspace targets the tree already has (TensorFlow itself) or does not need.
DROPPED_DEPS_PREFIXES = ("@local_config_tf//", "@local_config_cuda//")
# Rules copied as they are.
PASS_THROUGH = {"filegroup"}
# Calls that declare no target.
PACKAGE_CALLS = {"package", "licenses", "exports_files"}


@dataclasses.dataclass
class OutCall:
    kind: str
    kwargs: Dict[str, Any]
    comment: str = ""
    positional: List[Any] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Context:
    """What a translation needs to know about the op and its destination."""
    op_dir: str                 # tensorflow_ops/<op>
    helpers: Dict[str, str]     # //tensorflow_ops:<x> label -> local target name
    loader_label: str           # //tensorflow_ops:library_loader
    python_deps: Dict[str, List[str]]  # .py file -> in-tree deps its imports need
    has_gpu: bool = False
    # C++ file -> the files of the op folder it includes (paths in the op folder).
    includes: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
    # Labels (":name") of the targets left out (workspace-only), to drop from
    # the deps and data of the others.
    dropped: Set[str] = dataclasses.field(default_factory=set)


def _is_cuda(path: str) -> bool:
    return path.endswith(CUDA_SUFFIXES)


def _map_deps(deps: Any, ctx: Context, where: str) -> List[str]:
    if isinstance(deps, build_file_reader.Select):
        raise VendorError(f"{where}: select() in deps is not translated; list the deps")
    mapped = []
    own_prefix = "//" + ctx.op_dir + ":"
    for dep in deps or []:
        if dep.startswith(":"):
            mapped.append(dep)
        elif dep.startswith(own_prefix):
            mapped.append(":" + dep[len(own_prefix):])
        elif dep == ctx.loader_label:
            continue  # replaced by resource_loader, part of //tensorflow:tensorflow_py
        elif dep in ctx.helpers:
            mapped.append(":" + ctx.helpers[dep])
        elif dep.startswith(DROPPED_DEPS_PREFIXES):
            continue
        else:
            raise VendorError(f"{where}: dependency {dep} has no in-tree equivalent; "
                              "vendor it first or add a mapping to tools/vendor_build.py")
    return mapped


def _python_deps(srcs: List[str], ctx: Context) -> List[str]:
    deps = set()
    for src in srcs:
        deps.update(ctx.python_deps.get(src, []))
    return sorted(deps)


def _without_labels(kwargs: Dict[str, Any], dropped: set) -> Dict[str, Any]:
    """`kwargs` without the labels of dropped targets in its deps and data."""
    kept = dict(kwargs)
    for argument in ("deps", "data"):
        value = kwargs.get(argument)
        if dropped and isinstance(value, (list, tuple)):
            kept[argument] = [label for label in value if label not in dropped]
    return kept


def _keep(kwargs: Dict[str, Any], names) -> Dict[str, Any]:
    return {k: v for k, v in kwargs.items() if k in names}


def _split_sources(call: build_file_reader.Call, ctx: Context):
    """All file arguments of a call, split into (cpu, cuda, xla) source lists.

    The host `.cc` files of gpu_srcs (GPU OpKernels that launch kernels
    compiled elsewhere), and the plain headers there, count as CPU sources:
    in-tree they go to srcs, where TensorFlow keeps its GPU registrations, as
    its CUDA build gives srcs GOOGLE_CUDA (tf_copts) while its cuda_library
    compiles every file of gpu_srcs as CUDA, TensorFlow's headers and all."""
    cpu, cuda, xla = [], [], []
    for argument, value in call.kwargs.items():
        if argument in ("name", "deps", "copts", "linkopts", "data", "visibility",
                        "tags", "testonly"):
            continue
        files = build_file_reader.files_of(value)
        if not files:
            if value and argument not in tf_macros.MACROS["tf_custom_op_library"].names:
                raise VendorError(f"{ctx.op_dir}/BUILD:{call.line}: argument "
                                  f"`{argument}` of {call.kind} has no in-tree "
                                  "equivalent")
            continue
        for path in files:
            if path.endswith(XLA_SUFFIX):
                xla.append(path)
            elif _is_cuda(path) or (argument == "gpu_srcs" and
                                    not path.endswith((".cc", ".h"))):
                cuda.append(path)
            else:
                cpu.append(path)
    return cpu, cuda, xla


def _included_headers(start: List[str], headers: set, ctx: Context) -> set:
    """The headers among `headers` that files `start` include, directly or not."""
    found, pending = set(), list(start)
    while pending:
        for include in ctx.includes.get(pending.pop(), []):
            if include in headers and include not in found:
                found.add(include)
                pending.append(include)
    return found


def _xla_support(xla: List[str], cpu: List[str], ctx: Context) -> List[str]:
    """The op library's sources that its XLA files need, found by their includes.

    A header of the op library that an XLA file includes goes with the XLA
    kernels, and so does the .cc of the same stem, which defines what the header
    declares (my_bilinear_validation.h and my_bilinear_validation.cc), with the headers
    that .cc includes. Headers of other targets come with the deps.
    """
    headers = {s for s in cpu if s.endswith(".h")}
    needed = _included_headers(xla, headers, ctx)
    stems = {h[:-len(".h")] + ".cc" for h in needed}
    definitions = sorted(s for s in cpu if s in stems)
    needed |= _included_headers(definitions, headers, ctx)
    return sorted(needed | set(definitions))


def _xla_library(name: str, srcs: List[str], deps: List[str]) -> OutCall:
    return OutCall(
        "cc_library",
        {"name": name, "srcs": sorted(set(srcs)), "deps": sorted(set(deps + XLA_DEPS)),
         "alwayslink": 1},
        "XLA lowering (XlaOpKernel) of the op. Not part of the op library: link it into\n"
        "TensorFlow with the other tf2xla kernels, e.g. add it to the deps of\n"
        "//tensorflow/compiler/tf2xla/kernels:xla_ops or of the binary that runs the op.")


def translate(calls: List[build_file_reader.Call], ctx: Context) -> List[OutCall]:
    """The in-tree calls for the op folder's calls, in the same order."""
    # CUDA sources in the op library, or in a tf_kernel_library's gpu_srcs
    # (MyBilinear's launchers, which its op library and JAX library share).
    ctx.has_gpu = any(
        _split_sources(c, ctx)[1] if c.kind == "tf_custom_op_library" else
        any(_is_cuda(p) for p in build_file_reader.files_of(c.kwargs.get("gpu_srcs", [])))
        for c in calls if c.kind in ("tf_custom_op_library", "tf_kernel_library"))
    out: List[OutCall] = []
    for call in calls:
        where = f"{ctx.op_dir}/BUILD:{call.line} ({call.kind} {call.name})"
        kwargs = _without_labels(call.kwargs, ctx.dropped)
        deps = _map_deps(kwargs.get("deps"), ctx, where)
        if call.kind in PACKAGE_CALLS:
            out.append(OutCall(call.kind, kwargs, positional=call.positional))
        elif call.kind == "tf_custom_op_library":
            cpu, cuda, xla = _split_sources(call, ctx)
            new = {"name": call.name, "srcs": sorted(set(cpu))}
            if cuda:
                # Headers shared with the CPU kernel go to both, as multiplex_2 does.
                shared = [s for s in cpu if s.endswith(".h")]
                new["gpu_srcs"] = sorted(set(cuda + shared))
            new.update(_keep(kwargs, {"copts", "linkopts", "visibility", "tags",
                                      "testonly"}))
            new["deps"] = deps
            out.append(OutCall("tf_custom_op_library", new))
            if xla:
                out.append(_xla_library(call.name.split(".")[0] + "_xla",
                                        xla + _xla_support(xla, cpu, ctx), deps))
        elif call.kind in ("tf_gpu_kernel_library", "tf_kernel_library", "tf_cc_test",
                           "tf_cc_binary", "cc_library"):
            new = dict(kwargs, deps=deps) if "deps" in kwargs or call.kind == "tf_cc_test" \
                else dict(kwargs)
            out.append(OutCall(call.kind, new))
        elif call.kind == "py_library":
            srcs = build_file_reader.files_of(kwargs.get("srcs", []))
            new = dict(kwargs, deps=sorted(set(deps + _python_deps(srcs, ctx))))
            out.append(OutCall("py_strict_library", new))
        elif call.kind == "py_test":
            srcs = build_file_reader.files_of(kwargs.get("srcs", []))
            new = dict(kwargs, deps=sorted(set(deps + _python_deps(srcs, ctx))))
            if "visibility" in new:  # tf_py_test sets it; add to it instead
                new["additional_visibility"] = new.pop("visibility")
            # The macros look for <name>.py beside the BUILD file: name the
            # main where it is elsewhere (Bazel's default finds it by file name).
            main = build_file_reader.default_py_main(call.name, srcs)
            if main is None and len(srcs) == 1:
                main = srcs[0]
            if "main" not in new and main and "/" in main:
                new["main"] = main
            comment = ""
            if any(XLA_TEST_MARK in os.path.basename(src) for src in srcs):
                new["tags"] = sorted(set(list(new.get("tags", [])) + ["manual"]))
                comment = XLA_TEST_COMMENT
            out.append(OutCall("cuda_py_test" if ctx.has_gpu else "tf_py_test", new,
                               comment))
        elif call.kind in PASS_THROUGH:
            out.append(OutCall(call.kind, kwargs))
        else:
            cpu, cuda, xla = _split_sources(call, ctx)
            if xla and not cpu and not cuda:
                out.append(_xla_library(call.name, xla, deps))
            else:
                raise VendorError(f"{where}: rule {call.kind} has no in-tree "
                                  "equivalent; add one to tools/vendor_build.py")
    return out


def check(out: List[OutCall], where: str) -> List[str]:
    """Problems with the translated calls against TensorFlow's signatures."""
    problems = []
    for call in out:
        if call.kind in tf_macros.MACROS:
            problems += tf_macros.check_call(call.kind, call.kwargs,
                                             f"{where} {call.kwargs.get('name', '')}")
    return problems


def _format(value: Any, indent: str) -> str:
    if isinstance(value, build_file_reader.Select):
        return "select(%s)" % _format(value.branches, indent)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, str) and v.startswith((":", "//", "@")) for v in value):
            value = sorted(value, key=_label_order)
        if len(value) <= 1:
            return "[%s]" % "".join(_format(v, indent) for v in value)
        inner = indent + "    "
        return "[\n%s%s]" % ("".join(f"{inner}{_format(v, inner)},\n" for v in value),
                             indent)
    if isinstance(value, dict):
        inner = indent + "    "
        return "{\n%s%s}" % ("".join(f"{inner}{_format(k, inner)}: {_format(v, inner)},\n"
                                      for k, v in value.items()), indent)
    return repr(value)


# Buildifier's order of well-known arguments; the others follow alphabetically.
_ARGUMENT_ORDER = ["name", "size", "timeout", "testonly", "srcs", "hdrs", "gpu_srcs",
                   "main", "data", "copts", "extra_copts", "linkopts", "tags",
                   "visibility", "deps", "alwayslink"]


def _label_order(label: str):
    """Buildifier sorts local labels first, then the main repository, then external."""
    return ({":": 0, "/": 1}.get(label[:1], 2), label)


def _format_call(call: OutCall) -> str:
    comment = "".join(f"# {line}\n" if line else "#\n"
                      for line in call.comment.splitlines())
    if call.positional:
        args = ", ".join(_format(v, "") for v in call.positional)
        return f"{comment}{call.kind}({args})\n"
    ordered = sorted(call.kwargs.items(), key=lambda kv: (
        _ARGUMENT_ORDER.index(kv[0]) if kv[0] in _ARGUMENT_ORDER else len(_ARGUMENT_ORDER),
        kv[0]))
    body = "".join(f"    {k} = {_format(v, '    ')},\n" for k, v in ordered)
    return f"{comment}{call.kind}(\n{body})\n"


def render(out: List[OutCall], header: str) -> str:
    """The BUILD file text: a header, load() lines, then the calls."""
    loads: Dict[str, set] = {}
    for call in out:
        macro: Optional[tf_macros.Macro] = tf_macros.MACROS.get(call.kind)
        if macro is not None:
            loads.setdefault(macro.load_from, set()).add(call.kind)
    load_lines = "".join(
        f"load({json.dumps(label)}, {', '.join(json.dumps(s) for s in sorted(symbols))})\n"
        for label, symbols in sorted(loads.items()))
    return header + "\n" + load_lines + "\n" + "\n".join(_format_call(c) for c in out)
