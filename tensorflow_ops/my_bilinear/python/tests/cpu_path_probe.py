"""Prints the CPU path the kernels took, a SHA-256 of MyBilinear and
MyBilinearGrad results over geometries that run the kernels' vector loops and
their tails, on random values and on values with NaNs of both signs,
infinities and signed zeros (every NaN is hashed as one canonical NaN, as
their sign and payload may differ between paths), and grad_determinism_probe's
digest of gradients large enough to be split over every thread. Run as a
separate process by my_bilinear_cpu_paths_test.py with TENSORFLOW_OPS_CPU_PATH
and --threads set, because TensorFlow fixes its thread count, and the kernels
their CPU path, once per process."""

import argparse
import hashlib
import json
from typing import Dict, List, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops.my_bilinear.python.tests import grad_determinism_probe
from tensorflow_ops.my_bilinear.python.tests import loaded_library

# Channel counts with compile-time loops (1, 2 for float rows, 3, 4, 8, 16,
# 32, 64, and 128: the gradient's four groups of vectors) and without (17, 33);
# widths across 8- and 16-lane vectors and their tails; up- and down-sampling,
# which take different forward paths.
PROBE_CASES: List[Tuple[Tuple[int, int, int, int], Tuple[int, int]]] = [
    ((2, 9, 37, 1), (23, 75)), ((1, 13, 21, 3), (29, 40)),
    ((2, 7, 11, 4), (3, 19)), ((1, 12, 10, 8), (25, 7)),
    ((1, 6, 9, 16), (13, 17)), ((2, 5, 6, 17), (11, 3)),
    ((1, 20, 12, 32), (9, 25)), ((1, 4, 5, 33), (10, 11)),
    ((1, 9, 7, 64), (4, 15)), ((2, 9, 13, 2), (5, 30)), ((1, 6, 17, 2), (11, 8)),
    ((1, 6, 8, 128), (3, 4)),
]
# Written over every 7th value of the special-values pass.
SPECIAL_VALUES = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0]
IMAGE_DTYPES = [np.float16, tf.bfloat16.as_numpy_dtype, np.float32, np.uint8]
OUT_TYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
ATTRS = [(True, False), (False, False), (False, True)]


def _canonical_bytes(result: tf.Tensor) -> bytes:
    """The result's bytes, with every NaN replaced by the same NaN."""
    values = result.numpy()
    if result.dtype.is_floating:
        values = values.copy()
        values[np.isnan(values.astype(np.float64))] = np.nan
    return values.tobytes()


def results_digest() -> str:
    """Digest of every forward result (each image dtype into each out_type) and
    every gradient (float dtypes), over the probe cases and attributes, on
    random values; and of the float images' results in their own dtype, and
    their gradients, with special values among the images and gradients."""
    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top
    digest = hashlib.sha256()
    rng = np.random.default_rng(5)
    for shape, size in PROBE_CASES:
        values = rng.uniform(-300, 300, shape)
        grads = rng.uniform(-1, 1, (shape[0], *size, shape[3]))
        special_values, special_grads = values.copy(), grads.copy()
        for array in (special_values, special_grads):
            flat = array.reshape(-1)
            flat[::7] = np.resize(SPECIAL_VALUES, flat[::7].size)
        for align_corners, half_pixel_centers in ATTRS:
            attrs = dict(align_corners=align_corners,
                         half_pixel_centers=half_pixel_centers)
            for dtype in IMAGE_DTYPES:
                images = np.clip(values, 0, 255).astype(dtype) if dtype == np.uint8 \
                    else values.astype(dtype)
                for out_type in OUT_TYPES:
                    result = ops.my_bilinear(images=images, size=size,
                                             out_type=out_type, **attrs)
                    digest.update(_canonical_bytes(result))
                if dtype == np.uint8:
                    continue
                result = ops.my_bilinear_grad(grads=grads.astype(dtype),
                                              original_image=images, **attrs)
                digest.update(_canonical_bytes(result))
                special_images = special_values.astype(dtype)
                digest.update(_canonical_bytes(ops.my_bilinear(
                    images=special_images, size=size, **attrs)))
                digest.update(_canonical_bytes(ops.my_bilinear_grad(
                    grads=special_grads.astype(dtype), original_image=special_images,
                    **attrs)))
    return digest.hexdigest()


def kernel_cpu_path() -> int:
    """The path the loaded library's kernels take (0 baseline, 1 AVX2, 2
    AVX-512), from the library's exported TensorflowOpsMyBilinearCpuPath."""
    return loaded_library.loaded_op_library().TensorflowOpsMyBilinearCpuPath()


def probe_results() -> Dict[str, object]:
    """The path, TensorFlow's intra-op threads as configured (0: its default,
    one per CPU), the cache size the kernels choose their stores by, the
    results' digest and the large gradients' digest."""
    return {"path": kernel_cpu_path(),
            "cache_bytes": loaded_library.kernel_cache_bytes(),
            "threads": tf.config.threading.get_intra_op_parallelism_threads(),
            "digest": results_digest(),
            "gradient_digest": grad_determinism_probe.gradient_digest()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, required=True,
                        help="TensorFlow's intra-op threads")
    args = parser.parse_args()
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    print(json.dumps(probe_results()))


if __name__ == "__main__":
    main()
