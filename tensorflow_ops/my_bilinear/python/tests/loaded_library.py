"""The op library this process has loaded, opened with ctypes, for the tests
that read what the kernels decided (their CPU path, their cache size)."""

import ctypes


def loaded_op_library() -> ctypes.CDLL:
    """my_bilinear_op.so as mapped in this process (the one TensorFlow loaded,
    found in /proc/self/maps rather than searched for again)."""
    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top
    del ops  # loaded for its side effect: the library is mapped
    with open("/proc/self/maps", encoding="ascii") as maps:
        paths = {line.split()[-1] for line in maps if line.rstrip().endswith(
            "/my_bilinear_op.so")}
    if len(paths) != 1:
        raise RuntimeError(f"expected one my_bilinear_op.so mapped, found {paths}")
    return ctypes.CDLL(paths.pop())


def kernel_cache_bytes() -> int:
    """The last-level cache size the loaded kernels choose their stores by,
    from the library's exported TensorflowOpsMyBilinearLastLevelCacheBytes."""
    library = loaded_op_library()
    library.TensorflowOpsMyBilinearLastLevelCacheBytes.restype = ctypes.c_int64
    return library.TensorflowOpsMyBilinearLastLevelCacheBytes()
