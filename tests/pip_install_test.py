"""`pip install --no-build-isolation --no-index .` builds the op libraries without
Bazel and installs a package that works from outside the checkout, with the bits
of the Bazel build's library.

One pip install (setUpClass; the compile is the cost, see docs/pip_build.md)
of a read-only copy of the checkout (no bazel-* links, .venv or .git) into a
fresh virtual environment that reuses the installed TensorFlow through a .pth
file, with a `bazel` first on PATH that records any call and fails. Then
tests/pip_install_probe.py runs against the installed package and, at the same
time, against the Bazel-built library, and every result is compared byte for
byte.

Under `bazel test`, the copy and the build's objects (TENSORFLOW_OPS_BUILD_DIR)
stay in the outer Bazel's output base, as tests/nested_bazel_cache.py keeps the
nested builds': the next run recompiles only the sources whose command, source
or headers changed, and so a fresh output base (CI's) compiles everything.
PIP_INSTALL_TEST_CACHE (through --test_env) moves that folder; empty turns it
off.

The Bazel library: $TENSORFLOW_OPS_REFERENCE_LIBRARY, else the runfiles'
tensorflow_ops/my_bilinear/my_bilinear_op.so (the py_test's data), else the
source tree's bazel-bin/. A missing one fails the test; nothing here skips.
"""

import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List

import tensorflow as tf

from tests import nested_bazel_cache

_PIP_SECONDS = int(os.environ.get("PIP_INSTALL_TEST_TIMEOUT", "2400"))
_PROBE_SECONDS = 300
_LIBRARY = os.path.join("tensorflow_ops", "my_bilinear", "my_bilinear_op.so")
# Not copied: Bazel's output links (following them would copy the Bazel
# build into the tree pip builds), environments, history, earlier builds.
_NOT_COPIED = (".venv", ".git", "dist", "__pycache__", ".tf_configure.bazelrc")
_BAZEL_SHIM = """#!/bin/sh
echo "$@" >> "{log}"
echo "bazel must not run in the pip build" >&2
exit 97
"""


def _runfiles_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _source_tree() -> str:
    """The repository, behind Bazel's runfiles symlink of this file."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _reference_library() -> str:
    candidates = [os.environ.get("TENSORFLOW_OPS_REFERENCE_LIBRARY", ""),
                  os.path.join(_runfiles_root(), _LIBRARY),
                  os.path.join(_source_tree(), "bazel-bin", _LIBRARY)]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate):
            return os.path.realpath(candidate)
    raise AssertionError(f"No Bazel-built {_LIBRARY} to compare with; looked in "
                         f"{[c for c in candidates if c]}. Build it (bazel build "
                         ":my_bilinear_op.so) or set TENSORFLOW_OPS_REFERENCE_LIBRARY.")


def _ignored(folder: str, names: List[str]) -> List[str]:
    """The names in `folder` of the source tree that the copy leaves out."""
    top = os.path.realpath(folder) == _source_tree()
    return [n for n in names if n in _NOT_COPIED or (top and n.startswith("bazel-"))
            or n.endswith((".so", ".pyc"))]


def _copy_if_changed(source: str, target: str) -> None:
    """Copies a file unless `target` already holds its bytes, which then keeps
    its time: a copied file is newer than any object compiled from the old
    one, whatever the source's own time."""
    if os.path.isfile(target) and not os.path.islink(target):
        with open(source, "rb") as new, open(target, "rb") as old:
            if new.read() == old.read():
                return
    if os.path.lexists(target):
        os.remove(target)
    shutil.copyfile(source, target)
    shutil.copymode(source, target)


def _update_copy(copy: str) -> None:
    """Makes `copy` (a folder, perhaps empty) hold the source tree's files but
    the ignored ones, rewriting only those whose bytes changed and removing
    those gone from the tree."""
    for folder, dirs, files in os.walk(copy, topdown=False):
        original = os.path.join(_source_tree(), os.path.relpath(folder, copy))
        kept = set(os.listdir(original)) if os.path.isdir(original) else set()
        kept -= set(_ignored(original, sorted(kept)))
        for name in files + dirs:
            path = os.path.join(folder, name)
            twin = os.path.join(original, name)
            if name not in kept or os.path.isdir(path) != os.path.isdir(twin):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.remove(path)
    shutil.copytree(_source_tree(), copy, ignore=_ignored, dirs_exist_ok=True,
                    copy_function=_copy_if_changed)


