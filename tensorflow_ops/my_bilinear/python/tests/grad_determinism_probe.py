"""A SHA-256 of MyBilinearGrad results large enough that the kernel splits
their rows over every thread: my_bilinear_determinism_test compares it across
runs, and my_bilinear_cpu_paths_test across thread counts (cpu_path_probe runs
it in child processes, because TensorFlow fixes its thread count once per
process)."""

import hashlib

import numpy as np

# Large enough that the kernel splits its rows over every thread: each has
# more than bilinear::kMinValuesToSplit (2^18) values of work. One upsampling
# and one downsampling case, each with odd sizes.
PROBE_CASES = [((3, 61, 83, 3), (1031, 523)), ((4, 701, 521, 3), (47, 61))]
PROBE_DTYPES = [np.float32, np.float16, np.float64]


def gradient_digest() -> str:
    """Digest of the gradients of every probe case, attr combination and dtype."""
    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top
    digest = hashlib.sha256()
    rng = np.random.default_rng(11)
    for shape, size in PROBE_CASES:
        grads = rng.uniform(-1, 1, (shape[0], size[0], size[1], shape[3]))
        for align_corners, half_pixel_centers in ((True, False), (False, False),
                                                  (False, True)):
            for dtype in PROBE_DTYPES:
                result = ops.my_bilinear_grad(
                    grads=grads.astype(dtype), original_image=np.zeros(shape, dtype),
                    align_corners=align_corners, half_pixel_centers=half_pixel_centers)
                digest.update(result.numpy().tobytes())
    return digest.hexdigest()
