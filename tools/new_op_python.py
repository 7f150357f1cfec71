"""The BUILD file and Python files of a generated op (see tools/new_op.py).

Same conventions as tools/new_op_cc.py: one template per file, with
$-placeholders for the op's names and optional parts for --grad and --gpu.
"""

from typing import Dict

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

_OPS_TEST = '''\
"""$Op$and_grad_op against the float64 NumPy reference.

Also: shapes in tf.function, bad inputs refused by the kernels themselves
(through the generated op functions, bypassing the wrapper), and
$gradient_checks
"""

from typing import List

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
$test_imports
from tensorflow_ops.${package}.python import ${name}_reference as reference

# Relative error of one rounding to each dtype, with room for a few operations.
TOLERANCE = {np.float32: 1e-6, np.float64: 1e-14}
SHAPES = [[], [0], [7], [2, 3], [2, 0, 3], [3, 4, 5]]
SCALES = [2.5, -0.1, 0.0]


def random_values(shape: List[int], dtype: type, seed: int = 0) -> np.ndarray:
    """Uniform values in [-10, 10) of `dtype`."""
    return np.random.default_rng(seed).uniform(-10, 10, shape).astype(dtype)


class ${Op}Test(test_util.TestCase):

    def test_matches_reference_for_every_dtype_shape_and_scale(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                for scale in SCALES:
                    with self.subTest(dtype=np.dtype(dtype).name, shape=shape,
                                      scale=scale):
                        x = random_values(shape, dtype)
                        y = $name(x, scale)
                        self.assertEqual(y.dtype.as_numpy_dtype, dtype)
                        self.assertAllClose(y, reference.$name(x, scale),
                                            rtol=TOLERANCE[dtype], atol=0)

    def test_keeps_a_partly_unknown_shape_in_tf_function(self):
        traced = tf.function(lambda x: $name(x, 2.0),
                             input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        graph = traced.get_concrete_function().graph
        self.assertEqual(graph.outputs[0].shape.as_list(), [None, 3])
        self.assertAllClose(traced(tf.ones([2, 3])), 2.0 * np.ones([2, 3]))

    def test_non_finite_scale_is_refused_naming_it(self):
        # The generated op function directly: the kernel checks, not the wrapper.
        for scale, shown in ((float("nan"), "nan"), (float("inf"), "inf"),
                             (float("-inf"), "-inf")):
            with self.subTest(scale=shown):
                with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                            f"scale must be finite, got {shown}"):
                    ops.$name(x=np.ones(3, np.float32), scale=scale)

    def test_other_dtypes_are_refused(self):
        with self.assertRaisesRegex((TypeError, tf.errors.InvalidArgumentError),
                                    "int32"):
            ops.$name(x=np.ones(3, np.int32), scale=2.0)
$grad_tests

if __name__ == "__main__":
    tf.test.main()
'''

_NO_GRADIENT_TEST = '''
    def test_has_no_gradient_yet(self):
        # No gradient is registered: TensorFlow says so instead of returning
        # a wrong one.
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = $name(x, 3.0)
        # "gradient registry has no entry for: $Op"
        with self.assertRaisesRegex(LookupError, "$Op"):
            tape.gradient(y, x)
'''

