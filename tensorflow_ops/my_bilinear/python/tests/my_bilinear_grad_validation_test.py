"""Bad input to MyBilinearGrad gives InvalidArgumentError naming the bad values."""

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops

# (name, grads shape, original_image shape, attrs, expected message)
_BAD_CALLS = [
    ("grads_rank_3", (4, 4, 3), (1, 5, 7, 3), {},
     r"grads must be 4-D .*got shape \[4,4,3\]"),
    ("original_image_rank_5", (1, 4, 4, 3), (1, 1, 5, 7, 3), {},
     r"original_image must be 4-D .*got shape \[1,1,5,7,3\]"),
    ("batch_mismatch", (2, 4, 4, 3), (3, 5, 7, 3), {},
     r"agree on batch and channels, got grads shape \[2,4,4,3\] and "
     r"original_image shape \[3,5,7,3\]"),
    ("channel_mismatch", (1, 4, 4, 3), (1, 5, 7, 4), {},
     r"got grads shape \[1,4,4,3\] and original_image shape \[1,5,7,4\]"),
    ("grads_zero_height", (1, 0, 4, 3), (1, 5, 7, 3), {},
     r"grads must have positive height and width, got shape \[1,0,4,3\]"),
    ("original_zero_width", (1, 4, 4, 3), (1, 5, 0, 3), {},
     r"original_image must have positive height and width, got shape \[1,5,0,3\]"),
    ("zero_channels", (1, 4, 4, 0), (1, 5, 7, 0), {},
     r"grads must have at least one channel, got shape \[1,4,4,0\]"),
    ("half_pixel_centers_with_align_corners", (1, 4, 4, 3), (1, 5, 7, 3),
     dict(align_corners=True, half_pixel_centers=True),
     r"half_pixel_centers=true requires align_corners=false"),
]


def _call_params():
    return [dict(testcase_name=name, grads_shape=grads_shape,
                 original_shape=original_shape, attrs=attrs, message=message)
            for name, grads_shape, original_shape, attrs, message in _BAD_CALLS]


class MyBilinearGradValidationTest(test_util.TestCase, parameterized.TestCase):

    def _assert_process_still_works(self):
        result = ops.my_bilinear_grad(grads=np.ones((1, 3, 3, 1), np.float32),
                                      original_image=np.zeros((1, 2, 2, 1), np.float32))
        self.assertAllClose(np.sum(result), 9.0)

    @parameterized.named_parameters(*_call_params())
    def test_eager_raises_invalid_argument(self, grads_shape, original_shape, attrs,
                                           message):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, message):
            ops.my_bilinear_grad(grads=np.ones(grads_shape, np.float32),
                                 original_image=np.zeros(original_shape, np.float32),
                                 **attrs)
        self._assert_process_still_works()

    @parameterized.named_parameters(*_call_params())
    def test_tf_function_raises_invalid_argument(self, grads_shape, original_shape,
                                                 attrs, message):
        # Unknown shapes leave every check to the kernel at run time.
        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32),
                                      tf.TensorSpec(None, tf.float32)])
        def grad(grads, original_image):
            return ops.my_bilinear_grad(grads=grads, original_image=original_image,
                                        **attrs)

        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, message):
            grad(np.ones(grads_shape, np.float32), np.zeros(original_shape, np.float32))
        self._assert_process_still_works()

    def test_static_mismatch_is_refused_when_the_graph_is_built(self):
        grad = tf.function(lambda g, o: ops.my_bilinear_grad(grads=g, original_image=o))
        with self.assertRaisesRegex(ValueError, r"Dimensions must be equal"):
            grad(tf.ones((2, 4, 4, 3)), tf.zeros((3, 5, 7, 3)))
        with self.assertRaisesRegex(ValueError, r"must be rank 4"):
            grad(tf.ones((4, 4, 3)), tf.zeros((1, 5, 7, 3)))

    def test_static_shape_is_original_image_shape(self):
        grad = tf.function(lambda g, o: ops.my_bilinear_grad(grads=g, original_image=o))
        traced = grad.get_concrete_function(tf.TensorSpec([None, 4, 4, 3]),
                                            tf.TensorSpec([2, 5, 7, None]))
        self.assertEqual(traced.structured_outputs.shape.as_list(), [2, 5, 7, 3])


if __name__ == "__main__":
    tf.test.main()
