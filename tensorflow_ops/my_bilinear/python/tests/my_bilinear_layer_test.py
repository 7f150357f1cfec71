"""MyBilinearLayer: argument checks, shapes, models, mixed precision, config
(hostile configs and tampered .keras files included), backend check, and both
jit_compile paths."""

import json
import os
import re
from unittest import mock
import warnings
import zipfile

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

    @parameterized.parameters([(2**31, 3)], [(3, 2**40)], [(2**63, 1)])
    def test_target_size_beyond_int32_is_refused_at_construction(self, target_size):
        # Else the layer is made and fails only when called.
        with self.assertRaisesRegex(ValueError, r"target_size must fit int32, got \(\d+, \d+\)"):
            MyBilinearLayer(target_size)

    def test_largest_int32_target_size_is_accepted(self):
        self.assertEqual(MyBilinearLayer((2**31 - 1, 1)).target_size, (2**31 - 1, 1))

    @parameterized.parameters(["12"], [b"12"], [{"h": 1, "w": 2}])
    def test_two_item_strings_and_dicts_are_no_size(self, target_size):
        with self.assertRaisesRegex(ValueError, "target_size must be \\(height, width\\)"):
            MyBilinearLayer(target_size)

    @parameterized.parameters(
        ("align_corners", "no"), ("align_corners", None), ("align_corners", 1),
        ("align_corners", 0), ("half_pixel_centers", "yes"), ("half_pixel_centers", [True]),
        ("half_pixel_centers", 1.0))
    def test_flags_must_be_bools(self, flag, value):
        # bool("no") is True: without the check, "no" would turn the flag on.
        arguments = {"align_corners": False, flag: value}
        with self.assertRaisesRegex(ValueError, f"^{flag} must be a bool, got "
                                    + re.escape(repr(value)) + "$"):
            MyBilinearLayer((2, 2), **arguments)

    def test_numpy_bools_are_accepted(self):
        layer = MyBilinearLayer((2, 2), align_corners=np.False_, half_pixel_centers=np.True_)
        self.assertIs(layer.half_pixel_centers, True)

    def test_long_and_deep_values_are_shortened_in_messages(self):
        # Deeper than Python's recursion limit, Keras's Layer.__new__ fails
        # first (RecursionError); from_config refuses that (below).
        deep = [1]
        for _ in range(200):
            deep = [deep]
        for target_size in ["x" * 1_000_000, deep, list(range(100_000))]:
            with self.assertRaises(ValueError) as refused:
                MyBilinearLayer(target_size)
            self.assertLess(len(str(refused.exception)), 200)

    @parameterized.parameters(["bool"], ["string"], ["complex64"])
    def test_dtypes_the_op_does_not_take_are_refused_at_construction(self, dtype):
        with self.assertRaisesRegex(ValueError, f"computes in one of .*, got dtype '{dtype}'"):
            MyBilinearLayer((2, 2), dtype=dtype)

    @parameterized.parameters(["float16", "float16"], ["bfloat16", "bfloat16"],
                              ["int32", "float32"], ["uint8", "float32"])
    def test_every_dtype_the_op_takes_is_accepted(self, dtype, result_dtype):
        resized = MyBilinearLayer((3, 2), dtype=dtype)(np.ones((1, 2, 2, 1), np.float32))
        self.assertEqual(resized.dtype, result_dtype)

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

    @parameterized.parameters([5], [None], [("a", 2, 3, 4)], [(1, -2, 3, 4)], [(1, True, 3, 4)])
    def test_bad_build_shapes_are_refused_naming_them(self, shape):
        # A tampered .keras file's build_config gives build() any value.
        with self.assertRaisesRegex(ValueError, "MyBilinearLayer.*" + re.escape(repr(shape))):
            MyBilinearLayer((2, 2)).build(shape)

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


