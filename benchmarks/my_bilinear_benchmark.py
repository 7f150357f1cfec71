"""MyBilinear and MyBilinearGrad side by side with TensorFlow's ResizeBilinear and
ResizeBilinearGrad, in one process, on the same inputs.

    bazel run -c opt //benchmarks:my_bilinear_benchmark -- [--threads N] [--repeats R]

Calls of ours and TensorFlow's alternate, and each figure is the median of
`--repeats` calls, so drift of a noisy machine hits both alike. Compare the
ratio column, not absolute times.
"""

import argparse
import statistics
import time
from typing import Callable, List, Tuple

import numpy as np
import tensorflow as tf

# (images shape, output size, align_corners, half_pixel_centers)
CASES: List[Tuple[Tuple[int, int, int, int], Tuple[int, int], bool, bool]] = [
    ((8, 224, 224, 3), (448, 448), False, True),   # 2x upsampling, RGB
    ((8, 448, 448, 3), (224, 224), False, True),   # 2x downsampling, RGB
    ((8, 256, 256, 3), (299, 299), True, False),   # odd ratio, align_corners
    ((16, 64, 64, 32), (128, 128), False, True),   # feature maps
    ((4, 512, 512, 1), (1024, 1024), False, False),  # one channel
    ((32, 28, 28, 64), (14, 14), False, True),     # small maps, downsampling
]


def _median_seconds(calls: List[Callable[[], tf.Tensor]],
                    repeats: int) -> List[float]:
    """Median wall time of each call, alternating between them."""
    for call in calls:
        call()  # warm-up: kernel creation, allocator
    times: List[List[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for index, call in enumerate(calls):
            start = time.perf_counter()
            call()
            times[index].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads (0: TensorFlow's default)")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)

    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top

    rng = np.random.default_rng(0)
    print(f"TensorFlow {tf.__version__}, intra-op threads: "
          f"{args.threads or 'default'}, median of {args.repeats}; "
          "ratio = TensorFlow time / ours (above 1: ours is faster)")
    print(f"| {'op':<8} | {'images':<18} | {'size':<11} | {'attrs':<5} | "
          f"{'TF ms':>8} | {'ours ms':>8} | {'ratio':>6} |")
    print("|" + "|".join("-" * w for w in (10, 20, 13, 7, 10, 10, 8)) + "|")
    for shape, size, align_corners, half_pixel_centers in CASES:
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        attrs_label = "ac" if align_corners else ("hp" if half_pixel_centers else "-")
        images = tf.constant(rng.random(shape, np.float32))
        grads = tf.constant(
            rng.uniform(-1, 1, (shape[0], *size, shape[3])).astype(np.float32))
        size_tensor = tf.constant(size, tf.int32)
        forward = _median_seconds([
            lambda: tf.raw_ops.ResizeBilinear(images=images, size=size_tensor, **attrs),
            lambda: ops.my_bilinear(images=images, size=size_tensor, **attrs),
        ], args.repeats)
        backward = _median_seconds([
            lambda: tf.raw_ops.ResizeBilinearGrad(grads=grads, original_image=images,
                                                  **attrs),
            lambda: ops.my_bilinear_grad(grads=grads, original_image=images, **attrs),
        ], args.repeats)
        for label, (theirs, ours) in (("forward", forward), ("gradient", backward)):
            print(f"| {label:<8} | {str(list(shape)):<18} | {str(list(size)):<11} | "
                  f"{attrs_label:<5} | {theirs * 1e3:8.2f} | {ours * 1e3:8.2f} | "
                  f"{theirs / ours:6.2f} |")


if __name__ == "__main__":
    main()
