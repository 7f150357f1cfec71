"""MyBilinear and MyBilinearGrad under tf.function(jit_compile=True), that is
through their XLA kernels, against the eager CPU kernels.

The XLA kernels use the CPU kernels' weights and order of operations, so the
results are bitwise equal as long as XLA rounds every multiply and add. XLA's
CPU backend, however, fuses a multiply and an add into one FMA (one rounding
instead of two) wherever the machine has FMA instructions, while the CPU
kernels are compiled with -ffp-contract=off. So:
- my_bilinear_xla_bitwise_test runs MyBilinearXlaTest with FMA off in XLA
  (XLA_FLAGS=--xla_cpu_max_isa=AVX), and requires bitwise equality, with
  checks of its own: the gradient op alone in every type, large up-sampling
  factors and the signs of zero sums;
- this target runs MyBilinearXlaTest with XLA's defaults, and allows each fused
  multiply-add's saved rounding: 2 ulp at the data's scale per addition. This
  op's HLO (no dot or convolution) is the same in both; only the machine code
  XLA makes of it differs, so the forward pass in every type pair and both
  orders of gradients show that the defaults compile it to the same results
  within those roundings. Here too run the Keras training under jit_compile
  and the errors.
"""

import os
import re
from typing import Callable, List, Tuple

from absl.testing import parameterized
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import kernels

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import MyBilinearLayer
from tensorflow_ops.my_bilinear import SUPPORTS_JIT_COMPILE
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import test_cases

NO_FMA_FLAG = "--xla_cpu_max_isa=AVX"
BITWISE = NO_FMA_FLAG in os.environ.get("XLA_FLAGS", "")

IMAGE_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64,
                np.float16, test_cases.BFLOAT16, np.float32, np.float64]
OUT_DTYPES = [np.float16, test_cases.BFLOAT16, np.float32, np.float64]

# (images shape, size): up, down (with input rows no output row reads), equal,
# mixed, and a single input row read by 20 output rows.
CASES: List[test_cases.ResizeCase] = [
    ((1, 2, 3, 2), (7, 11)),
    ((1, 9, 10, 2), (3, 4)),
    ((2, 4, 5, 3), (4, 5)),
    ((2, 5, 7, 3), (9, 4)),
    ((1, 1, 3, 1), (20, 2)),
]


def random_images(shape, dtype, rng) -> np.ndarray:
    """Signed values across much of an integer type's range (int64 beyond
    2^24, so its conversion rounds), or in [-1, 2) for floating types."""
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        low, high = max(int(info.min), -2**40), min(int(info.max), 2**40)
        return rng.integers(low, high, shape, endpoint=True).astype(dtype)
    return rng.uniform(-1, 2, shape).astype(dtype)


# Explicit mantissa bits of each floating type.
_MANTISSA_BITS = {np.dtype(np.float16): 10, np.dtype(test_cases.BFLOAT16): 7,
                  np.dtype(np.float32): 23, np.dtype(np.float64): 52}


def _ulp(value: float, dtype) -> float:
    """The spacing of `dtype`'s values near |value|."""
    exponent = np.floor(np.log2(max(abs(float(value)), 1e-300)))
    return float(np.exp2(exponent - _MANTISSA_BITS[np.dtype(dtype)]))


class XlaTestCase(test_util.TestCase, parameterized.TestCase):

    def assertXlaMatches(self, xla: np.ndarray, eager: np.ndarray, scale, terms=1):
        """Bitwise equal with FMA off; else within 2 ulp of `scale` (the data's
        magnitude) per fused addition, `terms` of them."""
        xla, eager = np.asarray(xla), np.asarray(eager)
        self.assertEqual(xla.dtype, eager.dtype)
        self.assertEqual(xla.shape, eager.shape)
        if BITWISE:
            self.assertEqual(xla.tobytes(), eager.tobytes())
            return
        dtype = eager.dtype
        xla, eager = xla.astype(np.float64), eager.astype(np.float64)
        # Values past the type's range (integers into half) overflow alike.
        finite = np.isfinite(eager)
        self.assertAllEqual(xla[~finite], eager[~finite])
        error = np.abs(xla[finite] - eager[finite])
        tolerance = 2 * terms * _ulp(scale, dtype)
        self.assertTrue(np.all(error <= tolerance),
                        f"max error {error.max(initial=0)} > {tolerance}")


