"""MyBilinear and MyBilinearGrad side by side with TensorFlow's ResizeBilinear and
ResizeBilinearGrad, and with the framework bound, in one process.

    bazel run //benchmarks:my_bilinear_benchmark -- [--threads N] [--repeats R]
        [--json FILE] [--plot FILE.png] [--quick]
    python benchmarks/my_bilinear_benchmark.py ...   (from the repository root)

For every case the calls of ours, TensorFlow's and the bounds alternate, and
each figure is the median (and min) of `--repeats` calls, so drift of a noisy
machine hits them alike. The bound is the cheapest TensorFlow op that returns a
fresh tensor of the result's shape (`tf.fill`), and a copy of that many bytes
(`DeepCopy`). Compare ratios, not absolute times. With `--xla`, ours and
TensorFlow's also run under tf.function(jit_compile=True), each lowered by its
XLA kernel (the "XLA speed-up" column). With `--back-to-back`, each op's calls
run in a row instead, so that its result's buffer stays in the cache: the
difference from the alternated figures is what a cold result costs.
"""

import argparse
import dataclasses
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import tensorflow as tf

# (images shape, output size): the cases of the performance issue.
SHAPES: List[Tuple[Tuple[int, int, int, int], Tuple[int, int]]] = [
    ((4, 128, 128, 3), (256, 256)),
    ((16, 128, 128, 16), (256, 256)),
    ((8, 256, 256, 32), (128, 128)),
    ((2, 512, 512, 64), (1024, 1024)),
    ((32, 64, 64, 3), (224, 224)),
    ((8, 100, 150, 8), (333, 77)),
    ((32, 28, 28, 64), (14, 14)),
    ((16, 64, 64, 32), (128, 128)),
    # Feature-pyramid and U-Net down-sampling of many channels.
    ((16, 64, 64, 64), (32, 32)),
]
# Shapes that are also run in half, bfloat16 and uint8: two of the issue's,
# and RGB images down-sampled, whose 16-bit and integer values were once
# converted one by one (half took 30 times the float32 time). Shapes that are
# not in SHAPES run in float32 too, for the ratio, but stay out of its medians.
DOWNSAMPLED_RGB = ((8, 256, 256, 3), (128, 128))
OTHER_DTYPE_SHAPES = [SHAPES[0], SHAPES[7], DOWNSAMPLED_RGB]
ATTRS = {"ac": dict(align_corners=True, half_pixel_centers=False),
         "hp": dict(align_corners=False, half_pixel_centers=True)}


@dataclasses.dataclass
class Timing:
    median_ms: float
    min_ms: float


@dataclasses.dataclass
class Row:
    """One pass (forward or gradient) of one case, with its timings."""
    pass_name: str
    shape: Tuple[int, ...]
    size: Tuple[int, int]
    attrs: str
    dtype: str
    timings: Dict[str, Timing]  # "tensorflow", "ours", "fill", "copy", ...

    @property
    def speedup(self) -> float:
        return self.timings["tensorflow"].median_ms / self.timings["ours"].median_ms

    @property
    def xla_speedup(self) -> Optional[float]:
        if "xla tensorflow" not in self.timings:
            return None
        return (self.timings["xla tensorflow"].median_ms /
                self.timings["xla ours"].median_ms)

    @property
    def over_fill(self) -> float:
        return self.timings["ours"].median_ms / self.timings["fill"].median_ms

    @property
    def fill_bound_speedup(self) -> float:
        """The speed-up of a kernel that took as long as `tf.fill` of its result:
        a bound where the result is written out of cache (benchmarks/README.md)."""
        return self.timings["tensorflow"].median_ms / self.timings["fill"].median_ms


def time_calls(calls: Dict[str, Callable[[], tf.Tensor]], repeats: int,
               back_to_back: bool = False) -> Dict[str, Timing]:
    """Median and min wall time of each call, alternating between them; with
    `back_to_back`, each call's repeats in a row instead (after five more
    calls of it), so that its result and inputs stay in the cache."""
    for call in calls.values():
        call()  # warm-up: kernel creation, allocator
    samples: Dict[str, List[float]] = {name: [] for name in calls}
    rounds = ([list(calls.items())] * repeats if not back_to_back else
              [[item] * (repeats + 5) for item in calls.items()])
    for calls_in_order in rounds:
        for name, call in calls_in_order:
            start = time.perf_counter()
            result = call()
            samples[name].append(time.perf_counter() - start)
            del result
    if back_to_back:
        samples = {name: s[5:] for name, s in samples.items()}
    return {name: Timing(statistics.median(s) * 1e3, min(s) * 1e3)
            for name, s in samples.items()}


def bound_calls(shape: List[int], dtype: tf.DType) -> Dict[str, Callable[[], tf.Tensor]]:
    """A fresh tensor of `shape`: filled, and copied from another one."""
    value = tf.constant(1, dtype)
    source = tf.fill(shape, value)
    return {"fill": lambda: tf.fill(shape, value),
            "copy": lambda: tf.raw_ops.DeepCopy(x=source)}


