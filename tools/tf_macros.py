"""TensorFlow's in-tree build macros: where they live and what they accept.

The one record of TensorFlow's signatures in this workspace. Read from
TensorFlow's own sources (tensorflow/tensorflow.bzl, tensorflow/strict.default.bzl,
tensorflow/tensorflow.default.bzl and tensorflow/examples/custom_ops_doc/*/BUILD
on the master branch that builds TensorFlow 2.21). Three things use it:
  - tests/tf_macro_args_test.py checks every call in this workspace's BUILD files
    (and the macros in third_party/tf/tensorflow.bzl) against it;
  - tools/vendor_into_tf.py writes BUILD files whose calls it checks against it;
  - tests/stand_in_tf_tree.py generates a stand-in tensorflow.bzl with exactly
    these parameter names and defaults.
"""

import dataclasses
from typing import Dict, FrozenSet, Optional, Tuple

REQUIRED = object()  # marks a parameter without a default


@dataclasses.dataclass(frozen=True)
class Macro:
    """One TensorFlow macro: the .bzl that defines it and its parameters."""
    load_from: str
    # (name, default as Starlark source, or REQUIRED), in TensorFlow's order.
    params: Tuple[Tuple[str, object], ...]
    # Attributes that **kwargs forwards to the rule underneath (None: no **kwargs).
    kwargs_to: Optional[FrozenSet[str]]

    @property
    def names(self) -> FrozenSet[str]:
        return frozenset(name for name, _ in self.params)

    @property
    def required(self) -> FrozenSet[str]:
        return frozenset(name for name, default in self.params if default is REQUIRED)

    def accepts(self, argument: str) -> bool:
        return argument in self.names or (
            self.kwargs_to is not None and argument in self.kwargs_to)


# Attributes every rule has (Bazel's "common attributes").
_COMMON = frozenset({
    "name", "visibility", "tags", "testonly", "features", "compatible_with",
    "target_compatible_with", "exec_compatible_with", "deprecation", "licenses",
    "restricted_to", "toolchains", "exec_properties", "applicable_licenses"})
_TEST_COMMON = _COMMON | {"size", "timeout", "flaky", "shard_count", "local", "args", "env"}
_CC_BINARY = _COMMON | {"data", "linkstatic", "defines", "local_defines", "includes",
                        "malloc", "stamp", "additional_linker_inputs", "win_def_file"}
_CC_LIBRARY = _COMMON | {"data", "linkstatic", "defines", "local_defines", "includes",
                         "include_prefix", "strip_include_prefix", "textual_hdrs",
                         "linkopts", "implementation_deps", "name"}
_CC_TEST = _TEST_COMMON | {"linkstatic", "defines", "local_defines", "includes", "malloc"}
_PY_TEST = _TEST_COMMON | {"deps", "srcs_version", "python_version", "imports",
                           "legacy_create_init", "stamp", "env_inherit"}
_PY_LIBRARY = _COMMON | {"srcs", "deps", "data", "imports", "srcs_version"}
# What TensorFlow's macros set themselves and so must not come through **kwargs
# (Starlark rejects a keyword given twice): tf_custom_op_library passes data and
# features to tf_cc_shared_object; tf_py_test passes visibility to py_test.
_SET_BY_TF_CUSTOM_OP_LIBRARY = frozenset({"data", "features"})
_SET_BY_TF_PY_TEST = frozenset({"visibility"})

_TENSORFLOW_BZL = "//tensorflow:tensorflow.bzl"
_DEFAULT_BZL = "//tensorflow:tensorflow.default.bzl"

_PY_TEST_PARAMS = (
    ("name", REQUIRED), ("srcs", REQUIRED), ("size", '"medium"'), ("data", "[]"),
    ("main", "None"), ("args", "[]"))

