"""Sizes past 32 bits: an impossible request is a clean error, and an output of
more than 2^31 elements is computed right, where the machine has the memory.

(Very wide single rows and tall single columns, and the gradient of a half
image 2^30 rows high, are in my_bilinear_huge_sizes_test.py.)
"""

import ctypes
import unittest

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import bilinear_reference

# 46341^2 = 2,147,488,281 > 2^31 output elements: 4.3 GB in half.
_SIDE = 46341
_NEEDED_BYTES = 10 << 30  # output, input, and TensorFlow itself, with room


# prctl(2)'s options that set and read whether transparent huge pages are off
# for this process.
_PR_SET_THP_DISABLE, _PR_GET_THP_DISABLE = 41, 42


def _set_thp_disable(value: int) -> bool:
    """Sets PR_SET_THP_DISABLE; False where prctl refuses (a sandbox)."""
    return ctypes.CDLL(None).prctl(_PR_SET_THP_DISABLE, value, 0, 0, 0) == 0


def _decline_transparent_huge_pages(test: unittest.TestCase) -> None:
    """Turns transparent huge pages off for this process until `test` ends,
    then back to what they were. madvise(MADV_HUGEPAGE) still succeeds and
    marks the range; only the backing changes. Where prctl refuses, the test
    runs with huge pages, only slower."""
    before = ctypes.CDLL(None).prctl(_PR_GET_THP_DISABLE, 0, 0, 0, 0)
    if before >= 0 and _set_thp_disable(1):
        test.addCleanup(_set_thp_disable, before)


def _available_memory() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


class MyBilinearHugeOutputTest(test_util.TestCase):

    def test_request_too_large_to_allocate_is_an_error(self):
        images = np.ones((1, 2, 2, 1), np.float32)
        for out_type in [tf.half, tf.float32, tf.float64]:
            with self.subTest(out_type=out_type.name):
                # 2^40 elements: fits 64-bit sizes, not in memory.
                with self.assertRaisesRegex(
                        (tf.errors.ResourceExhaustedError, tf.errors.InvalidArgumentError),
                        r"1048576,1048576"):
                    ops.my_bilinear(images=images, size=[1 << 20, 1 << 20],
                                    out_type=out_type)
        with self.assertRaises((tf.errors.ResourceExhaustedError,
                                tf.errors.InvalidArgumentError)):
            my_bilinear(images, (1 << 20, 1 << 20))
        # The process goes on working.
        self.assertAllEqual(my_bilinear(images, (3, 3)), np.ones((1, 3, 3, 1)))

    def test_output_of_more_than_2_31_elements(self):
        if _available_memory() < _NEEDED_BYTES:
            self.skipTest(f"needs {_NEEDED_BYTES >> 30} GiB of available memory")
        # The kernel still advises the output for huge pages (64-bit range math
        # included); this process only declines them. On a virtual machine
        # that hands free 2 MiB blocks back to its host, faulting 4.3 GB in as
        # huge pages cost 10 to 13 s of CPU against 2 to 3 s as 4 KiB pages
        # (docs/cpu_performance.md#fresh-outputs-and-page-faults); what the
        # advice does is my_bilinear_huge_page_advice_test's.
        _decline_transparent_huge_pages(self)
        images = np.array([[1, 2, 4], [8, 16, 32], [64, 128, 256]],
                          np.float16).reshape(1, 3, 3, 1)
        attrs = dict(align_corners=False, half_pixel_centers=True)
        resized = ops.my_bilinear(images=images, size=[_SIDE, _SIDE], out_type=tf.half,
                                  **attrs)
        self.assertEqual(resized.shape, (1, _SIDE, _SIDE, 1))
        self.assertGreater(resized.shape.num_elements(), 2**31)

        rows = bilinear_reference.axis_samples(3, _SIDE, **attrs)
        columns = bilinear_reference.axis_samples(3, _SIDE, **attrs)
        image = images[0, :, :, 0].astype(np.float64)
        left = np.array([c[0] for c in columns])
        right = np.array([c[1] for c in columns])
        x_weight = np.array([c[2] for c in columns])
        # Rows at the start, the middle and the end: the last ones lie past
        # element 2^31 of the output, where 32-bit index math would wrap.
        for y in [0, 1, _SIDE // 2, _SIDE - 2, _SIDE - 1]:
            top, bottom, y_weight = rows[y]
            expected = ((1 - y_weight) * ((1 - x_weight) * image[top, left]
                                          + x_weight * image[top, right])
                        + y_weight * ((1 - x_weight) * image[bottom, left]
                                      + x_weight * image[bottom, right]))
            got = resized[0, y, :, 0].numpy().astype(np.float64)
            with self.subTest(row=y):
                self.assertAllClose(got, expected, rtol=2e-3, atol=0)
        self.assertEqual(float(resized[0, -1, -1, 0]), 256.0)


if __name__ == "__main__":
    tf.test.main()
