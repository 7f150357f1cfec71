"""serve_saved_model (the C++ program beside this file) serves Keras exports
with MyBilinear bit for bit as Python does, and refuses every bad input with
one line on stderr and a non-zero exit, never a crash
(docs/keras_saving_serving.md#serve-from-c).

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
_SECONDS = 120

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
            f"//examples/serve_cpp:serve_saved_model_test`, or build the program "
            f"and set {BINARY_ENV} to it")
    return path


def _op_library(package: str, name: str) -> str:
    package_dir = os.path.join(os.path.dirname(tensorflow_ops.__file__), package)
    candidates = library_loader.library_candidates(name, package_dir)
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"{name} not found in {candidates}")


def _images(shape, dtype=np.float32, seed=0) -> np.ndarray:
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


class ServeSavedModelTest(test_util.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.folder = tempfile.mkdtemp()
        cls.binary = _binary()
        cls.library = _op_library("my_bilinear", "my_bilinear_op.so")
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

        cls.images = _images((2, 4, 6, 3))
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
            timeout=_SECONDS, check=False)

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

    def test_float32_output_equals_python_bit_for_bit(self):
        served = self._served(self.float_dir, self.images_path)
        self._assert_bitwise_equal(served, self.float_model(self.images))
        loaded = tf.saved_model.load(self.float_dir)  # kept: its variables live in it
        self._assert_bitwise_equal(served, loaded.serve(self.images))

    def test_the_serve_signature_gives_the_same(self):
        served = self._served(self.float_dir, self.images_path, ["--signature", "serve"])
        self._assert_bitwise_equal(served, self.float_model(self.images))

    def test_uint8_input_equals_python_bit_for_bit(self):
        images = _images((3, 5, 2, 3), np.uint8, seed=1)
        served = self._served(self.uint8_dir, self._save("uint8.npy", images))
        self.assertEqual(served.dtype, np.float32)
        self._assert_bitwise_equal(served, self.uint8_model(images))

    def test_float16_output_is_written_as_float16(self):
        served = self._served(self.half_dir, self.images_path)
        self._assert_bitwise_equal(served, self.half_model(self.images))
        self.assertEqual(served.dtype, np.float16)

    def test_a_library_without_the_op_reports_it_unregistered(self):
        zero_out = _op_library("zero_out", "zero_out_op.so")
        self._assert_refused(self._run(self.float_dir, self.images_path, zero_out),
                             r"Op type not registered 'MyBilinear'")

    def test_a_missing_op_library_is_named(self):
        missing = self._path("no_such_op.so")
        self._assert_refused(self._run(self.float_dir, self.images_path, missing),
                             re.escape(f"op library {missing}: No such file or directory"))

    def test_a_folder_as_op_library_is_refused(self):
        self._assert_refused(self._run(self.float_dir, self.images_path, self.folder),
                             "not a regular file")

    def test_an_unwritable_output_is_named(self):
        result = subprocess.run(
            [self.binary, self.float_dir, self.library, self.images_path,
             self._path("no_such_folder/output.npy")], capture_output=True, text=True,
            timeout=_SECONDS, check=False, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertGreater(result.returncode, 0, result.stderr)
        self.assertEqual(self._program_lines(result), [
            f"serve_saved_model: {self._path('no_such_folder/output.npy')}: cannot "
            "create the file"])

    def test_a_file_that_is_no_library_is_refused(self):
        self._assert_refused(self._run(self.float_dir, self.images_path,
                                       self.images_path), "could not be loaded")

    def test_a_library_built_for_another_tensorflow_is_refused(self):
        with open(self.library, "rb") as library:
            data = library.read()
        marker = f"tensorflow_ops_built_against_tf={tf.__version__};".encode()
        self.assertIn(marker, data)
        other = self._write("other_tf_op.so", data.replace(
            marker, b"tensorflow_ops_built_against_tf=1.99.0;"))
        self._assert_refused(self._run(self.float_dir, self.images_path, other),
                             r"was built against TensorFlow 1\.99\.0, but this "
                             r"program runs TensorFlow " + re.escape(tf.__version__))

    def test_a_bare_library_name_is_the_file_in_the_working_folder(self):
        # dlopen would look a bare name up on LD_LIBRARY_PATH, which here holds
        # another library of that name (zero_out's, without MyBilinear).
        here = self._path("bare_here")
        decoy = self._path("bare_decoy")
        for folder, source in ((here, self.library),
                               (decoy, _op_library("zero_out", "zero_out_op.so"))):
            os.makedirs(folder, exist_ok=True)
            shutil.copy(source, os.path.join(folder, "my_bilinear_op.so"))
        search = os.pathsep.join(
            filter(None, [decoy, os.environ.get("LD_LIBRARY_PATH")]))
        result = self._run(self.float_dir, self.images_path, "my_bilinear_op.so",
                           cwd=here, env=dict(os.environ, LD_LIBRARY_PATH=search))
        self.assertEqual(result.returncode, 0, result.stderr)
        self._assert_bitwise_equal(np.load(self._path("output.npy")),
                                   self.float_model(self.images))

    def test_a_missing_model_dir_is_named(self):
        missing = self._path("no_such_model")
        self._assert_refused(self._run(missing, self.images_path),
                             re.escape(f"loading SavedModel {missing}:"))

    def test_a_missing_signature_is_named_with_the_ones_there(self):
        self._assert_refused(
            self._run(self.float_dir, self.images_path, extra=["--signature", "nope"]),
            r"has no signature 'nope' \(it has: serve, serving_default\)$")

    def test_a_signature_with_two_inputs_is_refused(self):
        self._assert_refused(self._run(self.two_inputs_dir, self.images_path),
                             r"signature 'serving_default' has 2 inputs \(images, "
                             r"size\); this program serves exactly one")

    def test_a_wrong_rank_is_refused(self):
        path = self._save("rank3.npy", self.images[0])
        self._assert_refused(self._run(self.float_dir, path),
                             re.escape("has shape [4, 6, 3], but the signature's "
                                       "input takes shape [None, None, None, 3]"))

    def test_a_wrong_channel_count_is_refused(self):
        path = self._save("channels.npy", _images((1, 4, 6, 2)))
        self._assert_refused(self._run(self.float_dir, path), "has shape")

    def test_a_wrong_dtype_is_refused(self):
        path = self._save("float64.npy", self.images.astype(np.float64))
        self._assert_refused(self._run(self.float_dir, path),
                             r"holds double \(<f8\), but the signature's input "
                             r"takes float")

    def test_bad_arguments_exit_2_with_the_usage(self):
        result = subprocess.run([self.binary, self.float_dir], capture_output=True,
                                text=True, timeout=_SECONDS, check=False,
                                env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertRegex(self._program_lines(result)[0],
                         r"expected 4 paths, got 1; usage: serve_saved_model")

    # Damaged .npy files: each refused, naming the problem, before the model loads.

    def _refused(self, name: str, contents: bytes, pattern: str):
        self._assert_refused(self._run(self.float_dir, self._write(name, contents)),
                             pattern)

    def _npy(self, array: np.ndarray) -> bytes:
        path = self._save("source.npy", array)
        with open(path, "rb") as file:
            return file.read()

    def test_npy_truncated_data(self):
        data = self._npy(self.images)
        self._refused("truncated.npy", data[:-4], r"truncated data: the header's "
                      r"shape needs 576 bytes, the file holds 572")

    def test_npy_trailing_data(self):
        self._refused("trailing.npy", self._npy(self.images) + b"\0" * 8,
                      r"8 bytes after the data")

    def test_npy_no_npy_magic(self):
        self._refused("text.npy", b"just some text, no array here\n", r"not a \.npy file")

    def test_npy_truncated_header(self):
        self._refused("short.npy", self._npy(self.images)[:40], r"truncated header")

    def test_npy_fortran_order(self):
        self._refused("fortran.npy", self._npy(np.asfortranarray(self.images)),
                      r"Fortran-order arrays are not supported")

    def test_npy_big_endian(self):
        self._refused("big.npy", self._npy(self.images.astype(">f4")),
                      r"big-endian dtype '>f4' is not supported")

    def test_npy_unsupported_dtype(self):
        self._refused("complex.npy", self._npy(self.images.astype(np.complex64)),
                      r"unsupported dtype '<c8'")

    def test_npy_structured_dtype(self):
        self._refused("structured.npy",
                      self._npy(np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")])),
                      r"structured dtypes are not supported")

    def test_npy_unknown_format_version(self):
        data = bytearray(self._npy(self.images))
        data[7] = 5  # minor version
        self._refused("version.npy", bytes(data), r"unsupported \.npy format version 1\.5")

    def test_npy_garbled_header(self):
        data = bytearray(self._npy(self.images))
        data[10:18] = b"{'descx'"
        self._refused("garbled.npy", bytes(data), r"malformed header: unexpected key")

    def test_npy_shape_overflowing_64_bits(self):
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, " \
                 "4294967296, 4, 1), }"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        contents = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + \
            header.encode()
        self._refused("overflow.npy", contents, r"overflows 64 bits")

    def test_npy_empty_shape_whose_other_dimensions_overflow(self):
        # No bytes, yet no tensor shape holds (0, 2^62, 2^62, 3); numpy refuses too.
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (0, " \
                 f"{2**62}, {2**62}, 3), }}"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        contents = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + \
            header.encode()
        self._refused("empty_overflow.npy", contents, r"overflows 64 bits")


if __name__ == "__main__":
    tf.test.main()
