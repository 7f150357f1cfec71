"""The BUILD file and Python files of a generated op (see tools/new_op.py).

Same conventions as tools/new_op_cc.py: one template per file, with
$-placeholders for the op's names and optional parts for --grad and --gpu.
"""

from typing import Dict

from tools import new_op_python_tests as python_tests
from tools.new_op_names import OpNames

_BUILD = """\
load("//third_party/tf:tensorflow.bzl", "tf_cc_test", "tf_custom_op_library")

package(default_visibility = ["//visibility:public"])

# The op's math: plain C++ headers, no TensorFlow.
cc_library(
    name = "${name}_math",
    hdrs = [$math_headers],
)

tf_custom_op_library(
    name = "${name}_op.so",
    srcs = [$op_srcs
    ],$gpu_srcs
    deps = [":${name}_math"],
)

py_library(
    name = "${package}_py",
    srcs = [
        "__init__.py",
        "python/__init__.py",
        "python/${name}_ops.py",
    ],
    data = [":${name}_op.so"],
    deps = ["//tensorflow_ops:library_loader"],
)

# The plain float64 NumPy reference the tests compare with.
py_library(
    name = "${name}_reference",
    testonly = 1,
    srcs = ["python/${name}_reference.py"],
)

py_test(
    name = "${name}_ops_test",
    size = "small",
    srcs = ["python/${name}_ops_test.py"],
    deps = [
        ":${name}_reference",
        ":${package}_py",
        "//tensorflow_ops:test_util",
    ],
)

# Hypothesis draws the inputs (tensorflow_ops/hypothesis_profiles.py says how
# many).
py_test(
    name = "${name}_property_test",
    size = "small",
    srcs = ["python/${name}_property_test.py"],
    deps = [
        ":${name}_reference",
        ":${package}_py",
        "//tensorflow_ops:hypothesis_profiles",
        "//tensorflow_ops:test_util",
    ],
)
$gpu_test
# The math on its own, against a plain reference, with canaries that catch any
# write out of bounds.
tf_cc_test(
    name = "${name}_math_test",
    size = "small",
    srcs = ["cc/kernels/${name}_math_test.cc"],
    tags = ["no_tensorflow"],  # also run under the sanitizers (.ci/run)
    deps = [":${name}_math"],
)
$grid_test"""

_GPU_SRCS = """
    gpu_srcs = [
        "cc/kernels/${name}_op_gpu.cu.cc",
        "cc/kernels/${name}_validation.h",
    ],"""

_GPU_TEST = """
# GPU against CPU results; skipped, saying why, where TensorFlow sees no GPU.
# Its own target, so that the skip is not hidden among passes.
py_test(
    name = "${name}_gpu_test",
    size = "small",
    srcs = ["python/${name}_gpu_test.py"],
    deps = [
        ":${package}_py",
        "//tensorflow_ops:test_util",
    ],
)
"""

_GRID_TEST = """
# The GPU kernels' per-element math, run on the host over every index of their
# launch grids (no GPU needed).
tf_cc_test(
    name = "${name}_gpu_grid_test",
    size = "small",
    srcs = ["cc/kernels/${name}_gpu_grid_test.cc"],
    tags = ["no_tensorflow"],
    deps = [":${name}_math"],
)
"""

_PACKAGE_INIT = '''\
"""$Op: multiplies a tensor by a constant, y = scale * x.

    from tensorflow_ops.$package import $name
    $name([1.0, -2.0], scale=3.0)   # [3.0, -6.0]

A C++ op with $kernels.$gradient_sentence
`ops` holds the generated op functions of the loaded library:
$functions.
"""

$package_imports

__all__ = $exports
'''

_OPS_PY = '''\
"""Python API of $Op: loads the op library and wraps its generated op.

`$name` is the entry point. `ops` is the module of generated op functions
that `tf.load_op_library` returns: $functions.
$gradient_paragraph
"""

import os
from typing import $typing

import tensorflow as tf

from tensorflow_ops import library_loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ops = library_loader.load_op_library(
    "${name}_op.so", _PACKAGE_DIR,
    build_target="//${folder}:${name}_op.so")


def $name(x: tf.Tensor, scale: float = 1.0,
    ${_name} name: Optional[str] = None) -> tf.Tensor:
    """Returns `scale * x`, element by element.

    Args:
      x: float32 or float64 tensor of any shape (or anything convertible to one).
      scale: a finite number (the op holds it as a float32 attr).
      name: name scope of the op.

    Returns:
      A tensor with the shape and dtype of `x`.

    Raises:
      tf.errors.InvalidArgumentError: `scale` is not finite (the message names it).
    """
    with tf.name_scope(name or "$Op"):
        return ops.$name(x=x, scale=scale)
$gradient_function'''

_GRADIENT_FUNCTION = '''

@tf.RegisterGradient("$Op")
def _${name}_gradient(op: tf.Operation, grad: tf.Tensor) -> List[tf.Tensor]:
    """d(x) = $OpGrad(grad, x), with the scale of the $Op being
    differentiated."""
    x_grad = ops.${name}_grad(grads=grad, x=op.inputs[0],
                 ${_name}      scale=op.get_attr("scale"))
    return [x_grad]
'''

