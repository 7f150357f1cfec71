"""serve_saved_model (the C++ program beside this file) serves Keras exports
with MyBilinear bit for bit as Python does, and refuses every bad op library,
model, signature, argument and output with one line on stderr and a non-zero
exit, never a crash (docs/keras_saving_serving.md#serve-from-c). The .npy
inputs it refuses are serve_npy_input_test's."""

import os
import re
import resource
import shutil
import signal
import subprocess

import numpy as np
import tensorflow as tf

from examples.serve_cpp import serve_test_fixture as fixture


class ServeSavedModelTest(fixture.ServeFixture):

    def test_float32_output_equals_python_bit_for_bit(self):
        served = self._served(self.float_dir, self.images_path)
        self._assert_bitwise_equal(served, self.float_model(self.images))
        loaded = tf.saved_model.load(self.float_dir)  # kept: its variables live in it
        self._assert_bitwise_equal(served, loaded.serve(self.images))

    def test_the_serve_signature_gives_the_same(self):
        served = self._served(self.float_dir, self.images_path, ["--signature", "serve"])
        self._assert_bitwise_equal(served, self.float_model(self.images))

    def test_uint8_input_equals_python_bit_for_bit(self):
        images = fixture.images((3, 5, 2, 3), np.uint8, seed=1)
        served = self._served(self.uint8_dir, self._save("uint8.npy", images))
        self.assertEqual(served.dtype, np.float32)
        self._assert_bitwise_equal(served, self.uint8_model(images))

    def test_float16_output_is_written_as_float16(self):
        served = self._served(self.half_dir, self.images_path)
        self._assert_bitwise_equal(served, self.half_model(self.images))
        self.assertEqual(served.dtype, np.float16)

    def test_a_library_without_the_op_reports_it_unregistered(self):
        zero_out = fixture.op_library("zero_out", "zero_out_op.so")
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
            timeout=fixture.SECONDS, check=False, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertGreater(result.returncode, 0, result.stderr)
        output = self._path("no_such_folder/output.npy")
        self.assertEqual(self._program_lines(result), [
            f"serve_saved_model: {output}: cannot create the file: No such file or "
            "directory"])

    def test_a_failed_write_leaves_no_partial_output(self):
        def limit_file_size():
            # Writes past 4 KiB then fail with EFBIG instead of killing the process.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        images = self._save("many.npy", fixture.images((200, 4, 6, 3)))
        output = self._path("limited/output.npy")
        os.makedirs(os.path.dirname(output), exist_ok=True)
        result = subprocess.run(
            [self.binary, self.float_dir, self.library, images, output],
            capture_output=True, text=True, timeout=fixture.SECONDS, check=False,
            preexec_fn=limit_file_size, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertGreater(result.returncode, 0, result.stderr)
        self.assertRegex(self._program_lines(result)[-1], r"write error: File too large")
        self.assertEqual(os.listdir(os.path.dirname(output)), [])

    def test_a_folder_as_output_is_refused(self):
        result = subprocess.run(
            [self.binary, self.float_dir, self.library, self.images_path, self.folder],
            capture_output=True, text=True, timeout=fixture.SECONDS, check=False,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertGreater(result.returncode, 0, result.stderr)
        self.assertEqual(self._program_lines(result),
                         [f"serve_saved_model: {self.folder}: is a folder"])

    def test_an_output_symlink_writes_its_target(self):
        target, link = self._path("target.npy"), self._path("link.npy")
        self._write("target.npy", b"old")
        os.chmod(target, 0o600)
        os.symlink(target, link)
        result = subprocess.run(
            [self.binary, self.float_dir, self.library, self.images_path, link],
            capture_output=True, text=True, timeout=fixture.SECONDS, check=False,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.stat(target).st_mode & 0o777, 0o600)
        self._assert_bitwise_equal(np.load(target), self.float_model(self.images))

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
                               (decoy, fixture.op_library("zero_out", "zero_out_op.so"))):
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
        path = self._save("channels.npy", fixture.images((1, 4, 6, 2)))
        self._assert_refused(self._run(self.float_dir, path), "has shape")

    def test_a_wrong_dtype_is_refused(self):
        path = self._save("float64.npy", self.images.astype(np.float64))
        self._assert_refused(self._run(self.float_dir, path),
                             r"holds double \(<f8\), but the signature's input "
                             r"takes float")

    def test_bad_arguments_exit_2_with_the_usage(self):
        result = subprocess.run([self.binary, self.float_dir], capture_output=True,
                                text=True, timeout=fixture.SECONDS, check=False,
                                env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertRegex(self._program_lines(result)[0],
                         r"expected 4 paths, got 1; usage: serve_saved_model")

    # Damaged .npy files: each refused, naming the problem, before the model loads.

    def test_signature_given_twice_is_refused(self):
        result = self._run(self.float_dir, self.images_path,
                           extra=["--signature", "a", "--signature=b"])
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--signature is given more than once", result.stderr)


if __name__ == "__main__":
    tf.test.main()
