"""The disk cache that the tests running Bazel inside a test share.

new_op_bazel_test and vendor_into_tf_bazel_test each start a Bazel of their own
in a fresh output root, which compiles every source of its workspace again.
Given `--disk_cache` (Bazel's content-addressed store of action outputs), a
nested run reuses the objects and libraries that an earlier one built with the
same command line and inputs: running the end-to-end tests again on one
machine reuses what the last run built. The nested tests themselves always run
again (`--nocache_test_results`): the Python interpreter, its packages and the
GPUs present are not inputs of a test action, so a cached result could hide a
failure they cause.

The cache lives in the outer Bazel's output base, beside the execroot that runs
the test, so `bazel clean --expunge` removes it with everything else (do that
after upgrading the compiler in place, which, as for the outer build, is not
part of any key). Bazel 4 never trims a disk cache, so one past MAX_BYTES is
emptied before a run.
"""

import os
import shutil
from typing import List, Optional

# Past this, the next run starts the cache again (one run adds about 20 MB).
MAX_BYTES = 2 << 30
_FOLDER = "nested_bazel_disk_cache"
# The flags every nested build command takes with the cache.
_WITH_CACHE = ["--nocache_test_results"]


def outer_output_base() -> Optional[str]:
    """The output base of the Bazel running this test: the folder above the
    last execroot/ in the runfiles' real path; None outside `bazel test`
    (pip_install_test keeps its objects there too)."""
    runfiles = os.environ.get("TEST_SRCDIR")
    if not runfiles or not os.path.isabs(runfiles):
        return None
    real = os.path.realpath(runfiles)
    marker = os.sep + "execroot" + os.sep
    if marker not in real:
        return None
    return real[:real.rindex(marker)]


def _size(folder: str) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # removed by another run meanwhile
    return total


def kept_folder(variable: str, name: str) -> Optional[str]:
    """The absolute folder that $variable names (passed with --test_env), else
    `name` in the outer output base; None outside `bazel test` or where the
    variable is empty (nothing kept)."""
    folder = os.environ.get(variable)
    if folder is None:
        base = outer_output_base()
        if base is None:
            return None
        folder = os.path.join(base, name)
    return os.path.abspath(os.path.expanduser(folder)) if folder else None


def flags() -> List[str]:
    """`--disk_cache=<folder> --nocache_test_results` for a nested Bazel build
    or test command, or nothing where this does not run under Bazel or the
    folder cannot be made ($NESTED_BAZEL_DISK_CACHE, passed with --test_env,
    overrides the folder; empty turns the cache off)."""
    # Absolute: the nested Bazel runs in another folder than this test.
    folder = kept_folder("NESTED_BAZEL_DISK_CACHE", _FOLDER)
    if folder is None:
        return []
    try:
        if os.path.isdir(folder) and _size(folder) > MAX_BYTES:
            shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return []  # no cache: slower, the same test
    return [f"--disk_cache={folder}"] + _WITH_CACHE
