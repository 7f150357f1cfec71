"""MyBilinearLayer: argument checks, shapes, models, mixed precision, config,
backend check, and both jit_compile paths."""

from unittest import mock
import warnings

from absl.testing import parameterized
import keras
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import MyBilinearLayer
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear.python.tests import bilinear_reference
from tensorflow_ops.my_bilinear.python import my_bilinear_layer
from tensorflow_ops.my_bilinear.python.tests import test_cases


def _reference(images: np.ndarray, size, align_corners: bool,
               half_pixel_centers: bool) -> np.ndarray:
    return bilinear_reference.resize_bilinear(images, *size, align_corners,
                                              half_pixel_centers)


class LayerArgumentsTest(test_util.TestCase, parameterized.TestCase):

    @parameterized.parameters([5], [(5,)], [(1, 2, 3)], ["ab"], [(2.0, 3)],
                              [(True, 3)], [(0, 3)], [(3, -1)], [None])
    def test_bad_target_size_is_refused_at_construction(self, target_size):
        with self.assertRaisesRegex(ValueError, r"target_size"):
            MyBilinearLayer(target_size)

    def test_numpy_integers_are_accepted(self):
        layer = MyBilinearLayer(np.array([3, 4], dtype=np.int64))
        self.assertEqual(layer.target_size, (3, 4))
        self.assertIsInstance(layer.target_size[0], int)

    def test_align_corners_with_half_pixel_centers_is_refused(self):
        with self.assertRaisesRegex(ValueError, "half_pixel_centers"):
            MyBilinearLayer((2, 2), align_corners=True, half_pixel_centers=True)

    @parameterized.parameters([(4, 4, 3)], [(2, 4, 4, 4, 3)])
    def test_wrong_input_rank_is_refused_when_built(self, shape):
        with self.assertRaisesRegex(ValueError, r"\[batch, height, width, channels\]"):
            MyBilinearLayer((2, 2)).build(shape)
        with self.assertRaisesRegex(ValueError, "ndim=4"):
            MyBilinearLayer((2, 2))(keras.Input(shape=shape[1:]))

    def test_compute_output_shape(self):
        layer = MyBilinearLayer((7, 9))
        self.assertEqual(layer.compute_output_shape((None, None, None, 3)),
                         (None, 7, 9, 3))
        self.assertEqual(layer.compute_output_shape((2, 4, 5, 1)), (2, 7, 9, 1))


class LayerInModelsTest(test_util.TestCase, parameterized.TestCase):

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_functional_model_with_unknown_height_and_width(self, align_corners,
                                                            half_pixel_centers):
        inputs = keras.Input(shape=(None, None, 3))
        outputs = MyBilinearLayer((5, 7), align_corners, half_pixel_centers)(inputs)
        model = keras.Model(inputs, outputs)
        self.assertEqual(tuple(model.output.shape), (None, 5, 7, 3))
        for shape in [(2, 4, 6, 3), (1, 9, 3, 3)]:
            images = test_cases.random_images(shape, np.float32)
            self.assertAllClose(
                model(images), _reference(images, (5, 7), align_corners,
                                          half_pixel_centers), rtol=1e-5, atol=1e-6)

    def test_sequential_model_predict_matches_tensorflow_resize(self):
        model = keras.Sequential([
            keras.Input(shape=(None, None, 2)),
            MyBilinearLayer((6, 3), align_corners=False, half_pixel_centers=True),
        ])
        images = test_cases.random_images((3, 4, 4, 2), np.float32)
        self.assertAllClose(model.predict(images, verbose=0),
                            tf.image.resize(images, (6, 3), method="bilinear"),
                            rtol=1e-6, atol=1e-6)

    def test_integer_images_are_resized_in_the_compute_dtype(self):
        images = np.arange(2 * 3 * 3, dtype=np.uint8).reshape((1, 3, 3, 2))
        resized = MyBilinearLayer((5, 5))(images)
        self.assertEqual(resized.dtype, tf.float32)
        self.assertAllClose(resized, _reference(images, (5, 5), True, False))

    def test_mixed_float16_computes_in_float16(self):
        keras.mixed_precision.set_global_policy("mixed_float16")
        self.addCleanup(keras.mixed_precision.set_global_policy, "float32")
        inputs = keras.Input(shape=(None, None, 3))
        layer = MyBilinearLayer((6, 5), align_corners=False, half_pixel_centers=False)
        model = keras.Model(inputs, layer(inputs))
        self.assertEqual(layer.compute_dtype, "float16")
        images = test_cases.random_images((2, 3, 4, 3), np.float32)
        resized = model(images)
        self.assertEqual(resized.dtype, tf.float16)
        # The input is rounded to float16 before the resize, and so is the output.
        expected = _reference(images.astype(np.float16), (6, 5), False, False)
        self.assertAllClose(resized, expected, rtol=2e-3, atol=2e-3)