_GRADIENT_TESTS = '''
    def test_jacobian_matches_numerical(self):
        x = random_values([2, 3], np.float64)
        theoretical, numerical = tf.test.compute_gradient(
            lambda x: $name(x, -1.5), [x])
        self.assertAllClose(theoretical, numerical, rtol=1e-8, atol=1e-8)

    def test_gradient_matches_reference(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    x = tf.constant(random_values(shape, dtype))
                    upstream = random_values(shape, dtype, seed=1)
                    with tf.GradientTape() as tape:
                        tape.watch(x)
                        y = $name(x, 0.75)
                    x_grad = tape.gradient(y, x, output_gradients=upstream)
                    want = reference.${name}_grad(upstream, x.numpy(), 0.75)
                    self.assertAllClose(x_grad, want, rtol=TOLERANCE[dtype], atol=0)

    def test_grad_op_refuses_grads_of_another_shape_naming_both(self):
        with self.assertRaisesRegex(
                tf.errors.InvalidArgumentError,
                r"grads must have the shape of x, "
                r"got grads shape \\[2,3\\] and x shape \\[3,2\\]"):
            ops.${name}_grad(grads=np.ones([2, 3], np.float32),
                ${_name}      x=np.ones([3, 2], np.float32), scale=1.0)

    def test_grad_shape_function_refuses_known_shapes_that_differ(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "must be equal"):
                ops.${name}_grad(grads=tf.zeros([2, 3]), x=tf.zeros([3, 2]),
                    ${_name}      scale=1.0)

    def test_grad_op_refuses_a_non_finite_scale(self):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    "scale must be finite, got nan"):
            ops.${name}_grad(grads=np.ones(2, np.float64), x=np.ones(2, np.float64),
                ${_name}      scale=float("nan"))
'''

_PROPERTY_TEST = '''\
"""Property tests of $Op$and_grad_op on inputs that Hypothesis draws.

Valid calls (shapes of rank 0-4 with dims 0-6, both dtypes, finite scales,
values from a drawn seed) are checked against the float64 NumPy reference.
Bad calls must be refused naming the bad value: $bad_calls.
See tensorflow_ops/hypothesis_profiles.py for the number of examples.
"""

from typing import List

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import tensorflow as tf

from tensorflow_ops import hypothesis_profiles
from tensorflow_ops import test_util
$test_imports
from tensorflow_ops.${package}.python import ${name}_reference as reference

hypothesis_profiles.load_profile()

# Relative error of one rounding to each dtype, with room for a few operations;
# results below the smallest normal number keep only an absolute precision.
TOLERANCE = {tf.float32: 1e-6, tf.float64: 1e-14}
TINY = {tf.float32: np.finfo(np.float32).tiny, tf.float64: np.finfo(np.float64).tiny}
shapes = st.lists(st.integers(0, 6), max_size=4)
dtypes = st.sampled_from([tf.float32, tf.float64])
# Finite float32 scales (the attr's type), tiny and huge ones included.
scales = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False, width=32)
seeds = st.integers(0, 2**32 - 1)


def values(shape: List[int], dtype: tf.DType, seed: int) -> np.ndarray:
    """Uniform values in [-100, 100) of `dtype`."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-100, 100, shape).astype(dtype.as_numpy_dtype)


class ${Op}PropertyTest(test_util.TestCase):

    @given(shape=shapes, dtype=dtypes, scale=scales, seed=seeds,
           via_wrapper=st.booleans())
    def test_matches_reference(self, shape, dtype, scale, seed, via_wrapper):
        x = values(shape, dtype, seed)
        if via_wrapper:
            y = $name(x, scale)
        else:
            y = ops.$name(x=x, scale=scale)
        self.assertEqual(y.dtype, dtype)
        want = reference.$name(x, scale)
        self.assertAllClose(y, want, rtol=TOLERANCE[dtype], atol=TINY[dtype])

    @given(shape=shapes, scale=st.sampled_from([np.nan, np.inf, -np.inf]))
    def test_non_finite_scale_is_refused(self, shape, scale):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    f"scale must be finite, got {scale}"):
            ops.$name(x=np.zeros(shape, np.float32), scale=scale)
$grad_properties

if __name__ == "__main__":
    tf.test.main()
'''

