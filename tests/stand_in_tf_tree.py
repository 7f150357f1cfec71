"""Builds a minimal stand-in of a TensorFlow source tree, for vendoring tests.

The tree has what a vendored op package touches and nothing more:
  tensorflow/tensorflow.bzl          the macros of tools/tf_macros.py, with
                                     TensorFlow's exact parameter names and defaults,
                                     compiling against the pip TensorFlow's headers
  tensorflow/tensorflow.default.bzl, tensorflow/strict.default.bzl,
  tensorflow/core/platform/rules_cc.bzl   the files in-tree BUILD files load them from
  //tensorflow:tensorflow_py         the pip TensorFlow (see _TENSORFLOW_INIT)
  //third_party/py/numpy, //third_party/py/keras, @absl_py
                                     empty targets: the interpreter already has them
It builds with this machine's Bazel 4 offline, like the workspace itself.
"""

import json
import os
import shutil
import subprocess
import sys
from typing import Dict

from tools import tf_macros

# The workspace on disk (find_tensorflow.py and the stand-in repositories).
WORKSPACE_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

# Bodies of the stand-in macros. Their signatures come from tools/tf_macros.py.
# `TF_COPTS` and the header/framework targets play tf_copts() and
# tf_custom_op_library_additional_deps() for a CPU-only build.
_BODIES = {
    "tf_custom_op_library": '''
    if not gpu_deps:
        gpu_deps = []
    deps = deps + ["//tensorflow/core:framework_headers_lib"]
    if gpu_srcs:
        # A CPU-only build compiles GPU sources with the host compiler, as
        # TensorFlow's cuda_library does without --config=cuda.
        basename = name.split(".")[0]
        native.cc_library(
            name = basename + "_gpu",
            srcs = gpu_srcs,
            copts = copts + TF_COPTS,
            deps = deps + gpu_deps,
            alwayslink = 1,
            **kwargs
        )
        deps = deps + [":" + basename + "_gpu"]
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + ["@pip_tensorflow//:libtensorflow_framework"],
        copts = copts + TF_COPTS,
        # Set here as TensorFlow's macro sets them: callers cannot pass them.
        data = [],
        features = ["windows_export_all_symbols"],
        linkopts = linkopts + ["-lm"],
        linkshared = 1,
        **kwargs
    )
''',
    "tf_kernel_library": '''
    gpu_library = []
    if gpu_srcs:
        for src in gpu_srcs:
            if src.endswith(".cc") and not src.endswith(".cu.cc"):
                fail("{} not allowed in gpu_srcs. .cc sources must end with .cu.cc".format(src))
        # TensorFlow's <name>_gpu (tf_gpu_kernel_library); a CPU-only build
        # compiles it with the host compiler, as its cuda_library does.
        native.cc_library(
            name = name + "_gpu",
            srcs = gpu_srcs,
            copts = (gpu_copts or []) + TF_COPTS,
            deps = (deps or []) + (gpu_deps or []) + ["//tensorflow/core:framework_headers_lib"],
            alwayslink = 1,
        )
        gpu_library = [":" + name + "_gpu"]
    native.cc_library(
        name = name,
        srcs = srcs or [],
        hdrs = hdrs or [],
        copts = (copts or []) + TF_COPTS,
        deps = (deps or []) + gpu_library + ["//tensorflow/core:framework_headers_lib"],
        alwayslink = alwayslink,
        **kwargs
    )
''',
    "tf_gpu_kernel_library": '''
    native.cc_library(
        srcs = srcs,
        hdrs = hdrs,
        copts = copts + TF_COPTS,
        deps = deps + ["//tensorflow/core:framework_headers_lib"],
        alwayslink = 1,
        **kwargs
    )
''',
    "tf_cc_test": '''
    native.cc_test(
        name = "%s%s" % (name, suffix),
        srcs = srcs,
        copts = TF_COPTS + extra_copts,
        linkopts = ["-lpthread", "-lm"] + linkopts,
        deps = deps,
        data = data + kernels,
        **kwargs
    )
''',
    "tf_cc_binary": '''
    native.cc_binary(
        name = name,
        srcs = srcs,
        copts = default_copts + copts,
        deps = deps + [
            "//tensorflow/core:framework_headers_lib",
            "@pip_tensorflow//:libtensorflow_framework",
        ],
        data = data + kernels,
        linkopts = linkopts + ["-lm"],
        visibility = visibility,
        **kwargs
    )
''',
    "tf_py_test": '''
    deps = kwargs.pop("deps", [])
    kwargs.setdefault("srcs_version", "PY3")
    native.py_test(
        name = name,
        size = size,
        srcs = srcs,
        args = args,
        data = data + kernels,
        flaky = flaky,
        main = main,
        shard_count = shard_count,
        tags = tags,
        visibility = ["//visibility:public"] + additional_visibility,
        deps = deps,
        **kwargs
    )
''',
    "cuda_py_test": '''
    if main == None:
        main = name + ".py"
    targets = []
    for config in ["cpu", "gpu"]:
        test_tags = tags
        if config == "gpu":
            test_tags = test_tags + ["requires-gpu-nvidia", "gpu"]
        tf_py_test(
            name = name + "_" + config,
            size = size,
            srcs = srcs,
            args = args,
            data = data,
            flaky = flaky,
            grpc_enabled = grpc_enabled,
            kernels = kernels,
            main = main,
            shard_count = shard_count,
            tags = test_tags,
            xla_enabled = xla_enabled,
            **kwargs
        )
        targets.append(name + "_" + config)
    native.test_suite(name = name, tests = targets, tags = tags)
''',
    "py_strict_library": '''
    native.py_library(name = name, **kwargs)
''',
    "cc_library": '''
    native.cc_library(name = name, **kwargs)
''',
}

