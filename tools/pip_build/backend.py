"""PEP 517 build backend: `pip install --no-build-isolation .` without Bazel.

pyproject.toml names it (`backend-path = ["."]`, so it is imported from the
source tree). It compiles the op libraries with the C++ compiler
(tools/pip_build/build.py) and packages them exactly as `bazel run
//:build_pip_pkg` does, with the functions of tools/build_pip_pkg.py: the same
files, version markers, metadata and platform tag, and the same refusal of a
wheel that would miss an op library of the tree.

Settings (environment, or pip's --config-settings KEY=VALUE):
  TENSORFLOW_OPS_CUDA=1   (cuda=1)   also compile the gpu_srcs with nvcc
  TENSORFLOW_OPS_JOBS=N   (jobs=N)   compiles at a time (default: one per CPU)
  TENSORFLOW_OPS_BUILD_DIR=DIR       keep objects there and recompile only what
                                     changed (default: a temporary folder)
  CXX                                the C++ compiler (default: g++)
It must run with the TensorFlow it builds against importable, so pip needs
--no-build-isolation; it downloads nothing and needs wheel and auditwheel
(requirements.txt pins them), as build_pip_pkg does.
"""

import importlib.util
import os
import shutil
import tempfile
import time
from typing import Any, Dict, List, Optional

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_TOOLS_NEEDED = ("wheel", "auditwheel", "tensorflow")


def _setting(config_settings: Optional[Dict[str, Any]], key: str, env: str) -> str:
    value = (config_settings or {}).get(key)
    return str(value) if value is not None else os.environ.get(env, "")


def _switch(config_settings: Optional[Dict[str, Any]], key: str, env: str) -> bool:
    """A 0/1 setting; anything else ("true", "yes", "on") is refused rather than
    read as off, which would build a CPU-only wheel unannounced."""
    value = _setting(config_settings, key, env).strip()
    if value not in ("", "0", "1"):
        raise SystemExit(f"{env}={value!r} (or {key}={value!r}): expected 1 or 0")
    return value == "1"


def _check_environment() -> None:
    missing = [name for name in _TOOLS_NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(
            f"The pip build needs {', '.join(missing)} importable by the Python pip "
            "runs: install TensorFlow and requirements.txt first, and pass "
            "--no-build-isolation (the build uses the installed TensorFlow).")


def get_requires_for_build_wheel(config_settings=None) -> List[str]:
    """Nothing to install: the build runs with --no-build-isolation against the
    installed TensorFlow (an isolated build would download another one)."""
    del config_settings
    return []


def get_requires_for_build_sdist(config_settings=None) -> List[str]:
    del config_settings
    return []


def build_sdist(sdist_directory: str, config_settings=None) -> str:
    """Refused: a source distribution would have to pin the TensorFlow it is
    built against at install time, which pip's isolated build cannot provide."""
    del sdist_directory, config_settings
    raise SystemExit("tensorflow_ops has no sdist: install from the source tree "
                     "(pip install --no-build-isolation .) or build a wheel "
                     "(pip wheel --no-build-isolation . / bazel run //:build_pip_pkg).")


def build_wheel(wheel_directory: str, config_settings=None,
                metadata_directory=None) -> str:
    """Compiles the op libraries and packs the wheel; returns its file name."""
    del metadata_directory  # pip's fallback: the metadata is the wheel's own
    _check_environment()
    # Imported here: they import TensorFlow, which get_requires_* must not need.
    from tools import build_pip_pkg  # pylint: disable=g-import-not-at-top
    from tools.pip_build import build, compiler, targets  # pylint: disable=g-import-not-at-top

    start = time.monotonic()
    cuda = _switch(config_settings, "cuda", "TENSORFLOW_OPS_CUDA")
    jobs_setting = _setting(config_settings, "jobs", "TENSORFLOW_OPS_JOBS")
    if jobs_setting:
        os.environ["TENSORFLOW_OPS_JOBS"] = jobs_setting
    jobs = compiler.default_jobs()
    kept_build_dir = os.environ.get("TENSORFLOW_OPS_BUILD_DIR", "")
    with tempfile.TemporaryDirectory(prefix="tensorflow_ops_pip_") as work_dir:
        build_dir = os.path.abspath(kept_build_dir) if kept_build_dir else \
            os.path.join(work_dir, "build")
        built = build.build_libraries(_ROOT, build_dir, cuda, jobs)

        staging_dir = os.path.join(work_dir, "staging")
        build_pip_pkg.stage_package(staging_dir, os.path.join(_ROOT, "tensorflow_ops"),
                                    python_files=targets.python_files(_ROOT))
        for wheel_path, built_path in built.items():
            target = os.path.join(staging_dir, wheel_path)
            shutil.copyfile(built_path, target)
            os.chmod(target, 0o755)
        libraries = sorted(built)
        build_pip_pkg.check_complete(_ROOT, libraries)
        wheel, version, tag = build_pip_pkg.pack_wheel(staging_dir, libraries,
                                                       wheel_directory, work_dir)
    compiler.log(f"built {wheel} (TensorFlow {version}, {tag}) in "
                 f"{time.monotonic() - start:.1f} s")
    return os.path.basename(wheel)
