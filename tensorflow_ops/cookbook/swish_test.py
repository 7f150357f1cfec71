"""Swish as a Lambda over a module-level function and as a Layer: values,
gradients, and reloading from `.keras` in a fresh process; and why a Lambda
over a closure or a Python lambda does not reload."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops import fresh_process
from tensorflow_ops.cookbook import swish


def _swish_reference(x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    return x / (1.0 + np.exp(-beta * x))


def _swish_derivative(x: np.ndarray) -> np.ndarray:
    s = 1.0 / (1.0 + np.exp(-x))
    return s + x * s * (1.0 - s)


def _make_scaled_swish(beta: float):
    """The pattern that does not reload: a function made by a closure."""

    def scaled_swish(x):
        return x * tf.sigmoid(beta * x)

    return scaled_swish


def _model(layer: keras.layers.Layer) -> keras.Model:
    inputs = keras.Input([4])
    dense = keras.layers.Dense(4, kernel_initializer="glorot_uniform")
    return keras.Model(inputs, layer(dense(inputs)))


class SwishTest(test_util.TestCase):

    def test_values_match_numpy(self):
        x = np.linspace(-8, 8, 33)
        self.assertAllClose(swish.swish(tf.constant(x)), _swish_reference(x), rtol=1e-12)
        self.assertAllClose(swish.swish_lambda_layer()(tf.constant(x)),
                            _swish_reference(x), rtol=1e-12)
        self.assertAllClose(swish.Swish(beta=1.5, dtype="float64")(tf.constant(x)),
                            _swish_reference(x, 1.5), rtol=1e-12)

    def test_gradients_match_numerical_and_analytic(self):
        x = tf.constant(np.linspace(-4, 4, 9))
        for function in (swish.swish, swish.Swish(dtype="float64")):
            theoretical, numerical = tf.test.compute_gradient(function, [x])
            self.assertAllClose(theoretical[0], numerical[0], atol=1e-8)
            self.assertAllClose(np.diag(theoretical[0]), _swish_derivative(x.numpy()),
                                rtol=1e-12)

    def test_reload_in_a_fresh_process(self):
        folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        inputs = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
        np.save(os.path.join(folder, "input.npy"), inputs)
        models = {
            "lambda_module_function": _model(swish.swish_lambda_layer()),
            "layer_subclass": _model(swish.Swish(beta=1.5)),
            "lambda_closure": _model(keras.layers.Lambda(_make_scaled_swish(1.5))),
            "lambda_python_lambda": _model(
                keras.layers.Lambda(lambda x: x * tf.sigmoid(x))),
        }
        for name, model in models.items():
            model.save(os.path.join(folder, name + ".keras"))
        errors = fresh_process.run_module(
            "tensorflow_ops.cookbook.keras_reload_probe", [folder, *models])

        # Registered functions and layers are found only once their module is
        # imported (the probe tries once before importing it).
        self.assertIn("Could not locate function 'tensorflow_ops_cookbook>swish'",
                      errors["lambda_module_function_before_import"])
        for name in ("lambda_module_function", "layer_subclass"):
            self.assertIsNone(errors[name], name)
            reloaded = np.load(os.path.join(folder, name + ".out.npy"))
            self.assertAllClose(reloaded, models[name](inputs), rtol=1e-6)
        # A closure is saved by its bare name, which nothing registers; its
        # captured beta is not saved at all.
        self.assertIn("Could not locate function 'scaled_swish'",
                      errors["lambda_closure"])
        # A Python lambda is saved as bytecode, which loading refuses by default.
        self.assertIn("safe_mode=False", errors["lambda_python_lambda"])


if __name__ == "__main__":
    tf.test.main()
