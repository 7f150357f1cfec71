"""Prints the CPU path the kernels took and a SHA-256 of MyBilinear and
MyBilinearGrad results over geometries that run the kernels' vector loops and
their tails. Run as a separate process by my_bilinear_cpu_paths_test.py with
TENSORFLOW_OPS_CPU_PATH set, because the CPU path is chosen once per process."""

import argparse
import hashlib
import json
from typing import List, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops.my_bilinear.python import loaded_library

# Channel counts with compile-time loops (1, 3, 4, 8, 16, 32, 64) and without
# (17, 33); widths across 8- and 16-lane vectors and their tails; up- and
# down-sampling, which take different forward paths.
PROBE_CASES: List[Tuple[Tuple[int, int, int, int], Tuple[int, int]]] = [
    ((2, 9, 37, 1), (23, 75)), ((1, 13, 21, 3), (29, 40)),
    ((2, 7, 11, 4), (3, 19)), ((1, 12, 10, 8), (25, 7)),
    ((1, 6, 9, 16), (13, 17)), ((2, 5, 6, 17), (11, 3)),
    ((1, 20, 12, 32), (9, 25)), ((1, 4, 5, 33), (10, 11)),
    ((1, 9, 7, 64), (4, 15)),
]
IMAGE_DTYPES = [np.float16, tf.bfloat16.as_numpy_dtype, np.float32, np.uint8]
OUT_TYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
ATTRS = [(True, False), (False, False), (False, True)]


def results_digest() -> str:
    """Digest of every forward result (each image dtype into each out_type) and
    every gradient (float dtypes), over the probe cases and attributes."""
    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top
    digest = hashlib.sha256()
    rng = np.random.default_rng(5)
    for shape, size in PROBE_CASES:
        values = rng.uniform(-300, 300, shape)
        grads = rng.uniform(-1, 1, (shape[0], *size, shape[3]))
        for align_corners, half_pixel_centers in ATTRS:
            attrs = dict(align_corners=align_corners,
                         half_pixel_centers=half_pixel_centers)
            for dtype in IMAGE_DTYPES:
                images = np.clip(values, 0, 255).astype(dtype) if dtype == np.uint8 \
                    else values.astype(dtype)
                for out_type in OUT_TYPES:
                    result = ops.my_bilinear(images=images, size=size,
                                             out_type=out_type, **attrs)
                    digest.update(result.numpy().tobytes())
                if dtype != np.uint8:
                    result = ops.my_bilinear_grad(grads=grads.astype(dtype),
                                                  original_image=images, **attrs)
                    digest.update(result.numpy().tobytes())
    return digest.hexdigest()


def kernel_cpu_path() -> int:
    """The path the loaded library's kernels take (0 baseline, 1 AVX2, 2
    AVX-512), from the library's exported TensorflowOpsMyBilinearCpuPath."""
    return loaded_library.loaded_op_library().TensorflowOpsMyBilinearCpuPath()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--path-only", action="store_true",
                        help="print the CPU path, not the digest")
    args = parser.parse_args()
    result = {"path": kernel_cpu_path()}
    if not args.path_only:
        result["digest"] = results_digest()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