class LayerConfigTest(test_util.TestCase, parameterized.TestCase):

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

    def _config(self, **changes):
        config = MyBilinearLayer((4, 6), align_corners=False, half_pixel_centers=True,
                                 name="resize").get_config()
        config.update(changes)
        return config

    @parameterized.parameters(
        ({"target_size": [0, 3]}, r"target_size must be positive, got \[0, 3\]"),
        ({"target_size": [True, 3]}, r"target_size must hold two integers"),
        ({"target_size": [3, 2.5]}, r"target_size must hold two integers, got \[3, 2\.5\]"),
        ({"align_corners": "false"}, r"align_corners must be a bool, got 'false'"),
        ({"half_pixel_centers": None}, r"half_pixel_centers must be a bool, got None"),
        ({"dtype": {"class_name": "DTypePolicyMap"}}, r"dtype is no dtype policy: \{'class_name'"),
        ({"dtype": {"class_name": "NoSuchPolicy"}}, r"dtype is no dtype policy: \{'class_name'"))
    def test_from_config_refuses_bad_values_naming_them(self, changes, message):
        with self.assertRaisesRegex(ValueError, message):
            MyBilinearLayer.from_config(self._config(**changes))

    def test_from_config_refuses_deep_nesting_without_recursion_errors(self):
        deep = [3, 4]
        for _ in range(5000):
            deep = [deep]
        for key in ("target_size", "name", "unknown"):
            with self.assertRaisesRegex(ValueError, f"nests deeper than 16 levels at '{key}'"):
                MyBilinearLayer.from_config(self._config(**{key: deep}))

    @parameterized.parameters([None], [[("target_size", [2, 2])]], ["target_size"])
    def test_from_config_refuses_a_config_that_is_no_dict(self, config):
        with self.assertRaisesRegex(TypeError, "config must be a dict, got"):
            MyBilinearLayer.from_config(config)

    def test_keras_errors_for_its_own_arguments_still_name_them(self):
        for changes, message in [({"trainable": "no"}, "trainable"),
                                 ({"name": 5}, "name"), ({"unknown": 1}, "unknown")]:
            with self.assertRaisesRegex(TypeError, message):
                MyBilinearLayer.from_config(self._config(**changes))

    def test_tampered_keras_file_is_refused_naming_the_value(self):
        inputs = keras.Input(shape=(4, 4, 2))
        model = keras.Model(inputs, MyBilinearLayer((3, 5), name="resize")(inputs))
        folder = self.create_tempdir().full_path
        saved = os.path.join(folder, "model.keras")
        model.save(saved)
        for key, value, message in [
                ("target_size", [3, -5], r"target_size must be positive, got \[3, -5\]"),
                ("align_corners", "yes", "align_corners must be a bool, got 'yes'"),
                ("build_config", 7, "got shape 7")]:
            tampered = os.path.join(folder, f"{key}.keras")
            with zipfile.ZipFile(saved) as original, zipfile.ZipFile(tampered, "w") as out:
                for item in original.infolist():
                    data = original.read(item.filename)
                    if item.filename == "config.json":
                        config = json.loads(data)
                        layer = next(layer for layer in config["config"]["layers"]
                                     if layer["class_name"] == "MyBilinearLayer")
                        if key == "build_config":
                            layer["build_config"]["input_shape"] = value
                        else:
                            layer["config"][key] = value
                        data = json.dumps(config)
                    out.writestr(item, data)
            with self.subTest(key=key):
                with self.assertRaisesRegex((ValueError, TypeError), message):
                    keras.models.load_model(tampered)

    def test_registered_so_deserialization_needs_no_custom_objects(self):
        self.assertIs(keras.saving.get_registered_object(
            "tensorflow_ops>MyBilinearLayer"), MyBilinearLayer)
        serialized = keras.saving.serialize_keras_object(MyBilinearLayer((2, 3)))
        restored = keras.saving.deserialize_keras_object(serialized)
        self.assertIsInstance(restored, MyBilinearLayer)
        self.assertEqual(restored.target_size, (2, 3))

    def test_other_keras_backend_fails_at_construction(self):
        # Keras's backend is fixed when keras is imported, so another one is
        # simulated (the JAX backend itself: my_bilinear_jax_keras_test).
        with mock.patch.object(keras.backend, "backend", return_value="torch"):
            with self.assertRaisesRegex(
                    RuntimeError, "needs the TensorFlow or JAX Keras backend, but the "
                    "backend is 'torch'. Set KERAS_BACKEND=tensorflow"):
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
