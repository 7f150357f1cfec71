"""The cookbook's techniques side by side with the built-in way to do the same
thing, in one process, on the same inputs: the figures of the table in
docs/choosing_a_path.md.

    bazel run //benchmarks:cookbook_benchmark -- [--repeats R] [--threads N]
    python benchmarks/cookbook_benchmark.py         # after building the op libraries

Each figure is the median of `--repeats` calls of a tf.function (forward, or
forward and gradient); the ratio is the median over pairs of back-to-back calls
of the two contenders, so that load from elsewhere on a shared machine hits
both alike. Compare the ratio column, not absolute times.
"""

import argparse
import os
import statistics
import sys
import time
from typing import Callable, List, Sequence, Tuple

import numpy as np
import tensorflow as tf

try:
    import tensorflow_ops  # noqa: F401  pylint: disable=unused-import
except ImportError:  # run as a plain script from a source tree
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# pylint: disable=g-import-not-at-top,wrong-import-position
from tensorflow_ops.cookbook import custom_gradients
from tensorflow_ops.cookbook import numpy_fft
from tensorflow_ops.cookbook import swish
from tensorflow_ops.cookbook import two_gradients
from tensorflow_ops.split_at import split_at
from tensorflow_ops.zero_out import zero_out

# (technique, case, reference name, reference call, technique name, technique call)
Row = Tuple[str, str, str, Callable[[], object], str, Callable[[], object]]


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _compare(reference: Callable[[], object], technique: Callable[[], object],
             repeats: int) -> Tuple[float, float, float]:
    """Median seconds of each call and the median of the per-pair ratios
    reference / technique. The two calls of a pair run back to back, in
    alternating order, so a burst of load from elsewhere slows both alike."""
    reference()  # warm-up: tracing, kernel creation, allocator
    technique()
    reference_times: List[float] = []
    technique_times: List[float] = []
    for repeat in range(repeats):
        if repeat % 2:
            technique_times.append(_timed(technique))
            reference_times.append(_timed(reference))
        else:
            reference_times.append(_timed(reference))
            technique_times.append(_timed(technique))
    ratios = [r / t for r, t in zip(reference_times, technique_times)]
    return (statistics.median(reference_times), statistics.median(technique_times),
            statistics.median(ratios))


def _with_gradient(function: Callable[..., tf.Tensor]) -> Callable[..., object]:
    """A tf.function computing sum(function(*args)) and its gradient."""

    @tf.function
    def value_and_gradient(*args):
        differentiable = [a for a in args if a.dtype.is_floating or a.dtype.is_complex]
        with tf.GradientTape() as tape:
            tape.watch(differentiable)
            loss = tf.reduce_sum(function(*args))
        return loss, tape.gradient(loss, differentiable)

    return value_and_gradient


