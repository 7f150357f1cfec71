"""OpTemplate against the float64 NumPy reference.

Also: shapes in tf.function, and bad inputs refused by the kernels themselves
(through the generated op functions, bypassing the wrapper).
"""

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.op_template import op_template
from tensorflow_ops.op_template import ops
from tensorflow_ops.op_template.python.tests import (
    op_template_reference as reference)

# Relative error of one rounding to each dtype, with room for a few operations.
TOLERANCE = {np.float32: 1e-6, np.float64: 1e-14}
SHAPES = [[], [0], [7], [2, 3], [2, 0, 3], [3, 4, 5]]
SCALES = [2.5, -0.1, 0.0]


def random_values(shape: list[int], dtype: type, seed: int = 0) -> np.ndarray:
    """Uniform values in [-10, 10) of `dtype`."""
    return np.random.default_rng(seed).uniform(-10, 10, shape).astype(dtype)


class OpTemplateTest(test_util.TestCase):

    def test_matches_reference_for_every_dtype_shape_and_scale(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                for scale in SCALES:
                    name = np.dtype(dtype).name
                    with self.subTest(dtype=name, shape=shape, scale=scale):
                        x = random_values(shape, dtype)
                        y = op_template(x, scale)
                        self.assertEqual(y.dtype.as_numpy_dtype, dtype)
                        want = reference.op_template(x, scale)
                        self.assertAllClose(y, want, rtol=TOLERANCE[dtype], atol=0)

    def test_keeps_a_partly_unknown_shape_in_tf_function(self):
        traced = tf.function(
            lambda x: op_template(x, 2.0),
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
                    ops.op_template(x=np.ones(3, np.float32), scale=scale)

    def test_other_dtypes_are_refused(self):
        errors = (TypeError, tf.errors.InvalidArgumentError)
        with self.assertRaisesRegex(errors, "int32"):
            ops.op_template(x=np.ones(3, np.int32), scale=2.0)
    # --grad: begin

    def test_jacobian_matches_numerical(self):
        x = random_values([2, 3], np.float64)
        theoretical, numerical = tf.test.compute_gradient(
            lambda x: op_template(x, -1.5), [x])
        self.assertAllClose(theoretical, numerical, rtol=1e-8, atol=1e-8)

    def test_gradient_matches_reference(self):
        for dtype in (np.float32, np.float64):
            for shape in SHAPES:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    x = tf.constant(random_values(shape, dtype))
                    upstream = random_values(shape, dtype, seed=1)
                    with tf.GradientTape() as tape:
                        tape.watch(x)
                        y = op_template(x, 0.75)
                    x_grad = tape.gradient(y, x, output_gradients=upstream)
                    want = reference.op_template_grad(upstream, x.numpy(), 0.75)
                    self.assertAllClose(x_grad, want, rtol=TOLERANCE[dtype], atol=0)

    def test_grad_op_refuses_grads_of_another_shape_naming_both(self):
        with self.assertRaisesRegex(
                tf.errors.InvalidArgumentError,
                r"grads must have the shape of x, "
                r"got grads shape \[2,3\] and x shape \[3,2\]"):
            grads, x = np.ones([2, 3], np.float32), np.ones([3, 2], np.float32)
            ops.op_template_grad(grads=grads, x=x, scale=1.0)

    def test_grad_shape_function_refuses_known_shapes_that_differ(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "must be equal"):
                grads, x = tf.zeros([2, 3]), tf.zeros([3, 2])
                ops.op_template_grad(grads=grads, x=x, scale=1.0)

    def test_grad_op_refuses_a_non_finite_scale(self):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    "scale must be finite, got nan"):
            grads, x = np.ones(2, np.float64), np.ones(2, np.float64)
            ops.op_template_grad(grads=grads, x=x, scale=float("nan"))
    # --grad: end


if __name__ == "__main__":
    tf.test.main()
