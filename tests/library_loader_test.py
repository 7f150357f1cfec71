"""The op library is found where documented, and a missing or mismatched one
makes the import fail with an ImportError that says how to build it."""

import os
import shutil
import subprocess
import sys
import tempfile

import tensorflow as tf

from tensorflow_ops import library_loader
from tensorflow_ops import test_util
import tensorflow_ops.my_bilinear

_LIBRARY = "my_bilinear_op.so"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(tensorflow_ops.my_bilinear.__file__))
_MARKER = b"tensorflow_ops_built_against_tf="


def _built_library() -> str:
    return next(path for path in library_loader.library_candidates(_LIBRARY, _PACKAGE_DIR)
                if os.path.isfile(path))


class LibraryLoaderTest(test_util.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)
        os.environ.pop(library_loader.LIBRARY_DIR_ENV, None)

    def _load_from(self, folder: str):
        os.environ[library_loader.LIBRARY_DIR_ENV] = folder
        self.addCleanup(os.environ.pop, library_loader.LIBRARY_DIR_ENV, None)
        return library_loader.load_op_library(_LIBRARY, _PACKAGE_DIR, ":my_bilinear_op.so")

    def test_candidates_are_package_dir_then_bazel_bin(self):
        candidates = library_loader.library_candidates(_LIBRARY, _PACKAGE_DIR)
        self.assertEqual(candidates[0], os.path.join(_PACKAGE_DIR, _LIBRARY))
        self.assertTrue(candidates[1].endswith(
            os.path.join("bazel-bin", "tensorflow_ops", "my_bilinear", _LIBRARY)))

    def test_environment_variable_is_the_only_place_when_set(self):
        os.environ[library_loader.LIBRARY_DIR_ENV] = os.pathsep.join(["/a", "/b"])
        self.addCleanup(os.environ.pop, library_loader.LIBRARY_DIR_ENV, None)
        self.assertEqual(library_loader.library_candidates(_LIBRARY, _PACKAGE_DIR),
                         [os.path.join("/a", _LIBRARY), os.path.join("/b", _LIBRARY)])

    def test_library_records_the_tensorflow_it_was_built_against(self):
        self.assertEqual(library_loader.built_against(_built_library()), tf.__version__)

    def _import_in_subprocess(self, code: str) -> subprocess.CompletedProcess:
        """Runs `code` in a fresh Python whose library folder is self.folder
        (a process can register an op library only once)."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
                   TF_CPP_MIN_LOG_LEVEL="3")
        env[library_loader.LIBRARY_DIR_ENV] = self.folder
        return subprocess.run([sys.executable, "-c", code], env=env,
                              capture_output=True, text=True, check=False)

    def test_library_in_environment_folder_is_the_one_loaded(self):
        shutil.copy(_built_library(), self.folder)
        result = self._import_in_subprocess(
            "from tensorflow_ops.my_bilinear import my_bilinear\n"
            "print(my_bilinear([[[[1.0]]]], (2, 2)).shape)\n"
            "print(open('/proc/self/maps').read())")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(1, 2, 2, 1)", result.stdout)
        self.assertIn(os.path.join(os.path.realpath(self.folder), _LIBRARY), result.stdout)

    def test_missing_library_fails_import_with_build_command(self):
        result = self._import_in_subprocess("import tensorflow_ops.my_bilinear")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("ImportError: my_bilinear_op.so was not found", result.stderr)
        self.assertIn("bazel build :my_bilinear_op.so", result.stderr)

    def test_library_built_for_another_tensorflow_is_refused(self):
        with open(_built_library(), "rb") as library:
            content = library.read()
        start = content.index(_MARKER) + len(_MARKER)
        # Same length, another major release.
        other = b"1" if content[start:start + 1] != b"1" else b"3"
        with open(os.path.join(self.folder, _LIBRARY), "wb") as library:
            library.write(content[:start] + other + content[start + 1:])
        other_version = other.decode() + tf.__version__[1:]
        with self.assertRaisesRegex(
                ImportError,
                rf"built against TensorFlow {other_version}, but this Python has "
                rf"TensorFlow {tf.__version__}\. Rebuild it with .*"
                r"bazel build :my_bilinear_op\.so"):
            self._load_from(self.folder)

    def test_unloadable_library_raises_import_error(self):
        with open(os.path.join(self.folder, _LIBRARY), "wb") as library:
            library.write(b"not a shared library")
        with self.assertRaisesRegex(ImportError, r"could not be loaded.*Rebuild it"):
            self._load_from(self.folder)


if __name__ == "__main__":
    tf.test.main()
