"""Finds and loads the compiled op libraries of this package.

A library is looked for, in order:
  1. in the folders named by $TENSORFLOW_OPS_LIBRARY_DIR (os.pathsep-separated);
     when this variable is set, nowhere else;
  2. next to the op's Python package (an installed wheel, or Bazel's runfiles);
  3. in `bazel-bin/` of the source tree this package was imported from.

Every op library carries a marker of the TensorFlow version it was compiled
against (see third_party/tf/tf_configure.bzl). A library built for another
TensorFlow release is refused with an ImportError before it is loaded, since
loading it would fail with missing symbols or, worse, misbehave.

TensorFlow is imported only by load_op_library: finding a library
(find_library) works without it, for libraries that link nothing of TensorFlow
(the XLA FFI library of tensorflow_ops.my_bilinear.jax_ops).
"""

import mmap
import os
from typing import List, Optional

LIBRARY_DIR_ENV = "TENSORFLOW_OPS_LIBRARY_DIR"

# Keep in sync with _BUILD_INFO_MARKER in third_party/tf/tf_configure.bzl.
_BUILD_INFO_MARKER = b"tensorflow_ops_built_against_tf="

_ROOT_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCE_TREE = os.path.dirname(_ROOT_PACKAGE_DIR)


def library_candidates(library_name: str, package_dir: str) -> List[str]:
    """Returns the paths where `library_name` of the op package is looked for."""
    override = os.environ.get(LIBRARY_DIR_ENV)
    if override:
        return [os.path.join(folder, library_name)
                for folder in override.split(os.pathsep) if folder]
    package_in_tree = os.path.relpath(package_dir, _SOURCE_TREE)
    return [
        os.path.join(package_dir, library_name),
        os.path.join(_SOURCE_TREE, "bazel-bin", package_in_tree, library_name),
    ]


def built_against(library_path: str) -> Optional[str]:
    """Returns the TensorFlow version recorded in the library, or None if absent."""
    with open(library_path, "rb") as library_file:
        if os.fstat(library_file.fileno()).st_size == 0:
            return None
        with mmap.mmap(library_file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            start = data.find(_BUILD_INFO_MARKER)
            if start < 0:
                return None
            start += len(_BUILD_INFO_MARKER)
            end = data.find(b";", start, start + 64)
            return data[start:end].decode("ascii") if end > 0 else None


def _release(version: str) -> str:
    """'2.21.0' -> '2.21': TensorFlow keeps its C++ ABI within a minor release."""
    return ".".join(version.split(".")[:2])


def find_library(library_name: str, package_dir: str, build_target: str) -> str:
    """Returns the path of the first of library_candidates that exists.

    Raises:
      ImportError: none exists; the message names where it looked and says how
        to build the library (`build_target`, a Bazel target).
    """
    build_command = f"python3 configure.py && bazel build {build_target}"
    candidates = library_candidates(library_name, package_dir)
    found = next((path for path in candidates if os.path.isfile(path)), None)
    if found is None:
        raise ImportError(
            f"{library_name} was not found; looked in: {', '.join(candidates)}. "
            f"Build it from the repository root with `{build_command}`, or set "
            f"{LIBRARY_DIR_ENV} to the folder that holds it.")
    return found


def load_op_library(library_name: str, package_dir: str, build_target: str):
    """Loads the op library of the package in `package_dir`.

    Args:
      library_name: file name of the library, e.g. "my_bilinear_op.so".
      package_dir: folder of the op's Python package, e.g. .../tensorflow_ops/my_bilinear.
      build_target: the Bazel target that builds it, named in error messages.

    Returns:
      The module of generated op functions that `tf.load_op_library` returns.

    Raises:
      ImportError: the library is missing, was built for another TensorFlow, or
        cannot be loaded; the message says how to build it.
    """
    import tensorflow as tf  # pylint: disable=g-import-not-at-top

    build_command = f"python3 configure.py && bazel build {build_target}"
    found = find_library(library_name, package_dir, build_target)
    built_version = built_against(found)
    if built_version is not None and _release(built_version) != _release(tf.__version__):
        raise ImportError(
            f"{found} was built against TensorFlow {built_version}, but this Python "
            f"has TensorFlow {tf.__version__}. Rebuild it with `{build_command}`.")
    try:
        return tf.load_op_library(found)
    except tf.errors.NotFoundError as error:
        raise ImportError(
            f"{found} (built against TensorFlow {built_version or 'unknown'}) could "
            f"not be loaded into TensorFlow {tf.__version__}: {error}. Rebuild it "
            f"with `{build_command}`.") from error
