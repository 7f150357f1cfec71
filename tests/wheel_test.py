"""The wheel from //:build_pip_pkg installs into a fresh virtual environment that
already has TensorFlow, without pulling in another one, and its ops, layer,
gradient and .keras round trip work from a folder outside the repository."""

import glob
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from typing import List

import tensorflow as tf

from tensorflow_ops import test_util

_SECONDS = 180

# Runs inside the fresh environment, from a temporary folder.
_USE_INSTALLED_WHEEL = """
import importlib, os, pkgutil, sys
import keras
import numpy as np
import tensorflow as tf
import tensorflow_ops
from tensorflow_ops import _build_info
from tensorflow_ops.my_bilinear import MyBilinearLayer

# Every op package of the wheel loads its library.
packages = [m.name for m in pkgutil.iter_modules(tensorflow_ops.__path__) if m.ispkg]
for name in packages:
    importlib.import_module("tensorflow_ops." + name)
print("packages", ",".join(sorted(packages)))
print("package_file", tensorflow_ops.__file__)
print("built_against", _build_info.TENSORFLOW_RELEASE, tf.__version__)

images = tf.constant(np.random.default_rng(0).random((2, 3, 4, 2)), tf.float32)
inputs = keras.Input(shape=(None, None, 2))
model = keras.Model(inputs, MyBilinearLayer((5, 6), align_corners=False,
                                            half_pixel_centers=True)(inputs))
with tf.GradientTape(persistent=True) as tape:
    tape.watch(images)
    resized = model(images)
    expected = tf.image.resize(images, (5, 6), method="bilinear")
    weights = tf.reshape(tf.range(2 * 5 * 6 * 2, dtype=tf.float32), (2, 5, 6, 2))
    loss, expected_loss = [tf.reduce_sum(weights * r) for r in (resized, expected)]
print("forward_error", float(tf.reduce_max(tf.abs(resized - expected))))
gradient, expected_gradient = [tape.gradient(l, images) for l in (loss, expected_loss)]
print("gradient_error", float(tf.reduce_max(tf.abs(gradient - expected_gradient))
                              / tf.reduce_max(tf.abs(expected_gradient))))
model.save("model.keras")
reloaded = keras.models.load_model("model.keras")
print("reload_equal", bool(np.array_equal(reloaded(images), resized)))
"""


def _runfiles_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _builder() -> str:
    return os.path.join(_runfiles_root(), "tools", "build_pip_pkg")


def _source_tree() -> str:
    """The repository, behind Bazel's runfiles symlink of this file."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _declared_op_libraries(workspace: str) -> List[str]:
    """Every tf_custom_op_library and jax_ffi_library under tensorflow_ops/, read
    from the BUILD files, but the template op's (tools/new_op.py copies it; the
    wheel leaves it out)."""
    libraries = []
    for build_file in glob.glob(os.path.join(workspace, "tensorflow_ops", "**", "BUILD"),
                                recursive=True):
        if os.path.dirname(build_file).endswith(os.path.join("tensorflow_ops", "op_template")):
            continue
        with open(build_file) as build:
            names = re.findall(
                r'(?:tf_custom_op_library|jax_ffi_library)\(\s*name\s*=\s*"([^"]+)"',
                build.read())
        folder = os.path.relpath(os.path.dirname(build_file), workspace)
        libraries.extend(f"{folder}/{name}" for name in names)
    return sorted(libraries)


def _clean_env() -> dict:
    """The caller's environment without anything that points into the repository."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "TENSORFLOW_OPS_LIBRARY_DIR", "RUNFILES_DIR",
                          "PYTHON_RUNFILES")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def _run(command, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=_SECONDS,
                          check=False, **kwargs)


