"""What the tests of serve_saved_model (the C++ program beside this file)
share: the program and op libraries found, three Keras exports with
MyBilinearLayer and a two-input SavedModel made once per test class, and
runners that check the program's one line of refusal or its bit-exact output.

The program is found in Bazel's runfiles, beside this file, or at
$SERVE_SAVED_MODEL_BINARY; the op libraries where the package's loader finds
them (tensorflow_ops/library_loader.py, $TENSORFLOW_OPS_LIBRARY_DIR).
"""

import os
import re
import shutil
import subprocess
import tempfile
from typing import Dict, List, Optional

import keras
import numpy as np
import tensorflow as tf

import tensorflow_ops
from tensorflow_ops import library_loader
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import MyBilinearLayer
from tensorflow_ops.my_bilinear import my_bilinear

BINARY_ENV = "SERVE_SAVED_MODEL_BINARY"
SECONDS = 120

# Lines TensorFlow logs whatever TF_CPP_MIN_LOG_LEVEL says (oneDNN's notice at
# start-up, in absl's format): not the program's own output.
_TF_LOG_LINE = re.compile(
    r"^(WARNING: All log messages before absl::InitializeLog\(\)"
    r"|[IWEF]\d{4} \d+:\d+:\d+\.\d+ +\d+ \S+:\d+\])")


def _binary() -> str:
    override = os.environ.get(BINARY_ENV)
    path = override or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "serve_saved_model")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"{path} not found: run under `bazel test "
            f"//examples/serve_cpp:serve_cpp_test`, or build the program "
            f"and set {BINARY_ENV} to it")
    return path


def op_library(package: str, name: str) -> str:
    package_dir = os.path.join(os.path.dirname(tensorflow_ops.__file__), package)
    candidates = library_loader.library_candidates(name, package_dir)
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"{name} not found in {candidates}")


def images(shape, dtype=np.float32, seed=0) -> np.ndarray:
    values = np.random.default_rng(seed).random(shape)
    return (values * 255).astype(dtype) if dtype == np.uint8 else values.astype(dtype)


def _export(model: keras.Model, folder: str) -> str:
    model.export(folder, verbose=False)
    return folder


class ResizeModule(tf.Module):
    """Two inputs: a signature this program refuses."""

    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float32),
                                  tf.TensorSpec([2], tf.int32)])
    def resize(self, images, size):
        return my_bilinear(images, size)


class ServeFixture(test_util.TestCase):
    """The exports and runners; no tests of its own."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.folder = tempfile.mkdtemp()
        cls.binary = _binary()
        cls.library = op_library("my_bilinear", "my_bilinear_op.so")
        keras.utils.set_random_seed(3)

        inputs = keras.Input(shape=(None, None, 3))
        features = keras.layers.Conv2D(2, 1)(inputs)
        cls.float_model = keras.Model(inputs, MyBilinearLayer(
            (5, 7), align_corners=False, half_pixel_centers=True)(features))
        cls.float_dir = _export(cls.float_model, cls._path("float"))

        inputs = keras.Input(shape=(None, None, 3), dtype="uint8")
        cls.uint8_model = keras.Model(inputs, MyBilinearLayer((6, 4))(inputs))
        cls.uint8_dir = _export(cls.uint8_model, cls._path("uint8"))

        # A float16 layer: the signature's output is float16 (`<f2` in .npy).
        inputs = keras.Input(shape=(4, 6, 3))
        cls.half_model = keras.Model(inputs, MyBilinearLayer((3, 9), dtype="float16")(
            inputs))
        cls.half_dir = _export(cls.half_model, cls._path("half"))

        module = ResizeModule()
        cls.two_inputs_dir = cls._path("two_inputs")
        tf.saved_model.save(module, cls.two_inputs_dir,
                            signatures=module.resize.get_concrete_function())

        cls.images = images((2, 4, 6, 3))
        cls.images_path = cls._save("images.npy", cls.images)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)
        super().tearDownClass()

    @classmethod
    def _path(cls, name: str) -> str:
        return os.path.join(cls.folder, name)

    @classmethod
    def _save(cls, name: str, array: np.ndarray) -> str:
        np.save(cls._path(name), array)
        return cls._path(name)

    @classmethod
    def _write(cls, name: str, contents: bytes) -> str:
        with open(cls._path(name), "wb") as file:
            file.write(contents)
        return cls._path(name)

    def _run(self, model_dir: str, images: str, library: Optional[str] = None,
             extra: List[str] = (), cwd: Optional[str] = None,
             env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        output = self._path("output.npy")
        if os.path.exists(output):
            os.remove(output)
        env = dict(env or os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        return subprocess.run(
            [self.binary, model_dir, library or self.library, images, output,
             *extra], env=env, cwd=cwd, capture_output=True, text=True,
            timeout=SECONDS, check=False)

    def _served(self, model_dir: str, images: str, extra: List[str] = ()) -> np.ndarray:
        result = self._run(model_dir, images, extra=extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self._program_lines(result), [])
        return np.load(self._path("output.npy"))

    def _program_lines(self, result: subprocess.CompletedProcess) -> List[str]:
        return [line for line in result.stderr.splitlines()
                if line.strip() and not _TF_LOG_LINE.match(line)]

    def _assert_refused(self, result: subprocess.CompletedProcess, pattern: str):
        # > 0: an exit status; a signal (a crash) would be negative.
        self.assertGreater(result.returncode, 0, result.stderr)
        lines = self._program_lines(result)
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertRegex(lines[0], r"^serve_saved_model: .*" + pattern)
        self.assertFalse(os.path.exists(self._path("output.npy")))

    def _assert_bitwise_equal(self, served: np.ndarray, expected):
        expected = np.asarray(expected)
        self.assertEqual(served.dtype, expected.dtype)
        self.assertEqual(served.shape, expected.shape)
        self.assertTrue(served.flags.c_contiguous)
        self.assertEqual(served.tobytes(), expected.tobytes())