def xla_calls(theirs: Callable[..., tf.Tensor], ours: Callable[..., tf.Tensor],
              *args: tf.Tensor) -> Dict[str, Callable[[], tf.Tensor]]:
    """Both under jit_compile=True; the tensors are arguments, so that XLA
    cannot fold them as constants."""
    theirs_jit = tf.function(theirs, jit_compile=True)
    ours_jit = tf.function(ours, jit_compile=True)
    return {"xla tensorflow": lambda: theirs_jit(*args),
            "xla ours": lambda: ours_jit(*args)}


def run_case(ops, shape, size, attrs_name: str, dtype: tf.DType, repeats: int,
             rng: np.random.Generator, with_gradient: bool,
             with_xla: bool = False, back_to_back: bool = False) -> List[Row]:
    attrs = ATTRS[attrs_name]
    size_tensor = tf.constant(size, tf.int32)
    out_shape = [shape[0], *size, shape[3]]
    if dtype.is_floating:
        images = tf.cast(tf.constant(rng.random(shape, np.float32)), dtype)
        result_dtype = dtype
    else:
        images = tf.constant(rng.integers(0, 256, shape, dtype=np.uint8), dtype)
        result_dtype = tf.float32
    forward = {
        "tensorflow": lambda: tf.raw_ops.ResizeBilinear(images=images, size=size_tensor,
                                                        **attrs),
        "ours": lambda: ops.my_bilinear(images=images, size=size_tensor,
                                        out_type=result_dtype, **attrs),
        **bound_calls(out_shape, result_dtype),
    }
    if with_xla:
        forward.update(xla_calls(
            lambda x: tf.raw_ops.ResizeBilinear(images=x, size=size, **attrs),
            lambda x: ops.my_bilinear(images=x, size=size, out_type=result_dtype, **attrs),
            images))
    if not dtype.is_floating:
        forward["cast+tensorflow"] = lambda: tf.raw_ops.ResizeBilinear(
            images=tf.cast(images, tf.float32), size=size_tensor, **attrs)
    rows = [Row("forward", shape, size, attrs_name, dtype.name,
                time_calls(forward, repeats, back_to_back))]
    if with_gradient and dtype.is_floating:
        grads = tf.cast(tf.constant(rng.uniform(-1, 1, out_shape).astype(np.float32)), dtype)
        grads32 = tf.cast(grads, tf.float32)  # TensorFlow's gradient takes float32
        backward = {
            "tensorflow": lambda: tf.raw_ops.ResizeBilinearGrad(
                grads=grads32, original_image=images, **attrs),
            "ours": lambda: ops.my_bilinear_grad(grads=grads, original_image=images,
                                                 **attrs),
            **bound_calls(list(shape), dtype),
        }
        if with_xla:
            backward.update(xla_calls(
                lambda g, x: tf.raw_ops.ResizeBilinearGrad(
                    grads=tf.cast(g, tf.float32), original_image=x, **attrs),
                lambda g, x: ops.my_bilinear_grad(grads=g, original_image=x, **attrs),
                grads, images))
        rows.append(Row("gradient", shape, size, attrs_name, dtype.name,
                        time_calls(backward, repeats, back_to_back)))
    return rows


