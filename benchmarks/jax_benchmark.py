"""jax_ops.my_bilinear and its gradient side by side with
jax.image.resize(method="linear"), in one process, where their semantics match:
up-sampling with half-pixel centres (align_corners=False,
half_pixel_centers=True; jax.image.resize's antialiasing only acts when
down-sampling).

    python benchmarks/jax_benchmark.py [--repeats R] [--quick] [--json FILE]
    bazel run //benchmarks:jax_benchmark -- ...

Both run under jax.jit, compiled before timing; the calls of the two
alternate, and each figure is the median of `--repeats` calls, so drift of a
noisy machine hits them alike. The gradient is the VJP with respect to the
images of a fixed upstream gradient. Before timing, each case compares the
two results: bitwise, or the largest difference in units of the result's
magnitude (docs/jax.md gives the table).
"""

import argparse
import json
import platform
import statistics
import subprocess
import time
from typing import Callable, Dict, List, Tuple

import jax
import jax.numpy as jnp
import numpy as np

from tensorflow_ops.my_bilinear import jax_ops

# (images shape, output size): up-sampling cases of the TensorFlow benchmark.
SHAPES: List[Tuple[Tuple[int, int, int, int], Tuple[int, int]]] = [
    ((4, 128, 128, 3), (256, 256)),
    ((16, 128, 128, 16), (256, 256)),
    ((32, 64, 64, 3), (224, 224)),
    ((16, 64, 64, 32), (128, 128)),
    ((8, 100, 150, 8), (333, 227)),
    ((1, 32, 32, 1), (64, 64)),
]
QUICK_SHAPES = SHAPES[:1] + SHAPES[-1:]


def _ours(images: jax.Array, size: Tuple[int, int]) -> jax.Array:
    return jax_ops.my_bilinear(images, size, align_corners=False, half_pixel_centers=True)


def _jax_image(images: jax.Array, size: Tuple[int, int]) -> jax.Array:
    batch, _, _, channels = images.shape
    return jax.image.resize(images, (batch, *size, channels), method="linear")


def _gradient(resize: Callable, size: Tuple[int, int]) -> Callable:
    """images, upstream -> the VJP of `resize` at `images`."""
    def vjp(images, upstream):
        return jax.vjp(lambda x: resize(x, size), images)[1](upstream)[0]
    return jax.jit(vjp)


def _median_ms(function: Callable, *args) -> float:
    start = time.perf_counter()
    jax.block_until_ready(function(*args))
    return (time.perf_counter() - start) * 1e3


def _agreement(ours: np.ndarray, theirs: np.ndarray) -> str:
    if ours.tobytes() == theirs.tobytes():
        return "bitwise"
    scale = max(float(np.max(np.abs(theirs))), 1e-30)
    return f"{float(np.max(np.abs(ours - theirs))) / scale:.1e}"


def run_case(shape, size, repeats: int) -> Dict[str, object]:
    rng = np.random.default_rng(0)
    images = jnp.asarray(rng.random(shape, np.float32))
    upstream = jnp.asarray(rng.random((shape[0], *size, shape[3]), np.float32))
    forward = {name: jax.jit(lambda x, r=resize: r(x, size))
               for name, resize in (("ours", _ours), ("jax.image", _jax_image))}
    backward = {name: _gradient(resize, size)
                for name, resize in (("ours", _ours), ("jax.image", _jax_image))}
    result = {"shape": list(shape), "size": list(size),
              "forward_agreement": _agreement(np.asarray(forward["ours"](images)),
                                              np.asarray(forward["jax.image"](images))),
              "gradient_agreement": _agreement(
                  np.asarray(backward["ours"](images, upstream)),
                  np.asarray(backward["jax.image"](images, upstream)))}
    times: Dict[str, List[float]] = {}
    for _ in range(repeats):
        for name in ("ours", "jax.image"):
            times.setdefault(f"{name} forward", []).append(
                _median_ms(forward[name], images))
            times.setdefault(f"{name} gradient", []).append(
                _median_ms(backward[name], images, upstream))
    result.update({key: statistics.median(values) for key, values in times.items()})
    return result


def _machine() -> str:
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        model = next(line.split(":", 1)[1].strip() for line in lscpu.splitlines()
                     if line.startswith("Model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{model}, {jax.local_device_count()} JAX CPU device, jax {jax.__version__}"


def markdown(results: List[Dict[str, object]]) -> str:
    lines = ["| images -> size | forward: ours | jax.image | speed-up | gradient: ours "
             "| jax.image | speed-up | forward agree | gradient agree |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in results:
        case = f"{tuple(r['shape'])} -> {tuple(r['size'])}"
        lines.append(
            f"| {case} | {r['ours forward']:.2f} ms | {r['jax.image forward']:.2f} ms | "
            f"{r['jax.image forward'] / r['ours forward']:.1f}x | "
            f"{r['ours gradient']:.2f} ms | {r['jax.image gradient']:.2f} ms | "
            f"{r['jax.image gradient'] / r['ours gradient']:.1f}x | "
            f"{r['forward_agreement']} | {r['gradient_agreement']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="two small cases, 3 repeats")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    shapes, repeats = (QUICK_SHAPES, 3) if args.quick else (SHAPES, args.repeats)
    results = [run_case(shape, size, repeats) for shape, size in shapes]
    print(f"{time.strftime('%Y-%m-%d')}, {_machine()}, median of {repeats} calls\n")
    print(markdown(results))
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"machine": _machine(), "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
