"""SplitAt against NumPy, its shapes, its bad inputs and its registered gradient."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops as framework_ops

from tensorflow_ops import fresh_process
from tensorflow_ops import test_util
from tensorflow_ops.split_at import ops
from tensorflow_ops.split_at import split_at

# Jacobians of a float64 op are exact up to the numerical difference's error.
_JACOBIAN_TOLERANCE = {np.float64: 1e-8, np.float32: 2e-3}


class SplitAtTest(test_util.TestCase):

    def test_matches_numpy_for_every_index(self):
        rng = np.random.default_rng(0)
        for dtype in (np.float32, np.float64):
            for length in (0, 1, 5):
                values = rng.standard_normal(length).astype(dtype)
                for index in range(length + 1):
                    with self.subTest(dtype=np.dtype(dtype).name, length=length,
                                      index=index):
                        head, tail = split_at(values, index)
                        self.assertEqual(head.dtype.as_numpy_dtype, dtype)
                        self.assertAllEqual(head, values[:index])
                        self.assertAllEqual(tail, values[index:])

    def test_static_shapes_from_a_constant_index(self):
        with tf.Graph().as_default():
            head, tail = split_at(tf.zeros([7]), tf.constant(2))
            self.assertEqual(head.shape.as_list(), [2])
            self.assertEqual(tail.shape.as_list(), [5])
            head, tail = split_at(tf.zeros([7]), tf.compat.v1.placeholder(tf.int32, []))
            self.assertEqual(head.shape.as_list(), [None])
            self.assertEqual(tail.shape.as_list(), [None])

    def test_index_out_of_range_is_named(self):
        for index in (-1, 6):
            with self.subTest(index=index):
                with self.assertRaisesRegex(
                        tf.errors.InvalidArgumentError,
                        rf"index {index} is out of range \[0, 5\] for values of length 5"):
                    ops.split_at(values=np.zeros(5, np.float32), index=index)

    def test_wrong_ranks_are_named(self):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    r"values must be 1-D, got shape \[2,3\]"):
            ops.split_at(values=np.zeros((2, 3), np.float32), index=1)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    r"index must be a scalar, got shape \[1\]"):
            ops.split_at(values=np.zeros(3, np.float32), index=[1])

    def test_shape_function_rejects_a_known_bad_index(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, r"index 9 is out of range \[0, 4\]"):
                split_at(tf.zeros([4]), tf.constant(9))

    def test_jacobian_with_both_outputs_used(self):
        def both(values):
            head, tail = split_at(values, 2)
            return tf.concat([tf.sin(head), tail * tail], axis=0)

        for dtype, tolerance in _JACOBIAN_TOLERANCE.items():
            values = tf.constant([0.3, -1.2, 0.7, 2.0, -0.4], dtype)
            theoretical, numerical = tf.test.compute_gradient(both, [values])
            with self.subTest(dtype=np.dtype(dtype).name):
                self.assertAllClose(theoretical[0], numerical[0], atol=tolerance)
                # Independent check: the Jacobian is diagonal, cos(x) then 2x.
                expected = np.diag(np.concatenate([np.cos(values[:2]), 2 * values[2:]]))
                self.assertAllClose(theoretical[0], expected, atol=1e-6)

    def test_jacobian_with_one_output_unused(self):
        values = tf.constant([0.3, -1.2, 0.7, 2.0, -0.4], tf.float64)
        for output, kept in ((0, slice(0, 3)), (1, slice(3, 5))):
            def one(values, output=output):
                return 3.0 * split_at(values, 3)[output]

            theoretical, numerical = tf.test.compute_gradient(one, [values])
            expected = 3.0 * np.eye(5)[kept]
            with self.subTest(output=output):
                self.assertAllClose(theoretical[0], numerical[0], atol=1e-8)
                self.assertAllClose(theoretical[0], expected, atol=0)

    def test_gradient_copes_with_a_none_upstream_gradient(self):
        with tf.Graph().as_default() as graph:
            values = tf.constant([1.0, 2.0, 3.0], tf.float64)
            head, tail = split_at(values, 1)
            gradient_function = framework_ops.get_gradient_function(head.op)
            for head_grad, tail_grad, expected in (
                    (None, tf.constant([5.0, 6.0], tf.float64), [0.0, 5.0, 6.0]),
                    (tf.constant([4.0], tf.float64), None, [4.0, 0.0, 0.0]),
            ):
                values_grad, index_grad = gradient_function(head.op, head_grad, tail_grad)
                self.assertIsNone(index_grad)
                with tf.compat.v1.Session(graph=graph) as session:
                    self.assertAllEqual(session.run(values_grad), expected)

    def test_gradient_of_an_empty_head(self):
        values = tf.constant([1.0, 2.0], tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(values)
            head, tail = split_at(values, 0)
            loss = tf.reduce_sum(head) + tf.reduce_sum(7.0 * tail)
        self.assertAllEqual(tape.gradient(loss, values), [7.0, 7.0])

    def test_saved_model_and_gradient_in_a_fresh_process(self):
        class Tail(tf.Module):

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float64)])
            def __call__(self, values):
                return 3.0 * split_at(values, 1)[1]

        folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        np.save(os.path.join(folder, "input.npy"), np.float64([1.0, 2.0, 3.0]))
        tf.saved_model.save(Tail(), os.path.join(folder, "model"))
        result = fresh_process.run_module(
            "tensorflow_ops.saved_call_probe", [folder, "tensorflow_ops.split_at"])
        self.assertIn("Op type not registered 'SplitAt'", result["before_import"])
        self.assertIsNone(result["error"])
        self.assertAllEqual(result["output"], [6.0, 9.0])
        # The gradient registered by the package's import, with the unused head.
        self.assertAllEqual(result["gradient"], [0.0, 3.0, 3.0])


if __name__ == "__main__":
    tf.test.main()
