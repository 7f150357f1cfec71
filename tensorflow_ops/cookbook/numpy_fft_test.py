"""The NumPy 2-D FFT: values, dtypes, static shapes, its custom gradient, use in
tf.function and Keras, and what happens to a SavedModel that uses it."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops import fresh_process
from tensorflow_ops.cookbook.numpy_fft import fft2d_numpy


def _dft_matrix(n: int) -> np.ndarray:
    """The unnormalised DFT matrix exp(-2 pi i j k / n), in complex128."""
    k = np.arange(n)
    return np.exp(-2j * np.pi * np.outer(k, k) / n)


def _fft2d_reference(x: np.ndarray) -> np.ndarray:
    """F_h @ x @ F_w^T over the last two axes: the 2-D DFT written plainly."""
    return _dft_matrix(x.shape[-2]) @ x @ _dft_matrix(x.shape[-1]).T


def _random_complex(shape, dtype=np.complex128, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


class NumpyFFTTest(test_util.TestCase):

    def test_matches_a_plain_dft_and_tensorflow(self):
        for dtype, tolerance in ((np.complex128, 1e-12), (np.complex64, 1e-4)):
            # A tensor, not the array: tf.signal.fft2d turns a complex128 NumPy
            # array into a complex64 tensor.
            x = tf.constant(_random_complex((2, 3, 5), dtype))
            y = fft2d_numpy(x)
            with self.subTest(dtype=np.dtype(dtype).name):
                self.assertEqual(y.dtype.as_numpy_dtype, dtype)
                self.assertAllClose(y, _fft2d_reference(x.numpy().astype(np.complex128)),
                                    atol=tolerance * 10, rtol=tolerance)
                self.assertAllClose(y, tf.signal.fft2d(x), atol=tolerance * 10,
                                    rtol=tolerance)

    def test_static_shape_in_tf_function(self):
        traced = tf.function(fft2d_numpy,
                             input_signature=[tf.TensorSpec([None, 4, 6], tf.complex64)])
        output = traced.get_concrete_function().structured_outputs
        self.assertEqual(output.shape.as_list(), [None, 4, 6])
        x = _random_complex((2, 4, 6), np.complex64)
        self.assertAllClose(traced(x), tf.signal.fft2d(x), atol=1e-4, rtol=1e-4)

    def test_refuses_real_input(self):
        with self.assertRaisesRegex(TypeError, "complex64 or complex128, got float32"):
            fft2d_numpy(tf.zeros([2, 2]))

    def test_gradient_matches_numerical_and_tensorflow(self):
        x = tf.constant(_random_complex((2, 3, 4)))
        theoretical, numerical = tf.test.compute_gradient(fft2d_numpy, [x])
        self.assertAllClose(theoretical[0], numerical[0], atol=1e-9)
        tf_theoretical, _ = tf.test.compute_gradient(tf.signal.fft2d, [x])
        self.assertAllClose(theoretical[0], tf_theoretical[0], atol=1e-12)

    def test_trains_inside_a_keras_model(self):
        def model_with(fft):
            inputs = keras.Input([4, 4])
            mixed = keras.layers.Dense(4, name="mix")(inputs)
            power = keras.layers.Lambda(
                lambda x: tf.abs(fft(tf.complex(x, tf.zeros_like(x)))) ** 2)(mixed)
            outputs = keras.layers.Dense(1)(keras.layers.Flatten()(power))
            return keras.Model(inputs, outputs)

        ours = model_with(fft2d_numpy)
        theirs = model_with(tf.signal.fft2d)
        theirs.set_weights(ours.get_weights())
        x = np.random.default_rng(1).standard_normal((8, 4, 4)).astype(np.float32)
        target = np.ones((8, 1), np.float32)

        def mix_gradient(model):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - target) ** 2)
            return tape.gradient(loss, model.get_layer("mix").kernel)

        self.assertAllClose(ours(x), theirs(x), rtol=1e-4)
        self.assertAllClose(mix_gradient(ours), mix_gradient(theirs), rtol=1e-3,
                            atol=1e-3)
        # fit() traces a tf.function; the layer before the FFT must learn.
        before = ours.get_layer("mix").kernel.numpy()
        ours.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
        ours.fit(x, target, epochs=1, verbose=0)
        self.assertNotAllClose(ours.get_layer("mix").kernel.numpy(), before)

    def test_saved_model_needs_the_python_function(self):
        class Fft(tf.Module):

            @tf.function(input_signature=[tf.TensorSpec([None, 3, 4], tf.complex128)])
            def __call__(self, x):
                return fft2d_numpy(x)

        folder = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        inputs = _random_complex((1, 3, 4))
        np.save(os.path.join(folder, "input.npy"), inputs)
        tf.saved_model.save(Fft(), os.path.join(folder, "model"))
        result = fresh_process.run_module(
            "tensorflow_ops.cookbook.numpy_fft_saved_model_probe", [folder])
        # The SavedModel keeps only a token naming a callback of the process
        # that saved it; a fresh process has no such callback.
        self.assertRegex(result["first_error"],
                         r"(?s)InvalidArgumentError: .*Could not find callback with "
                         r"key=pyfunc_\d+ in the registry")
        # Worse: once some other numpy_function takes that token, the model
        # silently runs it instead (here it doubles the input, no FFT).
        second = np.asarray(result["second_output"])
        self.assertAllClose(second[..., 0] + 1j * second[..., 1], 2 * inputs)


if __name__ == "__main__":
    tf.test.main()
