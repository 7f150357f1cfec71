"""The XLA tests of my_bilinear_xla_test with FMA contraction off in XLA,
where they require the XLA kernels' results to be bitwise those of the CPU
kernels: the same weights, the same operations, in the same order. And the
checks that only bits make: the gradient op alone in every floating type,
up-sampling factors up to 1024, and the signs of zero sums. This op's HLO (no
dot or convolution) is the same with XLA's defaults, so these need no second
run there (my_bilinear_xla_test)."""

import os

# Read by XLA when it first compiles, so it must be set before that.
os.environ["XLA_FLAGS"] = " ".join(
    [os.environ.get("XLA_FLAGS", ""), "--xla_cpu_max_isa=AVX"]).strip()

# pylint: disable=g-import-not-at-top,wrong-import-position
from typing import List

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_xla_test as xla_test
from tensorflow_ops.my_bilinear.python.tests import test_cases
# The tests themselves, run here in bitwise mode.
from tensorflow_ops.my_bilinear.python.tests.my_bilinear_xla_test import MyBilinearXlaTest  # pylint: disable=unused-import


class XlaWithoutFmaTest(test_util.TestCase):

    def test_xla_rounds_multiply_and_add_separately(self):
        """The flag took effect: XLA computes a + (b - a) * t with two
        roundings, as NumPy does, so the bitwise comparisons are meaningful."""
        self.assertTrue(xla_test.BITWISE)
        rng = np.random.default_rng(0)
        a, b, t = (rng.random(4096, np.float32) for _ in range(3))
        lerp = tf.function(lambda a, b, t: a + (b - a) * t, jit_compile=True)
        self.assertEqual(lerp(a, b, t).numpy().tobytes(), (a + (b - a) * t).tobytes())


class MyBilinearXlaBitsTest(xla_test.XlaTestCase):
    """Checks run with FMA off only: assertXlaMatches compares bits here."""

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_grad_op_matches_eager(self, align_corners, half_pixel_centers):
        rng = np.random.default_rng(2)
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        inputs = [(rng.uniform(-1, 1, (shape[0], *size, shape[3])).astype(dtype), shape)
                  for shape, size in xla_test.CASES for dtype in xla_test.OUT_DTYPES]

        def grad_all(grads: List[tf.Tensor]) -> List[tf.Tensor]:
            return [ops.my_bilinear_grad(grads=g, original_image=tf.zeros(shape, g.dtype),
                                         **attrs)
                    for g, (_, shape) in zip(grads, inputs)]

        xla = tf.function(grad_all, jit_compile=True)([g for g, _ in inputs])
        eager = grad_all([tf.constant(g) for g, _ in inputs])
        for (grads, shape), x_result, e_result in zip(inputs, xla, eager):
            # Each input pixel sums at most (out/in + 2) terms per axis.
            terms = np.prod([grads.shape[a] // shape[a] + 2 for a in (1, 2)])
            with self.subTest(shape=shape, grads=grads.shape, dtype=grads.dtype.name):
                self.assertXlaMatches(x_result, e_result, scale=terms, terms=terms)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_large_upsampling_factors_match_eager(self, align_corners,
                                                  half_pixel_centers):
        """Factors 64 and 1024 along one axis, and 1x1 to 512x512 (a global
        context branch): the gradient loops over hundreds of slots there."""
        rng = np.random.default_rng(4)
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        cases = [((1, 2, 3, 2), (128, 3), np.float32),
                 ((1, 3, 2, 1), (3, 2048), np.float32),
                 ((2, 1, 1, 3), (512, 512), np.float32),
                 ((1, 1, 1, 2), (512, 512), np.float64),
                 ((1, 2, 2, 1), (128, 128), np.float16)]
        images = [xla_test.random_images(shape, dtype, rng) for shape, _, dtype in cases]
        grads = [rng.uniform(-1, 1, (shape[0], *size, shape[3])).astype(dtype)
                 for shape, size, dtype in cases]

        def both(images: List[tf.Tensor], grads: List[tf.Tensor]):
            return [(ops.my_bilinear(images=x, size=size, out_type=dtype, **attrs),
                     ops.my_bilinear_grad(grads=g, original_image=x, **attrs))
                    for x, g, (_, size, dtype) in zip(images, grads, cases)]

        xla = tf.function(both, jit_compile=True)(images, grads)
        eager = both([tf.constant(x) for x in images], [tf.constant(g) for g in grads])
        for (shape, size, dtype), (x_out, x_grad), (e_out, e_grad) in zip(
                cases, xla, eager):
            terms = np.prod([size[a] // shape[a + 1] + 2 for a in (0, 1)])
            with self.subTest(shape=shape, size=size, dtype=np.dtype(dtype).name):
                self.assertXlaMatches(x_out, e_out, scale=2, terms=3)
                self.assertXlaMatches(x_grad, e_grad, scale=terms, terms=terms)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_grads_of_negative_zeros_give_positive_zeros(self, align_corners,
                                                         half_pixel_centers):
        """The CPU's sums start at +0, so -0 terms sum to +0; XLA drops a
        `0 +`, so the kernel makes the zero's sign right, unrolled and looped."""
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        cases = [((1, 3, 3, 1), (12, 12)), ((1, 2, 3, 2), (40, 3)), ((1, 1, 1, 1), (2, 2))]
        grads = [np.full((shape[0], *size, shape[3]), -0.0, np.float32)
                 for shape, size in cases]

        def grad_all(grads: List[tf.Tensor]) -> List[tf.Tensor]:
            return [ops.my_bilinear_grad(grads=g, original_image=tf.zeros(shape), **attrs)
                    for g, (shape, _) in zip(grads, cases)]

        xla = tf.function(grad_all, jit_compile=True)(grads)
        eager = grad_all([tf.constant(g) for g in grads])
        for (shape, size), x_result, e_result in zip(cases, xla, eager):
            with self.subTest(shape=shape, size=size):
                self.assertFalse(np.signbit(e_result.numpy()).any())
                self.assertEqual(x_result.numpy().tobytes(), e_result.numpy().tobytes())


if __name__ == "__main__":
    tf.test.main()