_REFERENCE_PY = '''\
"""$Op$and_grad_op in plain float64 NumPy: what the tests compare
the op with.

TODO(you): your op's math (and its derivative), written as plainly as possible,
so that a mistake in the kernels cannot hide in here too.
"""

import numpy as np


def as_attr(scale: float) -> np.float64:
    """The scale as the op sees it: its `scale` attr is a float32."""
    return np.float64(np.float32(scale))


def $name(x: np.ndarray, scale: float) -> np.ndarray:
    """y = scale * x, in float64."""
    return as_attr(scale) * np.asarray(x, np.float64)
$grad_reference'''

_GRAD_REFERENCE = '''

def ${name}_grad(grads: np.ndarray, x: np.ndarray, scale: float) -> np.ndarray:
    """The gradient with respect to x from the one with respect to y, in
    float64. dy/dx = scale does not depend on x; most derivatives read it."""
    del x  # unused
    return as_attr(scale) * np.asarray(grads, np.float64)
'''

def _string_list(items, indent: str = "        ") -> str:
    return "".join(f'\n{indent}"{item}",' for item in items)


def _build(names: OpNames) -> str:
    kernels = "cc/kernels/${name}"
    headers = [f"{kernels}.h"] + ([f"{kernels}_gpu_grid.h"] if names.gpu else [])
    if len(headers) == 1:
        math_headers = f'"{headers[0]}"'
    else:
        math_headers = _string_list(headers) + "\n    "
    op_srcs = sorted(
        ([f"{kernels}_grad_op.cc"] if names.grad else [])
        + [f"{kernels}_op.cc", f"{kernels}_validation.cc", f"{kernels}_validation.h",
           "cc/ops/${name}_ops.cc"])
    return names.fill(_BUILD, math_headers=math_headers,
                      op_srcs=_string_list(op_srcs),
                      gpu_srcs=_GPU_SRCS if names.gpu else "",
                      gpu_test=_GPU_TEST if names.gpu else "",
                      grid_test=_GRID_TEST if names.gpu else "")


def _imports(names: OpNames, module: str) -> str:
    """`from <module> import <name>` for the wrapper and `ops`, sorted."""
    return "\n".join(f"from {module} import {symbol}"
                     for symbol in sorted([names.name, "ops"]))


def python_files(names: OpNames) -> Dict[str, str]:
    """BUILD, the Python package and its tests, by path in the op folder."""
    grad = names.grad
    and_grad_op = " and $OpGrad" if grad else ""
    functions = "`ops.$name`, `ops.${name}_grad`" if grad else "`ops.$name`"
    files = {
        "BUILD": _build(names),
        "__init__.py": names.fill(
            _PACKAGE_INIT,
            kernels="CPU and GPU kernels" if names.gpu else "a CPU kernel",
            functions=functions,
            package_imports=_imports(names, "tensorflow_ops.${package}.python.${name}_ops"),
            exports=repr(sorted([names.name, "ops"])).replace("'", '"'),
            gradient_sentence=(
                " Its gradient is computed by the\nC++ op $OpGrad, registered with "
                '`tf.RegisterGradient("$Op")`.' if grad else
                " It has no gradient yet: asking for\none raises LookupError.")),
        "python/__init__.py": "",
        "python/${name}_ops.py": names.fill(
            _OPS_PY,
            functions=functions,
            gradient_paragraph=(
                "Importing this module registers the gradient of $Op, computed by\n"
                "the C++ op $OpGrad." if grad else
                "$Op has no gradient yet, so TensorFlow raises LookupError when\n"
                'asked for one. Register one with `@tf.RegisterGradient("$Op")`\n'
                "(tools/new_op.py --grad generates a C++ gradient op)."),
            typing="List, Optional" if grad else "Optional",
            gradient_function=_GRADIENT_FUNCTION if grad else ""),
        "python/${name}_reference.py": names.fill(
            _REFERENCE_PY, and_grad_op=and_grad_op,
            grad_reference=_GRAD_REFERENCE if grad else ""),
        "python/${name}_ops_test.py": names.fill(
            python_tests.OPS_TEST, and_grad_op=and_grad_op,
            test_imports=_imports(names, "tensorflow_ops.$package"),
            gradient_checks=("Jacobians against numerical ones (tf.test.compute_gradient)."
                             if grad else "the absent gradient."),
            grad_tests=python_tests.GRADIENT_TESTS if grad else python_tests.NO_GRADIENT_TEST),
        "python/${name}_property_test.py": names.fill(
            python_tests.PROPERTY_TEST, and_grad_op=and_grad_op,
            test_imports=_imports(names, "tensorflow_ops.$package"),
            bad_calls=("a non-finite\nscale, grads of another shape than x" if grad
                       else "a non-finite\nscale"),
            grad_properties=python_tests.GRAD_PROPERTIES if grad else ""),
    }
    if names.gpu:
        files["python/${name}_gpu_test.py"] = names.fill(
            python_tests.GPU_TEST_PY, and_grad_op=and_grad_op,
            grad_gpu_test=python_tests.GRAD_GPU_TEST if grad else "")
    return {names.fill(path): text for path, text in files.items()}