class MyBilinearXlaTest(XlaTestCase):

    def test_library_has_xla_kernels(self):
        self.assertTrue(SUPPORTS_JIT_COMPILE)
        tf.function(lambda x: x + 1, jit_compile=True)(tf.constant(1.0))
        for op_name in ("MyBilinear", "MyBilinearGrad"):
            devices = {k.device_type
                       for k in kernels.get_registered_kernels_for_op(op_name).kernel}
            self.assertIn("XLA_CPU_JIT", devices, op_name)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_forward_matches_eager_for_every_dtype_pair(self, align_corners,
                                                        half_pixel_centers):
        rng = np.random.default_rng(1)
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        # The identity (equal sizes, a cast through the accumulator type)
        # for every (images, out_type) pair; the mixed resize for every image
        # type into float32 and a few into each other out_type; the other
        # sizes for four pairs. Each op compiled costs time.
        pairs = [(dtype, out_dtype) for dtype in IMAGE_DTYPES for out_dtype in OUT_DTYPES]
        mixed_pairs = [(dtype, np.float32) for dtype in IMAGE_DTYPES] + [
            (dtype, out_dtype) for dtype in (np.uint8, np.int64, np.float64)
            for out_dtype in (np.float16, test_cases.BFLOAT16, np.float64)]
        few_pairs = [(np.uint8, np.float32), (np.int64, np.float64),
                     (np.float16, np.float16), (np.float32, np.float32)]
        inputs = [(random_images(shape, dtype, rng), size, out_dtype)
                  for (shape, size), dtype_pairs in zip(
                      CASES, [few_pairs, few_pairs, pairs, mixed_pairs, few_pairs])
                  for dtype, out_dtype in dtype_pairs]

        def resize_all(images: List[tf.Tensor]) -> List[tf.Tensor]:
            return [ops.my_bilinear(images=x, size=size, out_type=out_dtype, **attrs)
                    for x, (_, size, out_dtype) in zip(images, inputs)]

        # One compilation for all cases: each jit compile costs ~0.1 s.
        xla = tf.function(resize_all, jit_compile=True)([x for x, _, _ in inputs])
        eager = resize_all([tf.constant(x) for x, _, _ in inputs])
        for (images, size, out_dtype), x_result, e_result in zip(inputs, xla, eager):
            with self.subTest(shape=images.shape, size=size, dtype=images.dtype.name,
                              out_type=np.dtype(out_dtype).name):
                self.assertXlaMatches(x_result, e_result,
                                      scale=np.max(np.abs(images.astype(np.float64))),
                                      terms=3)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_first_and_second_order_gradients_match_eager(self, align_corners,
                                                          half_pixel_centers):
        """The registered gradients inside jit_compile=True: d(loss)/d(images)
        and the gradient of a gradient penalty, as the eager ops give them."""
        rng = np.random.default_rng(3)
        # Up and mixed sizes in every floating type, down and equal in float32.
        cases = [(shape, size, dtype) for shape, size in (CASES[0], CASES[3])
                 for dtype in OUT_DTYPES]
        cases += [(shape, size, np.float32) for shape, size in CASES[1:3]]
        # Loss weights 1/2, 1, 2 and 4: powers of two, so that every operation
        # of the gradients outside the two ops (2 * w * r, 2 * grad) is exact,
        # and XLA's freedom to reorder those cannot change a bit.
        weights = [np.exp2(np.arange(shape[0] * size[0] * size[1] * shape[3]) % 4 - 1)
                   .reshape((shape[0], *size, shape[3])).astype(dtype)
                   for shape, size, dtype in cases]

        def gradients(images: List[tf.Tensor]) -> List[Tuple[tf.Tensor, tf.Tensor]]:
            results = []
            for x, w, (_, size, _) in zip(images, weights, cases):
                with tf.GradientTape() as outer:
                    outer.watch(x)
                    with tf.GradientTape() as inner:
                        inner.watch(x)
                        resized = my_bilinear(x, size, align_corners, half_pixel_centers)
                        loss = tf.reduce_sum(w * tf.square(resized))
                    grad = inner.gradient(loss, x)
                    penalty = tf.reduce_sum(tf.square(grad))
                results.append((grad, outer.gradient(penalty, x)))
            return results

        images = [rng.uniform(-1, 1, shape).astype(dtype) for shape, _, dtype in cases]
        xla = tf.function(gradients, jit_compile=True)(images)
        eager = gradients([tf.constant(x) for x in images])
        for (shape, size, dtype), (x_grad, x_grad2), (e_grad, e_grad2) in zip(
                cases, xla, eager):
            # Bounds: |resized| <= 1, the adjoint sums `terms` weights <= 1.
            terms = np.prod([size[a] // shape[a + 1] + 2 for a in (0, 1)])
            with self.subTest(shape=shape, size=size, dtype=np.dtype(dtype).name):
                self.assertXlaMatches(x_grad, e_grad, scale=8 * terms, terms=terms + 3)
                # The penalty's gradient: a resize and an adjoint more.
                self.assertXlaMatches(x_grad2, e_grad2, scale=128 * terms**2,
                                      terms=2 * terms + 6)

    def test_hlo_has_no_tensorflow_fallback(self):
        def train_step(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = tf.reduce_sum(my_bilinear(x, (7, 5), False, True) ** 2)
            return tape.gradient(loss, x)

        hlo = tf.function(train_step, jit_compile=True).experimental_get_compiler_ir(
            tf.ones((2, 4, 6, 3)))(stage="hlo")
        self.assertNotIn("custom-call", hlo)
        self.assertIn("gather", hlo)  # the resize itself, lowered to HLO


class MyBilinearKerasJitTest(test_util.TestCase):

    def _losses(self, jit_compile: bool) -> List[float]:
        tf.keras.utils.set_random_seed(0)
        keras = tf.keras  # Keras 3, which TensorFlow 2.21 installs
        model = keras.Sequential([
            keras.Input((6, 7, 2)),
            MyBilinearLayer((9, 5), align_corners=False, half_pixel_centers=True),
            keras.layers.Conv2D(3, 3),
            keras.layers.Flatten(),
            keras.layers.Dense(1),
        ])
        model.compile(optimizer=keras.optimizers.SGD(0.002), loss="mse",
                      jit_compile=jit_compile)
        self.assertEqual(model.jit_compile, jit_compile)
        rng = np.random.default_rng(0)
        images = rng.random((16, 6, 7, 2), np.float32)
        targets = rng.random((16, 1), np.float32)
        history = model.fit(images, targets, batch_size=8, epochs=5, verbose=0,
                            shuffle=False)
        return history.history["loss"]

    def test_model_trains_the_same_with_jit_compile(self):
        """Keras's jit_compile compiles the whole train step, the op and its
        gradient included. The convolution, the dense layer and the loss are
        XLA's own lowerings there, whose sums run in another order than
        TensorFlow's kernels, so the curves agree to float32 rounding, not bits."""
        with_xla = self._losses(jit_compile=True)
        without_xla = self._losses(jit_compile=False)
        self.assertLess(with_xla[-1], 0.5 * with_xla[0])  # it does train
        self.assertAllClose(with_xla, without_xla, rtol=1e-5, atol=0)


class MyBilinearXlaErrorTest(XlaTestCase):

    def test_size_must_be_a_compile_time_constant(self):
        resize = tf.function(
            lambda x: ops.my_bilinear(images=x, size=tf.random.uniform([2], 1, 9, tf.int32)),
            jit_compile=True)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    "must be a compile-time constant"):
            resize(tf.ones((1, 4, 4, 1)))

    def test_size_from_shapes_is_a_constant(self):
        resize = tf.function(lambda x: ops.my_bilinear(images=x, size=tf.shape(x)[1:3] * 2),
                             jit_compile=True)
        self.assertEqual(resize(tf.ones((1, 4, 3, 2))).shape, [1, 8, 6, 2])

    def assertSameError(self, call: Callable, signature: List[tf.TensorSpec], *args):
        """`call` fails at XLA compile time (shapes unknown to the shape
        function) with the message of the eager kernel."""
        with self.assertRaises(tf.errors.InvalidArgumentError) as eager:
            call(*args)
        message = eager.exception.message.split("}} ")[-1].split(" [Op:")[0]
        compiled = tf.function(call, jit_compile=True, input_signature=signature)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    "^" + re.escape(message)):
            compiled(*args)

    @parameterized.named_parameters(
        ("rank_3_images", (4, 5, 2), [3, 3]),
        ("no_channels", (1, 4, 5, 0), [3, 3]),
        ("zero_size", (1, 4, 5, 2), [0, 3]),
        ("negative_size", (1, 4, 5, 2), [3, -2]),
        ("size_of_3", (1, 4, 5, 2), [3, 3, 3]),
        ("output_bytes_overflow", (1, 4, 5, 2), [2**31 - 1, 2**31 - 1]))
    def test_bad_resize_arguments(self, shape, size):
        self.assertSameError(lambda x, s: ops.my_bilinear(images=x, size=s),
                             [tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.int32)],
                             tf.ones(shape), tf.constant(size))

    @parameterized.named_parameters(
        ("rank_3_grads", (3, 3, 2), (1, 4, 4, 2)),
        ("batch_mismatch", (1, 3, 3, 2), (2, 4, 4, 2)),
        ("zero_height", (1, 3, 3, 2), (1, 0, 4, 2)))
    def test_bad_grad_arguments(self, grads_shape, image_shape):
        self.assertSameError(lambda g, x: ops.my_bilinear_grad(grads=g, original_image=x),
                             [tf.TensorSpec(None, tf.float32)] * 2,
                             tf.ones(grads_shape), tf.ones(image_shape))

    def test_both_attrs_true(self):
        self.assertSameError(
            lambda x: ops.my_bilinear(images=x, size=[3, 3], align_corners=True,
                                      half_pixel_centers=True),
            [tf.TensorSpec(None, tf.float32)], tf.ones((1, 4, 4, 1)))


if __name__ == "__main__":
    tf.test.main()
