"""MyBilinear's forward pass over image and output types and channel counts,
side by side with TensorFlow's ResizeBilinear followed by a cast, in one process.

    bazel run //benchmarks:my_bilinear_type_sweep -- [--channels 3,9,...]
        [--pairs float32:float16,...] [--repeats R] [--threads N] [--json FILE]
    python benchmarks/my_bilinear_type_sweep.py ...   (from the repository root)

my_bilinear_benchmark.py times the issue's cases, whose channel counts (3 to
64) all have unrolled loops and whose output type is that of the images. This
sweep covers what it leaves out: counts read at run time, and images resized
into another type (out_type), against what a user would write without it,
`tf.cast(tf.raw_ops.ResizeBilinear(...), out_type)`. Each case is down-sampled
(16x75x77xC to 37x41) and up-sampled (16x37x41xC to 75x77). Compare ratios,
not absolute times.
"""

import argparse
import json
import statistics
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import tensorflow as tf

from my_bilinear_benchmark import time_calls

GEOMETRIES: List[Tuple[str, Tuple[int, int, int], Tuple[int, int]]] = [
    ("down", (16, 75, 77), (37, 41)),
    ("up", (16, 37, 41), (75, 77)),
]
DEFAULT_CHANNELS = "3,5,8,9,10,12,13,16,17,24,32,48"
DEFAULT_PAIRS = ("uint8:float32,int16:float32,uint8:float16,"
                 "float32:bfloat16,float32:float16")


IMAGE_TYPES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16",
               "uint16", "int32", "int64")
OUTPUT_TYPES = ("float16", "bfloat16", "float32", "float64")


def parse_pairs(text: str) -> List[Tuple[tf.DType, tf.DType]]:
    """'images:output,...' into dtype pairs, for argparse: a bad item is an
    argparse error that names it."""
    pairs = []
    for item in text.split(","):
        names = item.split(":")
        if len(names) != 2 or names[0] not in IMAGE_TYPES or names[1] not in OUTPUT_TYPES:
            raise argparse.ArgumentTypeError(
                f"{item!r} is not images:output with images one of {', '.join(IMAGE_TYPES)} "
                f"and output one of {', '.join(OUTPUT_TYPES)}")
        pairs.append((tf.as_dtype(names[0]), tf.as_dtype(names[1])))
    return pairs


def positive_int(text: str) -> int:
    """An integer of at least 1, for argparse."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not at least 1")
    return value


def channel_counts(text: str) -> List[int]:
    """'3,9,...' into channel counts of at least 1, for argparse."""
    return [positive_int(count) for count in text.split(",")]


def random_images(shape: Tuple[int, ...], dtype: tf.DType,
                  rng: np.random.Generator) -> tf.Tensor:
    """Values in [0, 200): inside every type's range."""
    if dtype.is_integer:
        return tf.constant(rng.integers(0, 200, shape).astype(dtype.as_numpy_dtype))
    return tf.cast(tf.constant(rng.random(shape, np.float32) * 200), dtype)


def run_case(ops, shape: Tuple[int, ...], size: Tuple[int, int], images_dtype: tf.DType,
             out_dtype: tf.DType, repeats: int, rng: np.random.Generator) -> Dict[str, float]:
    """Median ms of ours and of TensorFlow's resize then cast, alternating."""
    images = random_images(shape, images_dtype, rng)
    size_tensor = tf.constant(size, tf.int32)
    calls: Dict[str, Callable[[], tf.Tensor]] = {
        "ours": lambda: ops.my_bilinear(images=images, size=size_tensor,
                                        out_type=out_dtype, align_corners=True),
        "tensorflow+cast": lambda: tf.cast(tf.raw_ops.ResizeBilinear(
            images=images, size=size_tensor, align_corners=True), out_dtype),
    }
    return {name: timing.median_ms for name, timing in time_calls(calls, repeats).items()}


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=channel_counts, default=DEFAULT_CHANNELS,
                        help="comma-separated channel counts")
    parser.add_argument("--pairs", type=parse_pairs, default=DEFAULT_PAIRS,
                        help="comma-separated images:output dtypes")
    parser.add_argument("--repeats", type=positive_int, default=31)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads (0: TensorFlow's default)")
    parser.add_argument("--json", help="write every timing to this file")
    args = parser.parse_args(argv)
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)

    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top

    rng = np.random.default_rng(0)
    print(f"TensorFlow {tf.__version__}, intra-op threads: {args.threads or 'default'}, "
          f"{args.repeats} repeats; speed-up = (TF resize + cast) median / ours")
    print("| direction | images | output | channels | TF+cast ms | ours ms | speed-up |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for images_dtype, out_dtype in args.pairs:
        for channels in args.channels:
            for direction, batch_hw, size in GEOMETRIES:
                ms = run_case(ops, (*batch_hw, channels), size, images_dtype, out_dtype,
                              args.repeats, rng)
                speedup = ms["tensorflow+cast"] / ms["ours"]
                rows.append(dict(direction=direction, images=images_dtype.name,
                                 output=out_dtype.name, channels=channels,
                                 speedup=speedup, **ms))
                print(f"| {direction} | {images_dtype.name} | {out_dtype.name} | {channels} "
                      f"| {ms['tensorflow+cast']:.3f} | {ms['ours']:.3f} | {speedup:.2f} |",
                      flush=True)
    speedups = [row["speedup"] for row in rows]
    slowest = min(rows, key=lambda row: row["speedup"])
    print(f"speed-up: median {statistics.median(speedups):.2f}, min {slowest['speedup']:.2f} "
          f"({slowest['direction']} {slowest['images']} into {slowest['output']}, "
          f"{slowest['channels']} channels), {len(rows)} cases; "
          f"{sum(s < 1 for s in speedups)} slower than TensorFlow")
    if args.json:
        with open(args.json, "w") as output:
            json.dump({"tensorflow": tf.__version__, "threads": args.threads,
                       "repeats": args.repeats, "rows": rows}, output, indent=1)


if __name__ == "__main__":
    main()
