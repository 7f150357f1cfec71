"""Plain NumPy float64 reference of bilinear resizing and of its gradient.

Written from the definition, independently of the kernels: every output pixel
samples the input at a source coordinate, blending the two neighbouring pixels
floor(src) and floor(src) + 1 along each axis, each clamped to the image.
"""

import math
from typing import Iterator, List, Tuple

import numpy as np

# (lower index, upper index, weight of the upper index) for one output index.
AxisSample = Tuple[int, int, float]


def source_coordinate(index: int, in_size: int, out_size: int,
                      align_corners: bool, half_pixel_centers: bool) -> float:
    """Where output pixel `index` samples the input, in input pixel units."""
    if align_corners and out_size > 1:
        scale = (in_size - 1) / (out_size - 1)
    else:
        scale = in_size / out_size
    if half_pixel_centers:
        return (index + 0.5) * scale - 0.5
    return index * scale


def axis_samples(in_size: int, out_size: int, align_corners: bool,
                 half_pixel_centers: bool) -> List[AxisSample]:
    """The two clamped neighbours and the blend weight for each output index."""
    samples = []
    for index in range(out_size):
        src = source_coordinate(index, in_size, out_size, align_corners,
                                half_pixel_centers)
        floor = math.floor(src)
        lower = min(max(floor, 0), in_size - 1)
        upper = min(max(floor + 1, 0), in_size - 1)
        samples.append((lower, upper, src - floor))
    return samples


# (input row, input column, weight) of one of the four input pixels an output
# pixel blends.
Tap = Tuple[int, int, float]


def pixel_taps(in_height: int, in_width: int, out_height: int, out_width: int,
               align_corners: bool, half_pixel_centers: bool
               ) -> Iterator[Tuple[int, int, List[Tap]]]:
    """Yields (output row, output column, its four taps) for every output pixel."""
    rows = axis_samples(in_height, out_height, align_corners, half_pixel_centers)
    cols = axis_samples(in_width, out_width, align_corners, half_pixel_centers)
    for y, (top, bottom, wy) in enumerate(rows):
        for x, (left, right, wx) in enumerate(cols):
            yield y, x, [(top, left, (1 - wy) * (1 - wx)), (top, right, (1 - wy) * wx),
                         (bottom, left, wy * (1 - wx)), (bottom, right, wy * wx)]


def resize_bilinear(images: np.ndarray, out_height: int, out_width: int,
                    align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """Resizes NHWC `images` to [out_height, out_width], in float64."""
    images = np.asarray(images, dtype=np.float64)
    batch, in_height, in_width, channels = images.shape
    output = np.zeros((batch, out_height, out_width, channels), dtype=np.float64)
    for y, x, taps in pixel_taps(in_height, in_width, out_height, out_width,
                                 align_corners, half_pixel_centers):
        for in_y, in_x, weight in taps:
            output[:, y, x, :] += weight * images[:, in_y, in_x, :]
    return output


def resize_bilinear_grad(grads: np.ndarray, in_height: int, in_width: int,
                         align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """Gradient of `resize_bilinear` w.r.t. its images, given output gradients:
    each output gradient flows back to its four taps, times their weights."""
    grads = np.asarray(grads, dtype=np.float64)
    batch, out_height, out_width, channels = grads.shape
    images_grad = np.zeros((batch, in_height, in_width, channels), dtype=np.float64)
    for y, x, taps in pixel_taps(in_height, in_width, out_height, out_width,
                                 align_corners, half_pixel_centers):
        for in_y, in_x, weight in taps:
            images_grad[:, in_y, in_x, :] += weight * grads[:, y, x, :]
    return images_grad