def _rows(rng: np.random.Generator) -> List[Row]:
    rows: List[Row] = []

    def add(technique, case, ref_name, ref, ours_name, ours, args):
        rows.append((technique, case, ref_name, lambda: ref(*args),
                     ours_name, lambda: ours(*args)))

    def real(*shape):
        return tf.constant(rng.standard_normal(shape).astype(np.float32))

    # 1. Composed built-in ops: Swish.
    x = real(1 << 20)
    add("built-in ops", "swish fwd+grad [1M]", "tf.nn.silu", _with_gradient(tf.nn.silu),
        "x*sigmoid(x)", _with_gradient(swish.swish), (x,))

    # 2. tf.numpy_function: 2-D FFT.
    for shape in ((64, 32, 32), (4, 256, 256)):
        z = tf.complex(real(*shape), real(*shape))
        label = "x".join(map(str, shape))
        add("numpy_function", f"fft2d fwd [{label}] c64", "tf.signal.fft2d",
            tf.function(tf.signal.fft2d), "fft2d_numpy",
            tf.function(numpy_fft.fft2d_numpy), (z,))
        add("numpy_function", f"fft2d fwd+grad [{label}] c64", "tf.signal.fft2d",
            _with_gradient(lambda v: tf.abs(tf.signal.fft2d(v))),
            "fft2d_numpy", _with_gradient(lambda v: tf.abs(numpy_fft.fft2d_numpy(v))),
            (z,))
    small = tf.complex(real(4, 4), real(4, 4))
    add("numpy_function", "fft2d fwd [4x4] (overhead)", "tf.signal.fft2d",
        tf.function(tf.signal.fft2d), "fft2d_numpy", tf.function(numpy_fft.fft2d_numpy),
        (small,))

    # 3. tf.custom_gradient.
    for batch, classes in ((256, 1000), (4096, 100)):
        logits = real(batch, classes)
        labels = tf.nn.softmax(real(batch, classes))
        case = f"softmax-xent fwd+grad [{batch}x{classes}]"
        add("custom_gradient", case, "autodiff",
            _with_gradient(custom_gradients.softmax_cross_entropy_autodiff),
            "custom", _with_gradient(custom_gradients.softmax_cross_entropy),
            (labels, logits))
        add("custom_gradient", case, "tf.nn fused op",
            _with_gradient(lambda l, z: tf.nn.softmax_cross_entropy_with_logits(l, z)),
            "custom", _with_gradient(custom_gradients.softmax_cross_entropy),
            (labels, logits))
    add("custom_gradient", "log1pexp fwd+grad [1M]", "tf.nn.softplus",
        _with_gradient(tf.nn.softplus), "log1pexp",
        _with_gradient(custom_gradients.log1pexp), (x,))

    # 6. One forward, two gradients: custom_gradient vs the stop_gradient idiom.
    add("two gradients", "sign straight-through fwd+grad [1M]",
        "x+stop_gradient(sign(x)-x)",
        _with_gradient(lambda v: v + tf.stop_gradient(tf.sign(v) - v)),
        "custom_gradient", _with_gradient(two_gradients.sign_straight_through), (x,))

    # 4-5. C++ ops against the same result from built-in ops.
    ints = tf.constant(rng.integers(-9, 9, 1 << 20).astype(np.int32))
    for name, values in (("float", x), ("int32", ints)):
        add("C++ op, no gradient", f"ZeroOut [1M] {name}", "concat(x[:1], zeros)",
            tf.function(lambda v: tf.concat([v[:1], tf.zeros_like(v[1:])], 0)),
            "ZeroOut", tf.function(zero_out), (values,))
    index = tf.constant(1 << 19)
    add("C++ op, 2 outputs", "SplitAt fwd [1M]", "x[:i], x[i:]",
        tf.function(lambda v, i: (v[:i], v[i:])), "SplitAt", tf.function(split_at),
        (x, index))

    def head_plus_twice_tail(head_and_tail):
        return tf.concat([head_and_tail[0], 2 * head_and_tail[1]], 0)

    add("C++ op, 2 outputs", "SplitAt fwd+grad [1M]", "x[:i], x[i:]",
        _with_gradient(lambda v, i: head_plus_twice_tail((v[:i], v[i:]))), "SplitAt",
        _with_gradient(lambda v, i: head_plus_twice_tail(split_at(v, i))), (x, index))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=51)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads (0: TensorFlow's default)")
    args = parser.parse_args()
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)

    print(f"TensorFlow {tf.__version__}, {os.cpu_count()} CPUs, intra-op threads: "
          f"{args.threads or 'default'}, median of {args.repeats}; "
          "ratio = reference time / technique time, median over pairs "
          "(above 1: the technique is faster)")
    print(f"| {'technique':<20} | {'case':<38} | {'reference':<26} | {'ref ms':>8} | "
          f"{'technique':<16} | {'ms':>8} | {'ratio':>6} |")
    print("|" + "|".join("-" * w for w in (22, 40, 28, 10, 18, 10, 8)) + "|")
    rows = _rows(np.random.default_rng(0))
    for technique, case, ref_name, ref, ours_name, ours in rows:
        theirs_s, ours_s, ratio = _compare(ref, ours, args.repeats)
        print(f"| {technique:<20} | {case:<38} | {ref_name:<26} | {theirs_s * 1e3:8.3f} | "
              f"{ours_name:<16} | {ours_s * 1e3:8.3f} | {ratio:6.2f} |", flush=True)


if __name__ == "__main__":
    main()