_GRAD_PROPERTIES = '''
    @given(shape=shapes, dtype=dtypes, scale=scales, seed=seeds)
    def test_gradient_matches_reference(self, shape, dtype, scale, seed):
        x = tf.constant(values(shape, dtype, seed))
        upstream = values(shape, dtype, seed + 1)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = $name(x, scale)
        x_grad = tape.gradient(y, x, output_gradients=upstream)
        want = reference.${name}_grad(upstream, x.numpy(), scale)
        self.assertAllClose(x_grad, want, rtol=TOLERANCE[dtype], atol=TINY[dtype])

    @given(grads_shape=shapes, x_shape=shapes)
    def test_grads_of_another_shape_are_refused(self, grads_shape, x_shape):
        if grads_shape == x_shape:
            x_shape = x_shape + [1]
        shown = ",".join(str(d) for d in x_shape)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    rf"and x shape \\[{shown}\\]"):
            ops.${name}_grad(grads=np.zeros(grads_shape, np.float32),
                ${_name}      x=np.zeros(x_shape, np.float32), scale=1.0)
'''

_GPU_TEST_PY = '''\
"""The GPU kernels of $Op$and_grad_op against the CPU kernels.

Every test needs a GPU that TensorFlow sees; without one the whole class is
skipped, and says why. Without a GPU, ${name}_gpu_grid_test checks the GPU
kernels' loop and math on the host.
"""

import unittest

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.$package import ops

_NO_GPU = ("no GPU visible to TensorFlow (tf.config.list_physical_devices('GPU') "
           "is empty): ${name}_gpu_grid_test checks the GPU kernels on the host")
# Empty, smaller than a block, and more blocks than one.
SHAPES = [[0], [3], [300, 7]]


@unittest.skipUnless(tf.config.list_physical_devices("GPU"), _NO_GPU)
class ${Op}GpuTest(test_util.TestCase):

    def test_forward_matches_cpu(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    x = np.random.default_rng(0).uniform(-5, 5, shape).astype(dtype)
                    with tf.device("/CPU:0"):
                        want = ops.$name(x=x, scale=-1.25)
                    with tf.device("/GPU:0"):
                        got = ops.$name(x=x, scale=-1.25)
                    self.assertAllClose(got, want, rtol=1e-6, atol=0)
$grad_gpu_test

if __name__ == "__main__":
    tf.test.main()
'''

_GRAD_GPU_TEST = '''
    def test_gradient_matches_cpu(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    rng = np.random.default_rng(1)
                    grads = rng.uniform(-5, 5, shape).astype(dtype)
                    x = rng.uniform(-5, 5, shape).astype(dtype)
                    with tf.device("/CPU:0"):
                        want = ops.${name}_grad(grads=grads, x=x, scale=0.5)
                    with tf.device("/GPU:0"):
                        got = ops.${name}_grad(grads=grads, x=x, scale=0.5)
                    self.assertAllClose(got, want, rtol=1e-6, atol=0)

    def test_gpu_refuses_grads_of_another_shape(self):
        with tf.device("/GPU:0"):
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        "grads must have the shape of x"):
                ops.${name}_grad(grads=np.ones([2], np.float32),
                    ${_name}      x=np.ones([3], np.float32), scale=1.0)
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
            _OPS_TEST, and_grad_op=and_grad_op,
            test_imports=_imports(names, "tensorflow_ops.$package"),
            gradient_checks=("Jacobians against numerical ones (tf.test.compute_gradient)."
                             if grad else "the absent gradient."),
            grad_tests=_GRADIENT_TESTS if grad else _NO_GRADIENT_TEST),
        "python/${name}_property_test.py": names.fill(
            _PROPERTY_TEST, and_grad_op=and_grad_op,
            test_imports=_imports(names, "tensorflow_ops.$package"),
            bad_calls=("a non-finite\nscale, grads of another shape than x" if grad
                       else "a non-finite\nscale"),
            grad_properties=_GRAD_PROPERTIES if grad else ""),
    }
    if names.gpu:
        files["python/${name}_gpu_test.py"] = names.fill(
            _GPU_TEST_PY, and_grad_op=and_grad_op,
            grad_gpu_test=_GRAD_GPU_TEST if grad else "")
    return {names.fill(path): text for path, text in files.items()}