class LayerConfigTest(test_util.TestCase):

    def test_get_config_from_config_round_trip(self):
        layer = MyBilinearLayer((4, 6), align_corners=False, half_pixel_centers=True,
                                name="resize")
        config = layer.get_config()
        self.assertEqual(config["target_size"], [4, 6])
        self.assertFalse(config["align_corners"])
        self.assertTrue(config["half_pixel_centers"])
        clone = MyBilinearLayer.from_config(config)
        self.assertEqual((clone.name, clone.target_size, clone.align_corners,
                          clone.half_pixel_centers),
                         ("resize", (4, 6), False, True))

    def test_registered_so_deserialization_needs_no_custom_objects(self):
        self.assertIs(keras.saving.get_registered_object(
            "tensorflow_ops>MyBilinearLayer"), MyBilinearLayer)
        serialized = keras.saving.serialize_keras_object(MyBilinearLayer((2, 3)))
        restored = keras.saving.deserialize_keras_object(serialized)
        self.assertIsInstance(restored, MyBilinearLayer)
        self.assertEqual(restored.target_size, (2, 3))

    def test_other_keras_backend_fails_at_construction(self):
        # Keras's other backends need JAX (even the NumPy one), which is not
        # installed here, so the backend Keras reports is simulated.
        with mock.patch.object(keras.backend, "backend", return_value="jax"):
            with self.assertRaisesRegex(
                    RuntimeError, "needs the TensorFlow Keras backend, but the "
                    "backend is 'jax'. Set KERAS_BACKEND=tensorflow"):
                MyBilinearLayer((2, 2))


def _trainable_model() -> keras.Model:
    """A convolution before the layer, so training needs its gradient."""
    keras.utils.set_random_seed(7)
    inputs = keras.Input(shape=(4, 4, 2))
    features = keras.layers.Conv2D(2, 1)(inputs)
    outputs = MyBilinearLayer((6, 5))(features)
    return keras.Model(inputs, outputs)


class JitCompileTest(test_util.TestCase):
    """Keras may compile the layer with XLA only when the op has an XLA kernel."""

    def setUp(self):
        super().setUp()
        self.images = test_cases.random_images((4, 4, 4, 2), np.float32, seed=1)
        self.targets = test_cases.random_images((4, 6, 5, 2), np.float32, seed=2)

    def _xla_compiles_the_op(self) -> bool:
        resize = tf.function(lambda images: my_bilinear(images, (3, 3)), jit_compile=True)
        try:
            resize(tf.ones([1, 2, 2, 1]))
        except tf.errors.InvalidArgumentError as error:
            # The failure must name the op that XLA cannot compile.
            self.assertIn("MyBilinear", str(error))
            return False
        return True

    def test_supports_jit_says_whether_xla_compiles_the_op(self):
        self.assertEqual(MyBilinearLayer((2, 2)).supports_jit, self._xla_compiles_the_op())
        self.assertEqual(MyBilinearLayer((2, 2)).supports_jit,
                         my_bilinear_layer.my_bilinear_supports_jit())

    def _fit_and_check(self, model: keras.Model) -> None:
        history = model.fit(self.images, self.targets, batch_size=2, epochs=1,
                            verbose=0)
        self.assertTrue(np.isfinite(history.history["loss"][0]))
        self.assertAllClose(model.predict(self.images, verbose=0),
                            model(self.images), rtol=1e-5, atol=1e-6)

    def test_forced_jit_compile_true(self):
        model = _trainable_model()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.compile(optimizer="sgd", loss="mse", jit_compile=True)
        supports_jit = my_bilinear_layer.my_bilinear_supports_jit()
        self.assertEqual(model.jit_compile, supports_jit)
        if not supports_jit:
            # Keras falls back to running without XLA, and says so.
            self.assertTrue(any("jit_compile=True" in str(w.message) for w in caught))
        self._fit_and_check(model)

    def test_forced_jit_compile_false(self):
        model = _trainable_model()
        model.compile(optimizer="sgd", loss="mse", jit_compile=False)
        self.assertFalse(model.jit_compile)
        self._fit_and_check(model)

    def test_auto_jit_compile_on_a_machine_with_a_gpu(self):
        """On a GPU machine "auto" means XLA when every layer supports it; a model
        without the layer shows that the simulated GPU reaches that decision."""
        devices = [tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU"),
                   tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")]
        with mock.patch.object(tf.config, "list_physical_devices", return_value=devices):
            with_layer = _trainable_model()
            with_layer.compile(optimizer="sgd", loss="mse")
            without_layer = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
            without_layer.compile(optimizer="sgd", loss="mse")
            self.assertTrue(without_layer.jit_compile)
            self.assertEqual(with_layer.jit_compile,
                             my_bilinear_layer.my_bilinear_supports_jit())


if __name__ == "__main__":
    tf.test.main()
