"""Models with MyBilinear survive saving: each artifact is saved here and loaded
in a fresh Python process, which must give identical outputs, and which fails
with TensorFlow's "Op type not registered" error when the op library is not
loaded (docs/keras_saving_serving.md#save-and-load)."""

import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, Tuple

import keras
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import MyBilinearLayer
from tensorflow_ops.my_bilinear import my_bilinear

# (images shape, output size) pairs the saved tf.Module is called with after one trace.
_MODULE_CALLS = [((2, 4, 6, 3), (5, 7)), ((1, 9, 3, 1), (2, 11)), ((3, 5, 5, 2), (5, 5))]

# Runs in a fresh process, which imports no tensorflow_ops at first: each load
# must fail (printed, one line each). Then, as the error tells a user to, it
# imports the op package and loads every artifact again, writing what each
# returns. One child for both halves: each child costs TensorFlow's import.
_LOAD_WITHOUT_THEN_WITH_IMPORT = """
import sys
import keras
import numpy as np
import tensorflow as tf

folder = sys.argv[1]
loaders = {
    "export": lambda: tf.saved_model.load(folder + "/export"),
    "module": lambda: tf.saved_model.load(folder + "/module"),
    "keras": lambda: keras.models.load_model(folder + "/model.keras"),
}
assert not any(name.startswith("tensorflow_ops") for name in sys.modules)
for name, load in loaders.items():
    try:
        load()
        print("without_import", name, "LOADED")
    except Exception as error:
        print("without_import", name, type(error).__name__, " ".join(str(error).split()))

import tensorflow_ops.my_bilinear
inputs = np.load(folder + "/inputs.npz")
images = inputs["images"]
exported = tf.saved_model.load(folder + "/export")
outputs = {
    "keras": keras.models.load_model(folder + "/model.keras")(images),
    "export": exported.serve(images),
}
module = tf.saved_model.load(folder + "/module")
for index in range(int(inputs["module_calls"])):
    outputs[f"module_{index}"] = module.resize(inputs[f"module_images_{index}"],
                                               inputs[f"module_size_{index}"])
np.savez(folder + "/loaded.npz", **{k: np.asarray(v) for k, v in outputs.items()})
"""


class ResizeModule(tf.Module):
    """A plain tf.Module calling the op, with every dimension and `size` unknown."""

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, None], tf.float32),
                                  tf.TensorSpec([2], tf.int32)])
    def resize(self, images, size):
        return my_bilinear(images, size, align_corners=True, half_pixel_centers=False)


def _model() -> keras.Model:
    keras.utils.set_random_seed(3)
    inputs = keras.Input(shape=(None, None, 3))
    features = keras.layers.Conv2D(2, 1)(inputs)
    outputs = MyBilinearLayer((5, 7), align_corners=False, half_pixel_centers=True)(
        features)
    return keras.Model(inputs, outputs)


def _run_python(code: str, folder: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run([sys.executable, "-c", code, folder], env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def _module_inputs(index: int):
    shape, size = _MODULE_CALLS[index]
    images = np.random.default_rng(index).random(shape).astype(np.float32)
    return images, np.array(size, dtype=np.int32)


class SavingTest(test_util.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.folder = tempfile.mkdtemp()
        cls.images = np.random.default_rng(0).random((2, 4, 6, 3)).astype(np.float32)
        model = _model()
        cls.model_output = model(cls.images).numpy()
        model.save(os.path.join(cls.folder, "model.keras"))
        model.export(os.path.join(cls.folder, "export"), verbose=False)
        tf.saved_model.save(ResizeModule(), os.path.join(cls.folder, "module"))
        inputs = {"images": cls.images, "module_calls": len(_MODULE_CALLS)}
        for index in range(len(_MODULE_CALLS)):
            inputs[f"module_images_{index}"], inputs[f"module_size_{index}"] = (
                _module_inputs(index))
        np.savez(os.path.join(cls.folder, "inputs.npz"), **inputs)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)
        super().tearDownClass()

    def _child(self) -> Tuple[Dict[str, str], Dict[str, np.ndarray]]:
        """What the child printed for each load without the op package, and
        what each artifact returned once it was imported."""
        cls = type(self)
        if not hasattr(cls, "child_run"):  # once, even if it failed
            cls.child_run = _run_python(_LOAD_WITHOUT_THEN_WITH_IMPORT, self.folder)
        self.assertEqual(cls.child_run.returncode, 0, cls.child_run.stderr)
        failures = dict(line.split(" ", 2)[1:] for line in cls.child_run.stdout.splitlines()
                        if line.startswith("without_import "))
        with np.load(os.path.join(self.folder, "loaded.npz")) as loaded:
            return failures, dict(loaded)

    def _loaded_outputs(self) -> Dict[str, np.ndarray]:
        return self._child()[1]

    def test_keras_file_reloads_with_identical_outputs(self):
        self.assertAllEqual(self._loaded_outputs()["keras"], self.model_output)

    def test_exported_model_reloads_with_identical_outputs(self):
        self.assertAllEqual(self._loaded_outputs()["export"], self.model_output)

    def test_saved_module_reloads_and_takes_any_shape_and_size(self):
        loaded = self._loaded_outputs()
        for index in range(len(_MODULE_CALLS)):
            images, size = _module_inputs(index)
            expected = tf.raw_ops.ResizeBilinear(images=images, size=size,
                                                 align_corners=True)
            self.assertAllEqual(loaded[f"module_{index}"], expected)

    def test_loading_without_the_op_library_fails_with_the_documented_error(self):
        lines = self._child()[0]
        self.assertEqual(set(lines), {"export", "module", "keras"})
        for saved_model in ("export", "module"):
            self.assertRegex(lines[saved_model],
                             r"^RuntimeError Op type not registered 'MyBilinear'")
        self.assertRegex(lines["keras"], r"^TypeError .* Could not locate class "
                                         r"'MyBilinearLayer'")


class DynamicSignatureTest(test_util.TestCase):

    def test_traced_once_for_any_batch_height_width_and_size(self):
        module = ResizeModule()
        for index in range(len(_MODULE_CALLS)):
            images, size = _module_inputs(index)
            self.assertAllEqual(
                module.resize(images, size),
                tf.raw_ops.ResizeBilinear(images=images, size=size, align_corners=True))
        self.assertEqual(module.resize.experimental_get_tracing_count(), 1)


if __name__ == "__main__":
    tf.test.main()
