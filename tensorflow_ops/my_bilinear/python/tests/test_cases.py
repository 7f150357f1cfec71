"""Shapes, attributes and dtypes shared by the MyBilinear tests."""

from typing import List, Tuple

import numpy as np
import tensorflow as tf

# (images shape [b, h, w, c], output size [out_h, out_w])
ResizeCase = Tuple[Tuple[int, int, int, int], Tuple[int, int]]

# (align_corners, half_pixel_centers): the three valid combinations.
ATTRS = [(True, False), (False, False), (False, True)]
ATTR_PARAMS = [
    dict(testcase_name=f"align_corners_{ac}_half_pixel_{hp}",
         align_corners=ac, half_pixel_centers=hp) for ac, hp in ATTRS
]

BFLOAT16 = tf.bfloat16.as_numpy_dtype
DTYPES = [np.float16, BFLOAT16, np.float32, np.float64]

# Agreement with the float64 NumPy reference, by dtype: about two rounding
# steps of the output type (half and bfloat16 results are rounded from float).
REFERENCE_TOLERANCE = {np.float16: 2e-3, BFLOAT16: 1.6e-2, np.float32: 1e-5,
                       np.float64: 1e-12}

HAND_MADE_CASES: List[ResizeCase] = [
    ((2, 5, 7, 3), (9, 4)),     # up in height, down in width
    ((1, 1, 1, 1), (4, 5)),     # 1x1 input
    ((3, 6, 5, 4), (1, 1)),     # 1x1 output
    ((1, 1, 1, 3), (1, 1)),     # 1x1 to 1x1
    ((0, 4, 4, 3), (8, 8)),     # empty batch
    ((2, 4, 4, 17), (4, 4)),    # equal sizes, 17 channels
    ((1, 8, 9, 1), (3, 2)),     # downsampling, 1 channel
    ((2, 3, 4, 4), (12, 17)),   # upsampling, 4 channels
    ((1, 1, 6, 3), (5, 1)),     # a single input row, a single output column
    ((1, 2, 2, 2), (3, 3)),     # upsampling that hits input pixels exactly
]


def random_cases(count: int, seed: int) -> List[ResizeCase]:
    """Random small shapes, reproducible from `seed`."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        shape = (int(rng.integers(1, 4)), int(rng.integers(1, 13)),
                 int(rng.integers(1, 13)), int(rng.choice([1, 2, 3, 4, 5, 17])))
        size = (int(rng.integers(1, 21)), int(rng.integers(1, 21)))
        cases.append((shape, size))
    return cases


ALL_CASES: List[ResizeCase] = HAND_MADE_CASES + random_cases(count=24, seed=20261129)


def random_images(shape, dtype, seed: int = 0) -> np.ndarray:
    """Values in [0, 1) of `dtype`: images are nonnegative, so every output is a
    convex combination of inputs and a relative tolerance is meaningful."""
    return np.random.default_rng(seed).random(shape).astype(dtype)