def _set_writable(tree: str, writable: bool) -> None:
    for folder, _, files in os.walk(tree):
        for path in [folder] + [os.path.join(folder, f) for f in files]:
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            os.chmod(path, mode | stat.S_IWUSR if writable else
                     mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _clean_env() -> Dict[str, str]:
    """The caller's environment without anything that points into the repository
    or configures pip."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "TENSORFLOW_OPS_LIBRARY_DIR", "RUNFILES_DIR",
                          "PYTHON_RUNFILES", "TENSORFLOW_OPS_BUILD_DIR")
           and not key.startswith("PIP_")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


class PipInstallTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.reference = _reference_library()
        cls.work_dir = tempfile.mkdtemp(prefix="pip_install_test_")
        # Where the copy and the objects stay between runs; None: a fresh
        # copy and build in work_dir.
        kept = nested_bazel_cache.kept_folder("PIP_INSTALL_TEST_CACHE",
                                              "pip_install_test_cache")
        if kept:
            os.makedirs(kept, exist_ok=True)
            cls.lock = open(os.path.join(kept, "lock"), "w")
            try:
                fcntl.flock(cls.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # another run holds the folder: build afresh
                cls.lock.close()
                kept = None
        # A kept copy is at the same path each run, so that the kept objects'
        # commands match; only files whose bytes changed are rewritten (and so
        # newer than the objects), as the build checks times, not contents.
        cls.build_dir = os.path.join(kept, "build") if kept else None
        cls.checkout = os.path.join(kept or cls.work_dir, "checkout")
        os.makedirs(cls.checkout, exist_ok=True)
        _set_writable(cls.checkout, True)
        _update_copy(cls.checkout)
        _set_writable(cls.checkout, False)  # the build must write elsewhere
        cls.bazel_log = os.path.join(cls.work_dir, "bazel_calls.log")
        shim = os.path.join(cls.work_dir, "shim")
        os.makedirs(shim)
        with open(os.path.join(shim, "bazel"), "w") as bazel:
            bazel.write(_BAZEL_SHIM.format(log=cls.bazel_log))
        os.chmod(os.path.join(shim, "bazel"), 0o755)

        cls.venv = os.path.join(cls.work_dir, "venv")
        cls.python = os.path.join(cls.venv, "bin", "python")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", cls.venv],
                       check=True, timeout=120)
        site_packages = subprocess.run(
            [cls.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True, timeout=60).stdout.strip()
        tensorflow_site = os.path.dirname(os.path.dirname(tf.__file__))
        with open(os.path.join(site_packages, "installed_tensorflow.pth"), "w") as pth:
            pth.write(tensorflow_site + "\n")

        env = _clean_env()
        env["PATH"] = shim + os.pathsep + env.get("PATH", "")
        if cls.build_dir:
            env["TENSORFLOW_OPS_BUILD_DIR"] = cls.build_dir
        cls.install = subprocess.run(
            [cls.python, "-m", "pip", "install", "-v", "--no-build-isolation",
             "--no-index", cls.checkout],
            capture_output=True, text=True, timeout=_PIP_SECONDS, check=False,
            env=env, cwd=cls.work_dir)
        log = os.environ.get("PIP_INSTALL_TEST_LOG")
        if log:
            with open(log, "w") as log_file:
                log_file.write(cls.install.stdout + cls.install.stderr)
        # Both probes at once: each is one process, mostly importing
        # TensorFlow, and this test often runs last, alone on the machine.
        cls.probes = {}
        cls.facts = {}
        cls.timed_out = set()
        if cls.install.returncode == 0:
            cls._start_probe(cls.python, dict(_clean_env(), PROBE_ALL_PACKAGES="1"),
                             "installed")
        cls._start_probe(sys.executable,
                         dict(_clean_env(), PYTHONPATH=_source_tree(),
                              TENSORFLOW_OPS_LIBRARY_DIR=os.path.dirname(cls.reference)),
                         "bazel")

    @classmethod
    def tearDownClass(cls):
        for probe in cls.probes.values():  # a test that failed first left it
            if probe.poll() is None:
                probe.kill()
            probe.wait()
        _set_writable(cls.checkout, True)
        shutil.rmtree(cls.work_dir)
        if cls.build_dir:
            cls.lock.close()
        super().tearDownClass()

    @classmethod
    def _start_probe(cls, python: str, env: Dict[str, str], name: str) -> None:
        """Starts the probe from a folder outside the checkout; it leaves its
        .npy files in <work_dir>/<name>."""
        out_dir = os.path.join(cls.work_dir, name)
        os.makedirs(out_dir)
        outside = tempfile.mkdtemp(dir=cls.work_dir)
        probe = shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "pip_install_probe.py"), outside)
        # The probes run side by side: where there is a GPU, neither may take
        # most of its memory up front (TensorFlow's and JAX's default), or the
        # other could not run.
        env = dict(env, TF_FORCE_GPU_ALLOW_GROWTH="true",
                   XLA_PYTHON_CLIENT_PREALLOCATE="false")
        # Its output goes to files, which never fill as a pipe nobody reads
        # yet would.
        with open(os.path.join(outside, "stdout"), "w") as stdout, \
                open(os.path.join(outside, "stderr"), "w") as stderr:
            cls.probes[name] = subprocess.Popen([python, probe, out_dir], stdout=stdout,
                                                stderr=stderr, env=env, cwd=outside)

    def _probe_facts(self, name: str) -> Dict:
        """The facts the probe `name` printed, once it has ended."""
        if name not in self.facts:
            probe = self.probes[name]
            try:
                probe.wait(timeout=_PROBE_SECONDS)
            except subprocess.TimeoutExpired:
                probe.kill()
                probe.wait()
                self.timed_out.add(name)  # for the tests after this one too
            ended = f" (killed after {_PROBE_SECONDS} s)" if name in self.timed_out else ""
            outside = os.path.dirname(probe.args[1])
            with open(os.path.join(outside, "stdout")) as stdout, \
                    open(os.path.join(outside, "stderr")) as stderr:
                printed, logged = stdout.read(), stderr.read()
            self.assertEqual(probe.returncode, 0,
                             f"the {name} probe{ended}: {printed}{logged}")
            self.facts[name] = json.loads(printed.strip().splitlines()[-1])
        return self.facts[name]

    def _installed_facts(self) -> Dict:
        """The probe's facts in the fresh environment (run once for all tests)."""
        self.assertEqual(self.install.returncode, 0,
                         self.install.stdout[-20000:] + self.install.stderr[-20000:])
        return self._probe_facts("installed")

    def test_built_without_bazel_from_a_read_only_copy(self):
        self.assertEqual(self.install.returncode, 0,
                         self.install.stdout[-20000:] + self.install.stderr[-20000:])
        self.assertFalse(os.path.exists(self.bazel_log), "pip ran bazel")
        # pip -v shows the backend's log on stderr.
        log = self.install.stdout + self.install.stderr
        self.assertIn("[pip_build] op libraries built in", log)
        # The macros' flags (build_flags.bzl) are on the command line of the
        # XLA kernels' compile: the first of a fresh build, and recorded beside
        # its object in a kept one, which may not have compiled it this time.
        flags = (r"\S*g\+\+ -DNDEBUG -fPIC .*-std=c\+\+17 -O2 -fvect-cost-model=dynamic "
                 r"-fvisibility-inlines-hidden --param=ggc-min-heapsize=4194304 "
                 r"-ffp-contract=off .*_xla\.cc")
        if self.build_dir is None:
            self.assertRegex(log, "first command: " + flags)
        else:
            xla = "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_xla.cc"
            recorded = os.path.join(self.build_dir, "objs", "tensorflow_ops", "my_bilinear",
                                    "my_bilinear_op.so", xla + ".o.cmd")
            with open(recorded) as recorded_file:
                self.assertRegex(recorded_file.read(), flags)

    def test_installed_package_works_outside_the_checkout(self):
        facts = self._installed_facts()
        self.assertTrue(facts["package_file"].startswith(self.venv), facts["package_file"])
        self.assertEqual(facts["packages"], ["my_bilinear", "split_at", "zero_out"])
        self.assertEqual(facts["built_against"], tf.__version__)
        self.assertEqual(facts["forward_error"], 0.0)  # bitwise ResizeBilinear in float32
        self.assertLess(facts["gradient_error"], 1e-6)
        self.assertLess(facts["jit_forward_error"], 1e-4)  # |values| <= 150
        self.assertEqual(facts["layer_config"], [5, 6])
        # The pip build's JAX FFI library, from the installed package.
        self.assertTrue(facts["jax_ffi_library"].startswith(self.venv), facts["jax_ffi_library"])
        self.assertTrue(facts["jax_forward_is_tf"])

    def test_bits_equal_the_bazel_built_library(self):
        self._installed_facts()
        reference = self._probe_facts("bazel")
        self.assertTrue(reference["package_file"].startswith(_source_tree()))
        installed = sorted(os.listdir(os.path.join(self.work_dir, "installed")))
        self.assertEqual(installed, sorted(os.listdir(os.path.join(self.work_dir, "bazel"))))
        self.assertGreater(len(installed), 40)
        different = []
        for name in installed:
            with open(os.path.join(self.work_dir, "installed", name), "rb") as pip_file, \
                    open(os.path.join(self.work_dir, "bazel", name), "rb") as bazel_file:
                if pip_file.read() != bazel_file.read():
                    different.append(name)
        self.assertEqual(different, [], f"pip build differs from {self.reference}")


if __name__ == "__main__":
    unittest.main()
