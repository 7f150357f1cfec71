"""ZeroOut against NumPy, its bad inputs, and its (absent) gradient."""

import os
import tempfile

import numpy as np
import tensorflow as tf

from tensorflow_ops import fresh_process
from tensorflow_ops import test_util
from tensorflow_ops.zero_out import ops
from tensorflow_ops.zero_out import zero_out


def _reference(values: np.ndarray) -> np.ndarray:
    """Plain NumPy: a copy with everything after the first element zeroed."""
    expected = np.zeros_like(values)
    expected[:1] = values[:1]
    return expected


class ZeroOutTest(test_util.TestCase):

    def test_matches_numpy_for_int32_and_float(self):
        rng = np.random.default_rng(0)
        for dtype in (np.int32, np.float32):
            for length in (0, 1, 2, 7, 1000):
                values = (rng.uniform(-50, 50, length) + 1).astype(dtype)
                with self.subTest(dtype=np.dtype(dtype).name, length=length):
                    result = zero_out(values)
                    self.assertEqual(result.dtype.as_numpy_dtype, dtype)
                    self.assertAllEqual(result, _reference(values))

    def test_works_in_tf_function_with_unknown_length(self):
        traced = tf.function(
            zero_out, input_signature=[tf.TensorSpec([None], tf.float32)])
        self.assertAllEqual(traced(tf.constant([4.0, -3.0, 2.0])), [4.0, 0.0, 0.0])
        graph = traced.get_concrete_function().graph
        self.assertEqual(graph.outputs[0].shape.as_list(), [None])

    def test_gradient_is_none(self):
        values = tf.constant([3.0, 1.0, 2.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(values)
            zeroed = zero_out(values)
            loss = tf.reduce_sum(zeroed * zeroed)
            # A second path that does have a gradient: only its part comes back.
            mixed = loss + tf.reduce_sum(values)
        self.assertIsNone(tape.gradient(loss, values))
        self.assertAllEqual(
            tape.gradient(loss, values, unconnected_gradients="zero"), [0.0, 0.0, 0.0])
        self.assertAllEqual(tape.gradient(mixed, values), [1.0, 1.0, 1.0])

    def test_gradient_is_none_in_graph_mode(self):
        with tf.Graph().as_default():
            values = tf.constant([3.0, 1.0])
            self.assertEqual(tf.gradients(zero_out(values), values), [None])

    def test_rejects_a_matrix(self):
        # The generated op function in eager mode reaches the kernel's check.
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    r"to_zero must be 1-D, got shape \[2,2\]"):
            ops.zero_out(to_zero=[[1, 2], [3, 4]])

    def test_rejects_a_scalar_when_the_graph_is_built(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "must be rank 1 but is rank 0"):
                zero_out(tf.constant(5))

    def test_rejects_other_dtypes(self):
        with self.assertRaises((TypeError, tf.errors.NotFoundError,
                                tf.errors.InvalidArgumentError)):
            zero_out(tf.constant([1.0, 2.0], tf.float64))

    def test_saved_model_needs_the_library_in_a_fresh_process(self):
        class ZeroOutModule(tf.Module):

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
            def __call__(self, x):
                return zero_out(x)

        folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        np.save(os.path.join(folder, "input.npy"), np.float32([4.0, 5.0, 6.0]))
        tf.saved_model.save(ZeroOutModule(), os.path.join(folder, "model"))
        result = fresh_process.run_module(
            "tensorflow_ops.saved_call_probe", [folder, "tensorflow_ops.zero_out"])
        # The SavedModel names the op; only a process that loaded the library
        # (here by importing the package) knows it.
        self.assertIn("Op type not registered 'ZeroOut'", result["before_import"])
        self.assertIsNone(result["error"])
        self.assertAllEqual(result["output"], [4.0, 0.0, 0.0])
        self.assertIsNone(result["gradient"])


if __name__ == "__main__":
    tf.test.main()
