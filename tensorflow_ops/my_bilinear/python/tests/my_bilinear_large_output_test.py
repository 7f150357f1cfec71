"""Outputs larger than the last-level cache, which the CPU kernel writes with
streaming stores and up-sampled rows two at a time, and outputs of half the
cache, whose up-sampled RGB rows it writes 64 bytes at a time:
float32 results equal tf.raw_ops.ResizeBilinear bit for bit, on one intra-op
thread and on several.
Outputs past the size the kernels advise for huge pages
(bilinear_huge_pages.h): forward and gradient hold the bits of the same
images resized one at a time, in outputs too small to be advised.

The output is sized from the cache size the loaded kernels decide with (the
library exports it), so that the test takes the streaming path wherever it
runs. Its Bazel target sets that size (TENSORFLOW_OPS_LAST_LEVEL_CACHE=32M),
so that the outputs are as large on every machine; my_bilinear_cpu_paths_test
checks that the kernels take the setting.
"""

import functools
from typing import Callable, Tuple

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import loaded_library
from tensorflow_ops.my_bilinear.python.tests import test_cases


@functools.lru_cache(maxsize=None)
def _last_level_cache_bytes() -> int:
    """The cache size the loaded kernels decide with (their own export), read
    once: the library decides it once per process."""
    return loaded_library.kernel_cache_bytes()


def _up_sampling_case(channels: int) -> Tuple[Tuple[int, int, int, int], Tuple[int, int]]:
    """Images whose 2x up-sampled float32 output is just past the cache size
    (the kernel streams from 3/4 of it) and 4x the input."""
    output_bytes = _last_level_cache_bytes() + (1 << 20)
    pixels_per_image = 256 * 256
    batch = -(-output_bytes // (pixels_per_image * channels * 4))
    return (batch, 128, 128, channels), (256, 256)


class MyBilinearLargeOutputTest(test_util.TestCase, parameterized.TestCase):

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_float32_equals_tensorflow_bitwise(self, align_corners,
                                               half_pixel_centers):
        attrs = dict(align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)
        rng = np.random.default_rng(3)
        for channels in (16, 64):
            shape, size = _up_sampling_case(channels)
            images = rng.standard_normal(shape, np.float32)
            expected = tf.raw_ops.ResizeBilinear(images=images, size=size,
                                                 **attrs).numpy()
            self.assertGreater(expected.nbytes, _last_level_cache_bytes())
            with self.subTest(channels=channels, threads="default"):
                got = ops.my_bilinear(images=images, size=size, **attrs).numpy()
                self.assertEqual(got.tobytes(), expected.tobytes())
            with self.subTest(channels=channels, threads=1):
                self.assertEqual(_on_one_thread(images, size, attrs).tobytes(),
                                 expected.tobytes())

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_rgb_whole_lines_equal_tensorflow_bitwise(self, align_corners,
                                                      half_pixel_centers):
        """Up-sampled RGB images (the row-reusing path) into half the cache:
        past the quarter from which rows are written 64 bytes at a time,
        short of the 3/4 from which outputs stream."""
        attrs = dict(align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)
        size = (224, 224)
        image_bytes = size[0] * size[1] * 3 * 4
        batch = -(-(_last_level_cache_bytes() // 2) // image_bytes)
        rng = np.random.default_rng(4)
        for dtype in (np.float32, np.uint8):
            images = (rng.uniform(0, 255, (batch, 64, 64, 3))).astype(dtype)
            expected = tf.raw_ops.ResizeBilinear(images=images, size=size,
                                                 **attrs).numpy()
            self.assertBetween(expected.nbytes, _last_level_cache_bytes() // 2,
                               _last_level_cache_bytes() // 4 * 3)
            with self.subTest(dtype=dtype.__name__, threads="default"):
                got = ops.my_bilinear(images=images, size=size, **attrs).numpy()
                self.assertEqual(got.tobytes(), expected.tobytes())
            with self.subTest(dtype=dtype.__name__, threads=1):
                self.assertEqual(_on_one_thread(images, size, attrs).tobytes(),
                                 expected.tobytes())


# kMinHugePageAdviceBytes of bilinear_huge_pages.h, and a margin past it.
_HUGE_PAGE_ADVICE_BYTES = 32 << 20
_PAST_ADVICE_BYTES = _HUGE_PAGE_ADVICE_BYTES + (6 << 20)


class MyBilinearHugePageOutputTest(test_util.TestCase, parameterized.TestCase):
    """Whatever backs a large output, it holds each image's bits."""

    def _assert_per_image_bits(self, resize: Callable[..., tf.Tensor],
                               *batched: np.ndarray) -> np.ndarray:
        """resize(*batched) is past the advice size and holds, for its first,
        middle and last image, the bits of resize on that image alone."""
        whole = resize(*batched).numpy()
        self.assertGreater(whole.nbytes, _PAST_ADVICE_BYTES - (1 << 20))
        batch = whole.shape[0]
        for b in (0, batch // 2, batch - 1):
            alone = resize(*(x[b:b + 1] for x in batched)).numpy()
            self.assertEqual(whole[b:b + 1].tobytes(), alone.tobytes(), f"image {b}")
        return whole

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_forward_equals_per_image_results(self, align_corners,
                                              half_pixel_centers):
        attrs = dict(align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)
        size = (192, 160)
        batch = -(-_PAST_ADVICE_BYTES // (size[0] * size[1] * 8 * 4))
        images = np.random.default_rng(5).standard_normal((batch, 97, 83, 8),
                                                          np.float32)
        whole = self._assert_per_image_bits(
            lambda x: ops.my_bilinear(images=x, size=size, **attrs), images)
        theirs = tf.raw_ops.ResizeBilinear(images=images, size=size, **attrs)
        self.assertEqual(whole.tobytes(), theirs.numpy().tobytes())

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_gradient_equals_per_image_results(self, align_corners,
                                               half_pixel_centers):
        attrs = dict(align_corners=align_corners,
                     half_pixel_centers=half_pixel_centers)
        # A 2x down-sampling, whose input gradient is the large output.
        height, width, channels = 256, 256, 16
        batch = -(-_PAST_ADVICE_BYTES // (height * width * channels * 4))
        shape = (batch, height, width, channels)
        grads = np.random.default_rng(6).uniform(
            -1, 1, (batch, height // 2, width // 2, channels)).astype(np.float32)
        original = np.zeros(shape, np.float32)
        whole = self._assert_per_image_bits(
            lambda g, x: ops.my_bilinear_grad(grads=g, original_image=x, **attrs),
            grads, original)
        theirs = tf.raw_ops.ResizeBilinearGrad(grads=grads, original_image=original,
                                               **attrs)
        self.assertAllClose(whole, theirs, rtol=1e-5, atol=1e-6)


def _on_one_thread(images: np.ndarray, size: Tuple[int, int], attrs) -> np.ndarray:
    """MyBilinear in a session whose kernels have one intra-op thread."""
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1)
    with tf.Graph().as_default():
        resized = ops.my_bilinear(images=images, size=size, **attrs)
        with tf.compat.v1.Session(config=config) as session:
            return session.run(resized)


if __name__ == "__main__":
    tf.test.main()
