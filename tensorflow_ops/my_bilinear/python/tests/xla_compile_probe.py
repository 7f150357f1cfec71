"""Compiles MyBilinear and MyBilinearGrad under jit_compile=True at growing
up-sampling factors and reports, per case, the HLO's instruction count and
largest constant, the seconds of the first call (compile and run) and the process's peak resident
memory so far, as one JSON object on the last line of stdout.

Run in a child process by my_bilinear_xla_compile_bounds_test, under a memory
limit, so that a compile that grows without bound ends the child, not the
machine. Also a measuring tool:

    python -m tensorflow_ops.my_bilinear.python.tests.xla_compile_probe \
        --factors 1,64,1024,65536 --in-size 2
"""

import argparse
import json
import re
import resource
import time
from typing import Callable, Dict, List, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops.my_bilinear import ops

# The two attr modes a model uses: TF1's align_corners, and half-pixel centres.
ATTR_MODES = {"align_corners": dict(align_corners=True, half_pixel_centers=False),
              "half_pixel": dict(align_corners=False, half_pixel_centers=True)}
# The size of the axis that is not up-sampled.
OTHER_SIZE = 3


def _instructions(hlo: str) -> int:
    """The number of HLO instructions in `hlo` (text), in every computation."""
    return sum(1 for line in hlo.splitlines() if " = " in line)


def _largest_constant(hlo: str) -> int:
    """The most elements of any constant array in `hlo` (text)."""
    sizes = [int(np.prod([int(d) for d in dims.split(",") if d]))
             for dims in re.findall(r"= \w+\[([\d,]*)\]\S* constant\(", hlo)]
    return max(sizes, default=0)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def case_sizes(axis: str, factor: int, in_size: int) -> Tuple[List[int], List[int]]:
    """The input and output [height, width] of a case: `in_size` indices along
    `axis` ("rows" or "columns") up-sampled to in_size * factor."""
    if axis == "rows":
        return [in_size, OTHER_SIZE], [in_size * factor, OTHER_SIZE]
    return [OTHER_SIZE, in_size], [OTHER_SIZE, in_size * factor]


def probe_case(op: str, axis: str, factor: int, in_size: int, mode: str) -> Dict:
    """Compiles and runs one case (case_sizes) of `op`, "forward" or
    "gradient"."""
    attrs = ATTR_MODES[mode]
    in_hw, out_hw = case_sizes(axis, factor, in_size)
    rng = np.random.default_rng(factor)
    if op == "forward":
        x = rng.uniform(-1, 1, (1, *in_hw, 1)).astype(np.float32)
        call = lambda x: ops.my_bilinear(images=x, size=out_hw, **attrs)
    else:
        x = rng.uniform(-1, 1, (1, *out_hw, 1)).astype(np.float32)
        original = tf.zeros((1, *in_hw, 1))
        call = lambda g: ops.my_bilinear_grad(grads=g, original_image=original, **attrs)
    compiled = tf.function(call, jit_compile=True)
    hlo = compiled.experimental_get_compiler_ir(x)(stage="hlo")
    start = time.perf_counter()
    result = compiled(x).numpy()
    seconds = time.perf_counter() - start
    # The eager CPU kernel's answer: XLA may fuse multiply-adds, so close, not
    # bitwise (my_bilinear_xla_bitwise_test checks the bits).
    expected = call(tf.constant(x)).numpy()
    return dict(op=op, axis=axis, factor=factor, mode=mode,
                instructions=_instructions(hlo),
                largest_constant=_largest_constant(hlo), first_call_s=round(seconds, 3),
                peak_rss_mb=round(_peak_rss_mb()),
                max_error=float(np.max(np.abs(result - expected))),
                shape=list(result.shape))


def _error_text(error: tf.errors.OpError) -> str:
    """The error's type and message, without the function-node prefix that
    TensorFlow puts before an eager kernel's message."""
    return f"{type(error).__name__}: {error.message.split('}} ')[-1]}"


def _resize_to(size: List[int]) -> Callable[[tf.Tensor], tf.Tensor]:
    return lambda x: ops.my_bilinear(images=x, size=size)


def probe_refusals() -> List[Dict]:
    """Sizes the compile must refuse, in the kernels' Compile, before XLA
    compiles or allocates anything: an output of 4 TiB, which the CPU
    kernel's allocator refuses too; a 2^31 - 1 row output of 8 GiB, which the
    CPU kernel computes, but whose weight tables would take 258 GB on the host
    with their copies (more than half of any machine of less than 516 GB);
    and a gradient into an image of 64 GiB."""
    reports = []
    for name, size in (("output_4_tib", [2**20, 2**20]),
                       ("rows_int32_max", [2**31 - 1, 1])):
        call = _resize_to(size)
        x = np.ones((1, 1, 1, 1), np.float32)
        report = dict(name=name)
        try:
            tf.function(call, jit_compile=True)(x)
            report["xla"] = "computed"
        except tf.errors.OpError as error:
            report["xla"] = _error_text(error)
        if name == "output_4_tib":  # the CPU kernel refuses it at once
            try:
                call(tf.constant(x))
                report["eager"] = "computed"
            except tf.errors.OpError as error:
                report["eager"] = _error_text(error)
        print(report, flush=True)
        reports.append(report)
    # A gradient into a 64 GiB image, made inside the compiled function, so
    # that only its shape exists: the CPU kernel could not allocate it either.
    def grad_into_huge_image(grads):
        return ops.my_bilinear_grad(grads=grads, original_image=tf.zeros([1, 2**34, 1, 1]))
    report = dict(name="grad_into_64_gib")
    try:
        tf.function(grad_into_huge_image, jit_compile=True)(tf.ones([1, 1, 1, 1]))
        report["xla"] = "computed"
    except tf.errors.OpError as error:
        report["xla"] = _error_text(error)
    print(report, flush=True)
    reports.append(report)
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--factors", default="1,64,1024,65536",
                        help="comma-separated up-sampling factors")
    parser.add_argument("--in-size", type=int, default=2,
                        help="input indices along the up-sampled axis")
    parser.add_argument("--ops", default="forward,gradient")
    parser.add_argument("--axes", default="rows,columns")
    parser.add_argument("--modes", default=",".join(ATTR_MODES))
    parser.add_argument("--refusals", action="store_true",
                        help="also lower sizes past the machine's memory")
    args = parser.parse_args()
    try:
        factors = [int(f) for f in args.factors.split(",")]
    except ValueError:
        parser.error(f"--factors must be comma-separated integers, got {args.factors!r}")
    if args.in_size < 1 or any(f < 1 for f in factors):
        parser.error(f"--in-size and --factors must be positive, got "
                     f"{args.in_size} and {factors}")
    cases: List[Dict] = []
    for op in args.ops.split(","):
        for axis in args.axes.split(","):
            for mode in args.modes.split(","):
                for factor in factors:
                    # Named before it starts, so a child that dies names it.
                    print("start:", op, axis, mode, factor, flush=True)
                    case = probe_case(op, axis, factor, args.in_size, mode)
                    print(case, flush=True)
                    cases.append(case)
    refusals = probe_refusals() if args.refusals else []
    print(json.dumps(dict(cases=cases, refusals=refusals,
                          peak_rss_mb=round(_peak_rss_mb()))))


if __name__ == "__main__":
    main()