# The tree's tensorflow/__init__.py. In a real tree, `tensorflow` is this tree's
# own package. Here it must be the pip TensorFlow (which has no examples/), with
# this tree's tensorflow/ folder added to its package path so that
# `tensorflow.examples.custom_ops_doc...` imports from the tree.
_TENSORFLOW_INIT = '''"""Stand-in: the pip TensorFlow, extended with this tree's tensorflow/ folder."""
import importlib
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_TREE = os.path.dirname(_HERE)
_SAVED_PATH = list(sys.path)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _TREE]
del sys.modules[__name__]
try:
    _REAL = importlib.import_module("tensorflow")
finally:
    sys.path[:] = _SAVED_PATH
_REAL.__path__.append(_HERE)
'''


# tensorflow.default.bzl re-exports what tensorflow.bzl defines.
_TENSORFLOW_BZL_FILES = ("//tensorflow:tensorflow.bzl", "//tensorflow:tensorflow.default.bzl")


def _signature(name: str, macro: tf_macros.Macro) -> str:
    params = [p if d is tf_macros.REQUIRED else f"{p} = {d}" for p, d in macro.params]
    if macro.kwargs_to is not None:
        params.append("**kwargs")
    return f"def {name}({', '.join(params)}):"


def tensorflow_bzl(tf_copts) -> str:
    """The stand-in //tensorflow:tensorflow.bzl."""
    parts = ['"""Stand-in for TensorFlow\'s tensorflow.bzl (generated by '
             'tests/stand_in_tf_tree.py)."""\n',
             f"TF_COPTS = {json.dumps(tf_copts)}\n",
             "def lrt_if_needed():\n    return []\n",
             "def tf_copts():\n    return TF_COPTS\n"]
    for name, macro in tf_macros.MACROS.items():
        if macro.load_from not in _TENSORFLOW_BZL_FILES:
            continue
        if name == "cuda_py_test":
            parts.append(_signature("gpu_py_test", macro) + _BODIES[name])
            parts.append("def cuda_py_test(*args, **kwargs):\n"
                         "    gpu_py_test(*args, **kwargs)\n")
        else:
            parts.append(_signature(name, macro) + _BODIES[name])
    return "\n".join(parts)