class WheelTest(test_util.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.work_dir = tempfile.mkdtemp()
        result = _run([_builder(), os.path.join(cls.work_dir, "dist"),
                       "--workspace", _source_tree()])
        if result.returncode != 0:
            raise AssertionError(f"build_pip_pkg failed:\n{result.stdout}{result.stderr}")
        (name,) = os.listdir(os.path.join(cls.work_dir, "dist"))
        cls.wheel = os.path.join(cls.work_dir, "dist", name)
        cls.venv = os.path.join(cls.work_dir, "venv")
        cls.python = os.path.join(cls.venv, "bin", "python")
        cls._make_venv_with_installed_tensorflow()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work_dir)
        super().tearDownClass()

    @classmethod
    def _make_venv_with_installed_tensorflow(cls):
        """A fresh venv that sees this Python's site-packages (TensorFlow, pip)
        through a .pth file instead of downloading them again."""
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", cls.venv],
                       check=True, timeout=_SECONDS)
        site_packages = _run([cls.python, "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
        tensorflow_site = os.path.dirname(os.path.dirname(tf.__file__))
        with open(os.path.join(site_packages, "installed_tensorflow.pth"), "w") as pth:
            pth.write(tensorflow_site + "\n")

    def _pip_install(self, requirement: str) -> subprocess.CompletedProcess:
        # No configuration (it may name local wheel folders) and no index: pip
        # has nowhere to get anything from, so a missing requirement fails.
        env = {key: value for key, value in _clean_env().items()
               if not key.startswith("PIP_")}
        env["PIP_CONFIG_FILE"] = os.devnull
        return _run([self.python, "-m", "pip", "install", "--no-index", requirement],
                    env=env, cwd=self.work_dir)

    def test_platform_tag_is_auditwheels_with_only_tensorflow_external(self):
        report = json.loads(_run([sys.executable, "-m", "auditwheel", "show", "--json",
                                  self.wheel]).stdout)
        # TensorFlow's own libraries (libtensorflow_cc holds XLA's tf2xla) and
        # nothing else.
        self.assertIn("libtensorflow_framework.so.2", report["external_libs"])
        self.assertLessEqual(set(report["external_libs"]),
                             {"libtensorflow_framework.so.2", "libtensorflow_cc.so.2"})
        self.assertTrue(report["sym_tag"].startswith("manylinux_"), report)
        self.assertTrue(os.path.basename(self.wheel).endswith(
            f"-py3-none-{report['sym_tag']}.whl"), self.wheel)

    def test_wheel_holds_every_op_library_of_the_workspace_and_no_tests(self):
        declared = _declared_op_libraries(_source_tree())
        self.assertIn("tensorflow_ops/my_bilinear/my_bilinear_op.so", declared)
        self.assertIn("tensorflow_ops/my_bilinear/my_bilinear_jax_ffi.so", declared)
        with zipfile.ZipFile(self.wheel) as wheel:
            names = wheel.namelist()
        self.assertEqual(sorted(name for name in names if name.endswith(".so")), declared)
        self.assertFalse([name for name in names if name.endswith("_test.py")])

    def test_op_library_missing_from_the_wheel_is_refused(self):
        """A source tree with one more op library than //tensorflow_ops:all_ops."""
        tree = tempfile.mkdtemp(dir=self.work_dir)
        for package, library in [("my_bilinear", "my_bilinear_op.so"),
                                 ("new_op", "new_op.so")]:
            os.makedirs(os.path.join(tree, "tensorflow_ops", package))
            with open(os.path.join(tree, "tensorflow_ops", package, "BUILD"), "w") as build:
                build.write(f'tf_custom_op_library(\n    name = "{library}",\n)\n')
        result = _run([_builder(), os.path.join(tree, "dist"), "--workspace", tree])
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("The wheel would miss ['tensorflow_ops/new_op/new_op.so']",
                      result.stderr)
        self.assertFalse(glob.glob(os.path.join(tree, "dist", "*.whl")))

    def test_metadata_requires_no_tensorflow_unless_asked(self):
        with zipfile.ZipFile(self.wheel) as wheel:
            (metadata_name,) = [n for n in wheel.namelist() if n.endswith("/METADATA")]
            metadata = wheel.read(metadata_name).decode()
        release = ".".join(tf.__version__.split(".")[:2])
        requirements = [line for line in metadata.splitlines()
                        if line.startswith("Requires-Dist:")]
        self.assertEqual(sorted(requirements), [
            f'Requires-Dist: tensorflow-cpu~={release}.0; extra == "tensorflow-cpu"',
            f'Requires-Dist: tensorflow~={release}.0; extra == "tensorflow"',
        ])

    def test_installs_next_to_tensorflow_and_works_outside_the_repository(self):
        installed = self._pip_install(self.wheel)
        self.assertEqual(installed.returncode, 0, installed.stdout + installed.stderr)
        # The extra naming the installed TensorFlow is already satisfied.
        installed_tf = _installed_tensorflow()
        with_extra = self._pip_install(f"{self.wheel}[{installed_tf}]")
        self.assertEqual(with_extra.returncode, 0, with_extra.stdout + with_extra.stderr)
        self.assertIn(f"Requirement already satisfied: {installed_tf}", with_extra.stdout)

        outside = tempfile.mkdtemp(dir=self.work_dir)
        result = _run([self.python, "-c", _USE_INSTALLED_WHEEL], env=_clean_env(),
                      cwd=outside)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        self.assertIn("my_bilinear", lines["packages"].split(","))
        self.assertTrue(lines["package_file"].startswith(self.venv), lines["package_file"])
        release, version = lines["built_against"].split()
        self.assertEqual(release, ".".join(version.split(".")[:2]))
        self.assertLess(float(lines["forward_error"]), 1e-6)
        self.assertLess(float(lines["gradient_error"]), 1e-6)
        self.assertEqual(lines["reload_equal"], "True")


def _installed_tensorflow() -> str:
    """The distribution that provides the `tensorflow` module here."""
    names = {dist.metadata["Name"].lower().replace("_", "-")
             for dist in importlib.metadata.distributions()}
    return "tensorflow-cpu" if "tensorflow-cpu" in names else "tensorflow"


if __name__ == "__main__":
    tf.test.main()
