"""MyBilinearGrad and the registered gradients of MyBilinear and MyBilinearGrad."""

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import bilinear_reference
from tensorflow_ops.my_bilinear.python.tests import test_cases

# Small enough for full Jacobians: up, down, equal, 1x1 output, 1x1 input.
_JACOBIAN_CASES = [
    ((2, 3, 4, 2), (5, 7)),
    ((1, 6, 7, 3), (4, 3)),
    ((1, 4, 5, 2), (4, 5)),
    ((2, 3, 5, 2), (1, 1)),
    ((1, 1, 1, 3), (3, 4)),
    ((1, 5, 2, 1), (2, 6)),
]


def _signed_grads(shape, size, dtype, seed=1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (shape[0], size[0], size[1], shape[3])).astype(dtype)


class MyBilinearGradTest(test_util.TestCase, parameterized.TestCase):

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_jacobian_matches_numerical(self, align_corners, half_pixel_centers):
        for dtype, max_error in ((np.float64, 1e-6), (np.float32, 1e-3)):
            for shape, size in _JACOBIAN_CASES:
                images = tf.constant(test_cases.random_images(shape, dtype))
                theoretical, numerical = tf.test.compute_gradient(
                    lambda x, size=size: my_bilinear(x, size, align_corners,
                                                     half_pixel_centers),
                    [images])
                error = np.max(np.abs(theoretical[0] - numerical[0]))
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape, size=size):
                    self.assertLess(error, max_error)
                    # The Jacobian must not be trivially zero.
                    self.assertGreater(np.max(np.abs(theoretical[0])), 0.1)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_matches_reference_for_all_dtypes(self, align_corners, half_pixel_centers):
        for dtype in test_cases.DTYPES:
            for shape, size in test_cases.ALL_CASES:
                grads = _signed_grads(shape, size, dtype)
                result = ops.my_bilinear_grad(
                    grads=grads, original_image=np.zeros(shape, dtype),
                    align_corners=align_corners,
                    half_pixel_centers=half_pixel_centers)
                expected = bilinear_reference.resize_bilinear_grad(
                    grads, shape[1], shape[2], align_corners, half_pixel_centers)
                # Sums of up to ~20 signed terms of magnitude <= 1.
                tolerance = 8 * test_cases.REFERENCE_TOLERANCE[dtype]
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape, size=size):
                    self.assertEqual(result.dtype.as_numpy_dtype, dtype)
                    self.assertAllClose(result.numpy().astype(np.float64), expected,
                                        rtol=tolerance, atol=tolerance)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_float32_matches_tensorflow_within_1e5_relative(
            self, align_corners, half_pixel_centers):
        for shape, size in test_cases.ALL_CASES + [((2, 31, 47, 3), (64, 9))]:
            # Nonnegative gradients make every sum cancellation-free, so a
            # purely relative bound is meaningful.
            grads = test_cases.random_images(
                (shape[0], size[0], size[1], shape[3]), np.float32, seed=3)
            original_image = np.zeros(shape, np.float32)
            ours = ops.my_bilinear_grad(
                grads=grads, original_image=original_image,
                align_corners=align_corners, half_pixel_centers=half_pixel_centers)
            theirs = tf.raw_ops.ResizeBilinearGrad(
                grads=grads, original_image=original_image,
                align_corners=align_corners, half_pixel_centers=half_pixel_centers)
            with self.subTest(shape=shape, size=size):
                self.assertAllClose(ours, theirs, rtol=1e-5, atol=0)

    def test_no_gradient_for_size(self):
        images = tf.constant(test_cases.random_images((1, 3, 3, 1), np.float32))
        size = tf.constant([5, 4])
        with tf.GradientTape() as tape:
            tape.watch([images, size])
            output = my_bilinear(images, size)
        images_grad, size_grad = tape.gradient(output, [images, size])
        self.assertIsNone(size_grad)
        self.assertEqual(images_grad.shape, images.shape)

    def test_gradient_in_tf_function_with_dynamic_size(self):
        @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3], tf.float64),
                                      tf.TensorSpec([2], tf.int32),
                                      tf.TensorSpec(None, tf.float64)])
        def images_gradient(images, size, upstream):
            with tf.GradientTape() as tape:
                tape.watch(images)
                output = my_bilinear(images, size, align_corners=False,
                                     half_pixel_centers=True)
            return tape.gradient(output, images, output_gradients=upstream)

        for shape, size in [((2, 5, 7, 3), (9, 4)), ((1, 4, 4, 3), (2, 11))]:
            images = test_cases.random_images(shape, np.float64)
            upstream = _signed_grads(shape, size, np.float64)
            expected = bilinear_reference.resize_bilinear_grad(
                upstream, shape[1], shape[2], False, True)
            with self.subTest(shape=shape, size=size):
                self.assertAllClose(images_gradient(images, tf.constant(size), upstream),
                                    expected, rtol=1e-12, atol=1e-12)

    @parameterized.named_parameters(*test_cases.ATTR_PARAMS)
    def test_second_order_gradient_penalty(self, align_corners, half_pixel_centers):
        """d/dx of ||dL/dx||^2 for L = sum(c * resize(x)^2), through nested tapes,
        against central differences of the penalty."""
        shape, size = (1, 3, 4, 2), (5, 3)
        rng = np.random.default_rng(5)
        x0 = rng.uniform(-1, 1, shape)
        weights = tf.constant(rng.uniform(0.5, 1.5, (1, 5, 3, 2)))

        def penalty_and_gradient(x):
            x = tf.constant(x)
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    loss = tf.reduce_sum(weights * tf.square(
                        my_bilinear(x, size, align_corners, half_pixel_centers)))
                penalty = tf.reduce_sum(tf.square(inner.gradient(loss, x)))
            return penalty.numpy(), outer.gradient(penalty, x).numpy()

        _, analytic = penalty_and_gradient(x0)
        numeric = np.zeros_like(x0)
        delta = 1e-5
        for index in np.ndindex(*shape):
            step = np.zeros_like(x0)
            step[index] = delta
            numeric[index] = (penalty_and_gradient(x0 + step)[0] -
                              penalty_and_gradient(x0 - step)[0]) / (2 * delta)
        self.assertGreater(np.max(np.abs(analytic)), 0.1)
        self.assertAllClose(analytic, numeric, rtol=1e-6, atol=1e-6)

    def test_gradient_of_grad_op_is_the_forward_op(self):
        shape, size = (2, 4, 6, 3), (7, 5)
        grads = tf.constant(_signed_grads(shape, size, np.float64))
        original_image = tf.zeros(shape, tf.float64)
        upstream = tf.constant(test_cases.random_images(shape, np.float64))
        with tf.GradientTape() as tape:
            tape.watch([grads, original_image])
            images_grad = ops.my_bilinear_grad(grads=grads,
                                               original_image=original_image)
        grads_grad, original_grad = tape.gradient(
            images_grad, [grads, original_image], output_gradients=upstream)
        self.assertIsNone(original_grad)
        self.assertAllClose(
            grads_grad,
            bilinear_reference.resize_bilinear(upstream, size[0], size[1], True, False),
            rtol=1e-12, atol=1e-12)


if __name__ == "__main__":
    tf.test.main()
