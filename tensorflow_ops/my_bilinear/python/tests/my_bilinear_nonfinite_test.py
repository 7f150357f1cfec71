"""NaN and Inf in MyBilinear and MyBilinearGrad, against TensorFlow's ops.

Forward: NaN and Inf propagate exactly as in tf.raw_ops.ResizeBilinear (the
same bits in float32, the same positions in double).

Gradient: MyBilinearGrad is the true adjoint, so an output pixel contributes
nothing to an input pixel it reads with weight exactly 0. TensorFlow's
ResizeBilinearGrad still adds upstream * 0 there, which is NaN for an Inf
upstream gradient. So wherever an Inf upstream gradient reaches an input pixel
only through such taps (an identity resize, or any output coordinate that
falls exactly on an input pixel), ours is +-Inf where TensorFlow's is NaN.
Everything else (every NaN, every finite value, every Inf of TensorFlow's) is
at the same position. This is documented in docs/my_bilinear_contract.md#nan-and-inf, not a defect to fix.
"""

from typing import Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import test_cases

_SPECIAL = np.array([np.nan, np.inf, -np.inf], np.float64)


def _with_nonfinite(shape, seed: int, dtype=np.float32) -> np.ndarray:
    """Values in [-1, 1) with about one in eight replaced by NaN, Inf or -Inf."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(-1, 1, shape)
    mask = rng.random(shape) < 0.125
    values[mask] = rng.choice(_SPECIAL, int(mask.sum()))
    return values.astype(dtype)


def _geometries(count: int, seed: int):
    """(images shape, output size, attrs): up, down and equal sizes."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 9)),
                 int(rng.integers(1, 9)), int(rng.choice([1, 3, 4, 5])))
        size = (int(rng.integers(1, 13)), int(rng.integers(1, 13)))
        if i % 5 == 0:
            size = shape[1:3]  # identity
        align_corners, half_pixel_centers = test_cases.ATTRS[i % 3]
        yield shape, size, dict(align_corners=align_corners,
                                half_pixel_centers=half_pixel_centers)


def _kind(values: np.ndarray) -> np.ndarray:
    """Per element: 0 finite, 1 NaN, 2 +Inf, 3 -Inf."""
    return np.select([np.isnan(values), values == np.inf, values == -np.inf],
                     [1, 2, 3], 0)


def _axis_taps(in_size: int, out_size: int, attrs: dict):
    """(lower, upper, weight of upper) per output index, as TensorFlow forms
    them: in float32 (which decides which coordinates are exact integers),
    lower = floor and upper = ceil, both clamped. Where the coordinate is an
    integer, upper == lower and the weight of upper is exactly 0."""
    f32 = np.float32
    if attrs["align_corners"] and out_size > 1:
        scale = f32(in_size - 1) / f32(out_size - 1)
    else:
        scale = f32(in_size) / f32(out_size)
    taps = []
    for index in range(out_size):
        if attrs["half_pixel_centers"]:
            src = (f32(index) + f32(0.5)) * scale - f32(0.5)
        else:
            src = f32(index) * scale
        floor, ceil = np.floor(src), np.ceil(src)
        taps.append((min(max(int(floor), 0), in_size - 1),
                     min(max(int(ceil), 0), in_size - 1), float(src - floor)))
    return taps


def _reference_grad(grads: np.ndarray, in_size: Tuple[int, int],
                    attrs: dict) -> np.ndarray:
    """The true adjoint in float64: each output gradient scattered to those of
    its four taps whose weight is not exactly 0."""
    batch, out_height, out_width, channels = grads.shape
    result = np.zeros((batch,) + tuple(in_size) + (channels,))
    rows = _axis_taps(in_size[0], out_height, attrs)
    columns = _axis_taps(in_size[1], out_width, attrs)
    with np.errstate(invalid="ignore"):  # Inf - Inf
        for y, (top, bottom, wy) in enumerate(rows):
            for x, (left, right, wx) in enumerate(columns):
                for in_y, in_x, weight in [(top, left, (1 - wy) * (1 - wx)),
                                           (top, right, (1 - wy) * wx),
                                           (bottom, left, wy * (1 - wx)),
                                           (bottom, right, wy * wx)]:
                    if weight == 0:
                        continue
                    result[:, in_y, in_x, :] += weight * grads[:, y, x, :]
    return result