def _describe_tensorflow() -> Dict:
    result = subprocess.run(
        [sys.executable, os.path.join(WORKSPACE_ROOT, "third_party", "tf",
                                      "find_tensorflow.py")],
        capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def _write(root: str, relative: str, text: str) -> None:
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


def build(root: str) -> None:
    """Creates the stand-in tree in the (empty or missing) folder `root`."""
    tf = _describe_tensorflow()
    tf_copts = tf["defines"] + ["-std=" + tf["cxx_standard"], "-pthread"]
    tf_dir = os.path.dirname(tf["include_dir"])
    framework = os.path.relpath(os.path.join(tf["lib_dir"], tf["framework_lib"]), tf_dir)
    for stand_in in ("rules_cc", "remote_coverage_tools"):
        shutil.copytree(os.path.join(WORKSPACE_ROOT, "third_party", "stand_ins", stand_in),
                        os.path.join(root, "stand_ins", stand_in))
    _write(root, "stand_ins/absl_py/WORKSPACE", 'workspace(name = "absl_py")\n')
    _write(root, "stand_ins/absl_py/absl/testing/BUILD",
           'package(default_visibility = ["//visibility:public"])\n'
           'py_library(name = "parameterized")\npy_library(name = "absltest")\n')
    # TensorFlow's pip repository of Hypothesis (the property tests, which run
    # in my_bilinear_test); the configured interpreter has the package.
    _write(root, "stand_ins/pypi_hypothesis/WORKSPACE", 'workspace(name = "pypi_hypothesis")\n')
    _write(root, "stand_ins/pypi_hypothesis/BUILD",
           'py_library(name = "pkg", visibility = ["//visibility:public"])\n')
    _write(root, "WORKSPACE", f'''workspace(name = "org_tensorflow")

local_repository(name = "rules_java", path = "/usr/share/bazel/rules/java")
local_repository(name = "rules_cc", path = "stand_ins/rules_cc")
local_repository(name = "remote_coverage_tools", path = "stand_ins/remote_coverage_tools")
local_repository(name = "absl_py", path = "stand_ins/absl_py")
local_repository(name = "pypi_hypothesis", path = "stand_ins/pypi_hypothesis")

new_local_repository(
    name = "pip_tensorflow",
    path = "{tf_dir}",
    build_file_content = """
package(default_visibility = ["//visibility:public"])
cc_library(name = "headers", hdrs = glob(["include/**"]), includes = ["include"])
cc_library(name = "libtensorflow_framework", srcs = ["{framework}"])
""",
)

register_toolchains("//tools/python:toolchain")
''')
    _write(root, ".bazelrc", "build --spawn_strategy=local\n"
           "build --experimental_repository_disable_download\n"
           "test --test_output=errors\n")
    _write(root, "tools/python/BUILD", f'''load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

py_runtime(
    name = "python3",
    interpreter_path = "{sys.executable}",
    python_version = "PY3",
    stub_shebang = "#!{sys.executable}",
)

py_runtime_pair(name = "pair", py3_runtime = ":python3")

toolchain(
    name = "toolchain",
    toolchain = ":pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
''')
    _write(root, "tensorflow/BUILD", 'package(default_visibility = ["//visibility:public"])\n'
           'py_library(name = "tensorflow_py", srcs = ["__init__.py"])\n')
    _write(root, "tensorflow/__init__.py", _TENSORFLOW_INIT)
    _write(root, "tensorflow/tensorflow.bzl", tensorflow_bzl(tf_copts))
    _write(root, "tensorflow/tensorflow.default.bzl", '''"""Stand-in: re-exports, as TensorFlow's does."""
load(":tensorflow.bzl", _cuda_py_test = "cuda_py_test", _tf_py_test = "tf_py_test")
cuda_py_test = _cuda_py_test
tf_py_test = _tf_py_test
''')
    _write(root, "tensorflow/strict.default.bzl", '"""Stand-in."""\n' +
           _signature("py_strict_library", tf_macros.MACROS["py_strict_library"]) +
           _BODIES["py_strict_library"])
    _write(root, "tensorflow/core/BUILD", 'package(default_visibility = ["//visibility:public"])\n'
           'alias(name = "framework_headers_lib", actual = "@pip_tensorflow//:headers")\n')
    _write(root, "tensorflow/core/platform/BUILD", "")
    _write(root, "tensorflow/core/platform/rules_cc.bzl", '"""Stand-in."""\n' +
           _signature("cc_library", tf_macros.MACROS["cc_library"]) + _BODIES["cc_library"])
    _write(root, "third_party/py/numpy/BUILD",
           'py_library(name = "numpy", visibility = ["//visibility:public"])\n')
    _write(root, "third_party/py/keras/BUILD",
           'py_library(name = "keras", visibility = ["//visibility:public"])\n')
