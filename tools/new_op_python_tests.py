"""The Python tests tools/new_op.py writes into an op folder: the op against
its float64 NumPy reference, Hypothesis properties, and the GPU against the
CPU. Templates filled by tools/new_op_python.py (OpNames.fill)."""

OPS_TEST = '''\
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

NO_GRADIENT_TEST = '''
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

GRADIENT_TESTS = '''
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

PROPERTY_TEST = '''\
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

GRAD_PROPERTIES = '''
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

GPU_TEST_PY = '''\
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

GRAD_GPU_TEST = '''
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