MACROS: Dict[str, Macro] = {
    "tf_custom_op_library": Macro(
        _TENSORFLOW_BZL,
        (("name", REQUIRED), ("srcs", "[]"), ("gpu_srcs", "[]"), ("deps", "[]"),
         ("gpu_deps", "None"), ("linkopts", "[]"), ("copts", "[]")),
        _CC_BINARY - _SET_BY_TF_CUSTOM_OP_LIBRARY),
    "tf_gpu_kernel_library": Macro(
        _TENSORFLOW_BZL,
        (("srcs", REQUIRED), ("copts", "[]"), ("cuda_copts", "[]"), ("deps", "[]"),
         ("hdrs", "[]")),
        _CC_LIBRARY),
    # A cc_library of kernel code compiled with tf_copts(); kwargs go on to
    # tf_gpu_library and so to cc_library.
    "tf_kernel_library": Macro(
        _TENSORFLOW_BZL,
        (("name", REQUIRED), ("prefix", "None"), ("srcs", "None"), ("gpu_srcs", "None"),
         ("hdrs", "None"), ("deps", "None"), ("gpu_deps", "None"), ("alwayslink", "1"),
         ("copts", "None"), ("gpu_copts", "None"), ("is_external", "False"),
         ("compatible_with", "None")),
        _CC_LIBRARY),
    "tf_cc_test": Macro(
        _TENSORFLOW_BZL,
        (("name", REQUIRED), ("srcs", REQUIRED), ("deps", REQUIRED), ("data", "[]"),
         ("extra_copts", "[]"), ("suffix", '""'), ("linkopts", "lrt_if_needed()"),
         ("kernels", "[]")),
        _CC_TEST),
    # tf_cc_binary pops `tags` from **kwargs and passes the rest to cc_binary
    # beside the arguments it sets itself (all named parameters here).
    "tf_cc_binary": Macro(
        _TENSORFLOW_BZL,
        (("name", REQUIRED), ("srcs", "[]"), ("deps", "[]"), ("data", "[]"),
         ("linkopts", "lrt_if_needed()"), ("copts", "tf_copts()"), ("kernels", "[]"),
         ("per_os_targets", "False"), ("visibility", "None"), ("default_copts", "[]")),
        _CC_BINARY),
    "tf_py_test": Macro(
        _DEFAULT_BZL,
        _PY_TEST_PARAMS + (
            ("tags", "[]"), ("shard_count", "1"), ("additional_visibility", "[]"),
            ("kernels", "[]"), ("flaky", "0"), ("xla_enable_strict_auto_jit", "False"),
            ("xla_enabled", "False"), ("grpc_enabled", "False"),
            ("tfrt_enabled", "False"), ("tfrt_enabled_internal", "False")),
        _PY_TEST - _SET_BY_TF_PY_TEST),
    # cuda_py_test(*args, **kwargs) forwards everything to gpu_py_test.
    "cuda_py_test": Macro(
        _DEFAULT_BZL,
        _PY_TEST_PARAMS + (
            ("shard_count", "1"), ("kernels", "[]"), ("tags", "[]"), ("flaky", "0"),
            ("xla_enable_strict_auto_jit", "False"), ("xla_enabled", "False"),
            ("grpc_enabled", "False"), ("xla_tags", "[]")),
        _PY_TEST - _SET_BY_TF_PY_TEST),
    "py_strict_library": Macro(
        "//tensorflow:strict.default.bzl", (("name", REQUIRED),), _PY_LIBRARY),
    # In-tree BUILD files load cc_library through this wrapper of rules_cc's.
    "cc_library": Macro(
        "//tensorflow/core/platform:rules_cc.bzl", (("name", REQUIRED),),
        _CC_LIBRARY | {"srcs", "hdrs", "deps", "copts", "alwayslink"}),
}


def check_call(kind: str, arguments, where: str):
    """Problems (as sentences) with one call of a TensorFlow macro; [] if none."""
    macro = MACROS[kind]
    problems = [f"{where}: {kind} has no argument `{argument}`"
                for argument in sorted(arguments) if not macro.accepts(argument)]
    problems += [f"{where}: {kind} requires `{argument}`"
                 for argument in sorted(macro.required - set(arguments))]
    return problems
