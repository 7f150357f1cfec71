"""tf.custom_gradient examples: a stable gradient where autodiff gives NaN, a
hand-simplified gradient equal to autodiff's, and a second-order example."""

import os
import tempfile

import numpy as np
import tensorflow as tf

from tensorflow_ops import fresh_process
from tensorflow_ops import test_util
from tensorflow_ops.cookbook import custom_gradients


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _value_and_gradient(function, x):
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = function(x)
    return y, tape.gradient(y, x)


def _softmax_xent_reference(labels: np.ndarray, logits: np.ndarray):
    """Loss and both gradients (for an upstream gradient of ones), in float64."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    loss = -(labels * log_probs).sum(axis=-1)
    logits_grad = np.exp(log_probs) * labels.sum(axis=-1, keepdims=True) - labels
    return loss, -log_probs, logits_grad


class Log1pexpTest(test_util.TestCase):

    def test_naive_autodiff_is_nan_at_100(self):
        y, gradient = _value_and_gradient(custom_gradients.log1pexp_naive,
                                          np.float32([100.0]))
        self.assertEqual(y.numpy()[0], np.inf)
        self.assertTrue(np.isnan(gradient.numpy()[0]))

    def test_custom_gradient_is_finite_and_right(self):
        x = np.array([-100.0, -20.0, -1.0, 0.0, 0.5, 20.0, 100.0])
        for dtype in (np.float32, np.float64):
            with self.subTest(dtype=np.dtype(dtype).name):
                y, gradient = _value_and_gradient(custom_gradients.log1pexp,
                                                  x.astype(dtype))
                self.assertAllClose(y, np.logaddexp(0.0, x), rtol=1e-6)
                self.assertAllClose(gradient, _sigmoid(x), rtol=1e-6)

    def test_autodiff_of_the_stable_forward_is_wrong_at_zero(self):
        # The pitfall the custom gradient also removes: max() and abs() give
        # one-sided slopes at 0, so autodiff says 1 where the slope is 1/2.
        _, autodiff = _value_and_gradient(
            custom_gradients.log1pexp_stable_forward, np.float64([0.0]))
        _, custom = _value_and_gradient(custom_gradients.log1pexp, np.float64([0.0]))
        self.assertEqual(autodiff.numpy()[0], 1.0)
        self.assertEqual(custom.numpy()[0], 0.5)

    def test_jacobian_matches_numerical(self):
        x = tf.constant(np.linspace(-30.0, 30.0, 13))
        theoretical, numerical = tf.test.compute_gradient(custom_gradients.log1pexp, [x])
        self.assertAllClose(theoretical[0], numerical[0], atol=1e-8)


    def test_custom_gradient_survives_a_saved_model(self):
        class Log1pexp(tf.Module):

            @tf.function(input_signature=[tf.TensorSpec([None], tf.float64)])
            def __call__(self, x):
                return custom_gradients.log1pexp(x)

        folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        np.save(os.path.join(folder, "input.npy"), np.float64([0.0, 100.0]))
        tf.saved_model.save(Log1pexp(), os.path.join(folder, "model"))
        result = fresh_process.run_module("tensorflow_ops.saved_call_probe", [folder])
        self.assertIsNone(result["error"])
        self.assertAllClose(result["output"], [np.log(2.0), 100.0], rtol=1e-12)
        # 0.5 at x = 0 is the custom gradient's; autodiff of the saved forward
        # ops alone would give 1 there.
        self.assertAllClose(result["gradient"], [0.5, 1.0], rtol=1e-12)


class SoftmaxCrossEntropyTest(test_util.TestCase):

    def _inputs(self, label_rows_sum_to_one: bool):
        rng = np.random.default_rng(0)
        logits = rng.standard_normal((4, 5)) * 3
        labels = rng.uniform(0, 1, (4, 5))
        if label_rows_sum_to_one:
            labels /= labels.sum(axis=-1, keepdims=True)
        return labels, logits

    def test_loss_and_gradients_match_numpy_and_autodiff(self):
        for label_rows_sum_to_one in (True, False):
            labels, logits = self._inputs(label_rows_sum_to_one)
            expected_loss, labels_grad, logits_grad = _softmax_xent_reference(
                labels, logits)
            results = {}
            for name, loss_function in (
                    ("custom", custom_gradients.softmax_cross_entropy),
                    ("autodiff", custom_gradients.softmax_cross_entropy_autodiff)):
                labels_t, logits_t = tf.constant(labels), tf.constant(logits)
                with tf.GradientTape() as tape:
                    tape.watch([labels_t, logits_t])
                    loss = loss_function(labels_t, logits_t)
                results[name] = (loss, *tape.gradient(loss, [labels_t, logits_t]))
            with self.subTest(label_rows_sum_to_one=label_rows_sum_to_one):
                for result in results.values():
                    self.assertAllClose(result[0], expected_loss, rtol=1e-12)
                    self.assertAllClose(result[1], labels_grad, rtol=1e-12)
                    self.assertAllClose(result[2], logits_grad, atol=1e-12)

    def test_matches_tensorflows_fused_op(self):
        labels, logits = self._inputs(label_rows_sum_to_one=True)
        self.assertAllClose(
            custom_gradients.softmax_cross_entropy(labels, logits),
            tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
            rtol=1e-12)

    def test_jacobians_match_numerical(self):
        labels, logits = self._inputs(label_rows_sum_to_one=False)
        theoretical, numerical = tf.test.compute_gradient(
            custom_gradients.softmax_cross_entropy,
            [tf.constant(labels), tf.constant(logits)])
        for ours, reference in zip(theoretical, numerical):
            self.assertAllClose(ours, reference, atol=1e-6)


class SecondOrderTest(test_util.TestCase):

    @staticmethod
    def _first_derivative(x: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = custom_gradients.log1pexp_twice(x)
        return tape.gradient(y, x)

    def test_first_and_second_derivatives_match_numpy(self):
        x_values = np.array([-100.0, -3.0, -0.5, 0.0, 0.7, 4.0, 100.0])
        x = tf.constant(x_values)
        with tf.GradientTape() as outer:
            outer.watch(x)
            first = self._first_derivative(x)
        second = outer.gradient(first, x)
        s = _sigmoid(x_values)
        self.assertAllClose(first, s, rtol=1e-12)
        self.assertAllClose(second, s * (1.0 - s), rtol=1e-12, atol=1e-300)

    def test_jacobians_of_both_orders_match_numerical(self):
        x = tf.constant(np.linspace(-5.0, 5.0, 11))
        for order, function in ((1, custom_gradients.log1pexp_twice),
                                (2, self._first_derivative)):
            theoretical, numerical = tf.test.compute_gradient(function, [x])
            with self.subTest(order=order):
                self.assertAllClose(theoretical[0], numerical[0], atol=1e-8)
                self.assertGreater(np.min(np.diag(theoretical[0])), 1e-3)


if __name__ == "__main__":
    tf.test.main()
