"""The disk cache that the tests running Bazel inside a test share.

new_op_bazel_test and vendor_into_tf_bazel_test each start a Bazel of their own
in a fresh output root, which compiles every source of its workspace again.
Given `--disk_cache` (Bazel's content-addressed store of action outputs), a
nested run reuses what an earlier one compiled with the same command line and
inputs: the CUDA run of new_op_bazel_test in .ci/run reuses the CPU objects of
the CPU run before it, and running `bazel test //...` again reuses both. A hit
is exact (the key is every input's digest and the command), so the tests prove
the same things as with a cold cache, only sooner.

The cache lives in the outer Bazel's output base, beside the execroot that runs
the test, so `bazel clean --expunge` removes it with everything else. Bazel 4
never trims a disk cache, so one past MAX_BYTES is emptied before a run.
"""

import os
import shutil
from typing import List, Optional

# Past this, the next run starts the cache again (one run adds about 100 MB).
MAX_BYTES = 2 << 30
_FOLDER = "nested_bazel_disk_cache"


def _outer_output_base() -> Optional[str]:
    """The output base of the Bazel running this test: the folder above
    execroot/ in the runfiles' real path; None outside `bazel test`."""
    runfiles = os.environ.get("TEST_SRCDIR")
    if not runfiles:
        return None
    real = os.path.realpath(runfiles)
    marker = os.sep + "execroot" + os.sep
    if marker not in real:
        return None
    return real[:real.index(marker)]


def _size(folder: str) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # removed by another run meanwhile
    return total


def flags() -> List[str]:
    """`--disk_cache=<folder>` for a nested Bazel command, or nothing where
    this does not run under Bazel ($NESTED_BAZEL_DISK_CACHE overrides the
    folder; set it empty for no cache)."""
    folder = os.environ.get("NESTED_BAZEL_DISK_CACHE")
    if folder is None:
        base = _outer_output_base()
        if base is None:
            return []
        folder = os.path.join(base, _FOLDER)
    if not folder:
        return []
    if os.path.isdir(folder) and _size(folder) > MAX_BYTES:
        shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    return [f"--disk_cache={folder}"]