class MyBilinearNonFiniteTest(test_util.TestCase):

    def test_forward_propagates_exactly_as_tensorflow(self):
        for index, (shape, size, attrs) in enumerate(_geometries(90, seed=1)):
            images = _with_nonfinite(shape, seed=index)
            theirs = tf.raw_ops.ResizeBilinear(images=images, size=size, **attrs).numpy()
            with self.subTest(shape=shape, size=size, **attrs):
                ours = ops.my_bilinear(images=images, size=size, **attrs).numpy()
                # Same bits, NaN at the same places (its payload aside).
                self.assertAllEqual(_kind(ours), _kind(theirs))
                finite_or_inf = ~np.isnan(ours)
                self.assertEqual(ours[finite_or_inf].tobytes(),
                                 theirs[finite_or_inf].tobytes())
                # Half results are the float ones, rounded once.
                half = ops.my_bilinear(images=images, size=size, out_type=tf.half,
                                       **attrs).numpy()
                self.assertAllEqual(_kind(half), _kind(theirs.astype(np.float16)))
                self.assertAllEqual(half[finite_or_inf],
                                    theirs[finite_or_inf].astype(np.float16))
                # Double computes its coordinates in double: same positions.
                double = ops.my_bilinear(images=images.astype(np.float64), size=size,
                                         out_type=tf.float64, **attrs).numpy()
                self.assertAllEqual(_kind(double), _kind(theirs))

    def test_gradient_nonfinite_positions_against_tensorflow(self):
        differing = 0
        for index, (shape, size, attrs) in enumerate(_geometries(90, seed=2)):
            if tuple(size) == shape[1:3]:
                continue  # the identity: see the next test
            grads = _with_nonfinite((shape[0],) + tuple(size) + (shape[3],), seed=index)
            images = np.zeros(shape, np.float32)
            ours = ops.my_bilinear_grad(grads=grads, original_image=images,
                                        **attrs).numpy()
            theirs = tf.raw_ops.ResizeBilinearGrad(grads=grads, original_image=images,
                                                   **attrs).numpy()
            with self.subTest(shape=shape, size=size, **attrs):
                adjoint = _reference_grad(grads.astype(np.float64), shape[1:3], attrs)
                self.assertAllEqual(_kind(ours), _kind(adjoint))
                # The only difference: ours +-Inf where TensorFlow has NaN.
                differs = _kind(ours) != _kind(theirs)
                self.assertTrue(np.all(np.isinf(ours[differs])))
                self.assertTrue(np.all(np.isnan(theirs[differs])))
                differing += int(differs.sum())
        # The geometries include exact-integer coordinates, so the documented
        # difference does occur (and is the only one).
        self.assertGreater(differing, 0)

    def test_identity_gradient_passes_inf_through(self):
        grads = np.array([[[[np.inf], [-0.0], [1e-45], [np.nan], [-np.inf]]]], np.float32)
        for align_corners, half_pixel_centers in test_cases.ATTRS:
            attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
            ours = ops.my_bilinear_grad(grads=grads, original_image=grads, **attrs)
            self.assertEqual(ours.numpy().tobytes(), grads.tobytes())
            # TensorFlow multiplies the Inf by a weight of exactly 0 as well.
            theirs = tf.raw_ops.ResizeBilinearGrad(grads=grads, original_image=grads,
                                                   **attrs).numpy()
            self.assertTrue(np.isnan(theirs[0, 0, 0, 0]) and np.isnan(theirs[0, 0, 4, 0]))


if __name__ == "__main__":
    tf.test.main()