def print_table(rows: List[Row]) -> None:
    print("| pass | images | size | attrs | dtype | TF ms (med/min) | ours ms (med/min) "
          "| speed-up | fill ms | ours/fill | copy ms | XLA speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        t = row.timings
        extra = ""
        if "cast+tensorflow" in t:
            extra = f" (cast+TF {t['cast+tensorflow'].median_ms:.2f})"
        print(f"| {row.pass_name} | {list(row.shape)} | {list(row.size)} | {row.attrs} "
              f"| {row.dtype} | {t['tensorflow'].median_ms:.2f}/{t['tensorflow'].min_ms:.2f}"
              f"{extra} | {t['ours'].median_ms:.2f}/{t['ours'].min_ms:.2f} "
              f"| {row.speedup:.2f} | {t['fill'].median_ms:.2f} | {row.over_fill:.2f} "
              f"| {t['copy'].median_ms:.2f} "
              f"| {'-' if row.xla_speedup is None else f'{row.xla_speedup:.2f}'} |")


# The speed-ups over TensorFlow the project aims at for 2x down-sampling, which
# the summary holds each pass's TF/fill bound against.
HALVING_TARGETS = {"forward": 1.6, "gradient": 2.5}


def halves_both_axes(shape: Tuple[int, ...], size: Tuple[int, int]) -> bool:
    """Whether a case is a 2x down-sampling (what pyramids and U-Nets do)."""
    return shape[1] == 2 * size[0] and shape[2] == 2 * size[1]


def summarize(rows: List[Row]) -> None:
    """Float32 speed-ups over the issue's cases (SHAPES), and the time of the
    other float types over float32's in the same case."""
    issue_cases = {(tuple(shape), tuple(size)) for shape, size in SHAPES}
    for pass_name in ("forward", "gradient"):
        speedups = [r.speedup for r in rows if r.pass_name == pass_name
                    and r.dtype == "float32"
                    and (tuple(r.shape), tuple(r.size)) in issue_cases]
        if speedups:
            print(f"{pass_name} float32: median speed-up {statistics.median(speedups):.2f}, "
                  f"min {min(speedups):.2f}, max {max(speedups):.2f} over {len(speedups)} cases")
    halving = [r for r in rows if r.dtype == "float32"
               and halves_both_axes(r.shape, r.size)]
    for pass_name, target in HALVING_TARGETS.items():
        passes = [r for r in halving if r.pass_name == pass_name]
        if passes:
            slowest = min(passes, key=lambda r: r.speedup)
            bounds = [r.fill_bound_speedup for r in passes]
            print(f"2x down-sampling {pass_name} float32: min speed-up "
                  f"{slowest.speedup:.2f} ({list(slowest.shape)} {slowest.attrs}), "
                  f"max ours/fill {max(r.over_fill for r in passes):.2f} "
                  f"over {len(passes)} cases; TF/fill (the speed-up of a kernel "
                  f"taking tf.fill's time) {min(bounds):.2f} to {max(bounds):.2f}, "
                  f"under {target} in {sum(b < target for b in bounds)}")
    def case_of(row: Row) -> Tuple:
        return row.pass_name, tuple(row.shape), tuple(row.size), row.attrs

    float32_ms = {case_of(r): r.timings["ours"].median_ms for r in rows
                  if r.dtype == "float32"}
    for dtype in ("float16", "bfloat16"):
        ratios = [r.timings["ours"].median_ms / float32_ms[case_of(r)] for r in rows
                  if r.dtype == dtype and case_of(r) in float32_ms]
        if ratios:
            print(f"{dtype}: {min(ratios):.2f} to {max(ratios):.2f} times the float32 "
                  f"time over {len(ratios)} passes")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads (0: TensorFlow's default)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--json", help="write every timing to this file")
    parser.add_argument("--plot", help="draw speed-ups and time over the bound (PNG)")
    parser.add_argument("--quick", action="store_true",
                        help="float32 forward and gradient of the first two shapes only")
    parser.add_argument("--halving", action="store_true",
                        help="float32 2x down-sampling cases only, both attr modes")
    parser.add_argument("--no-gradient", action="store_true")
    parser.add_argument("--back-to-back", action="store_true",
                        help="time each op's calls in a row, not alternated: the "
                             "result's buffer stays in the cache (benchmarks/README.md)")
    parser.add_argument("--xla", action="store_true",
                        help="also time ours and TensorFlow's under jit_compile=True")
    args = parser.parse_args(argv)
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        parser.error("--plot needs matplotlib, which requirements.txt leaves out: "
                     f"{sys.executable} -m pip install -r benchmarks/requirements.txt")
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)

    from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top

    rng = np.random.default_rng(0)
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs"
    print(f"TensorFlow {tf.__version__}, {machine}, intra-op threads: "
          f"{args.threads or 'default'}, {args.repeats} repeats; speed-up = TF median / "
          "ours (above 1: ours is faster); ours/fill = ours over the tf.fill bound")
    work = [(shape, size, attrs, tf.float32) for shape, size in
            (SHAPES[:2] if args.quick else SHAPES) for attrs in ATTRS]
    if args.halving:
        work = [(shape, size, attrs, tf.float32)
                for shape, size in SHAPES + [DOWNSAMPLED_RGB]
                if halves_both_axes(shape, size) for attrs in ATTRS]
    elif not args.quick:
        work += [(shape, size, attrs, tf.float32) for shape, size in OTHER_DTYPE_SHAPES
                 if (shape, size) not in SHAPES for attrs in ATTRS]
        work += [(shape, size, attrs, dtype) for dtype in (tf.half, tf.bfloat16, tf.uint8)
                 for shape, size in OTHER_DTYPE_SHAPES for attrs in ATTRS]
    rows: List[Row] = []
    for shape, size, attrs, dtype in work:
        rows += run_case(ops, shape, size, attrs, dtype, args.repeats, rng,
                         with_gradient=not args.no_gradient, with_xla=args.xla,
                         back_to_back=args.back_to_back)
        print(f"  done {list(shape)} -> {list(size)} {attrs} {dtype.name}",
              file=sys.stderr, flush=True)
    print_table(rows)
    summarize(rows)
    if args.json:
        with open(args.json, "w") as output:
            json.dump({"tensorflow": tf.__version__, "machine": machine,
                       "threads": args.threads, "repeats": args.repeats,
                       "rows": [dataclasses.asdict(r) for r in rows]}, output, indent=1)
    if args.plot:
        import benchmark_plot  # pylint: disable=g-import-not-at-top
        benchmark_plot.plot(rows, args.plot, title=f"TensorFlow {tf.__version__}, {machine}")


if __name__ == "__main__":
    main()
