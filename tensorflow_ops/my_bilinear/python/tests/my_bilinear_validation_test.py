"""Bad input to MyBilinear gives InvalidArgumentError naming the bad value."""

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear import ops

_INT32_MAX = 2**31 - 1

# (name, images shape, size value, attrs, expected message)
_BAD_CALLS = [
    ("images_rank_3", (5, 7, 3), [4, 4], {},
     r"images must be 4-D .*got shape \[5,7,3\]"),
    ("images_rank_5", (1, 1, 5, 7, 3), [4, 4], {},
     r"images must be 4-D .*got shape \[1,1,5,7,3\]"),
    ("zero_channels", (1, 5, 7, 0), [4, 4], {},
     r"at least one channel, got shape \[1,5,7,0\]"),
    ("zero_height", (1, 0, 7, 3), [4, 4], {},
     r"positive height and width, got shape \[1,0,7,3\]"),
    ("zero_width", (2, 5, 0, 3), [4, 4], {},
     r"positive height and width, got shape \[2,5,0,3\]"),
    ("size_of_three", (1, 5, 7, 3), [4, 4, 4], {},
     r"size must be a 1-D tensor of 2 elements .*got shape \[3\]"),
    ("size_rank_2", (1, 5, 7, 3), [[4, 4]], {},
     r"size must be a 1-D tensor of 2 elements .*got shape \[1,2\]"),
    ("size_scalar", (1, 5, 7, 3), 4, {},
     r"size must be a 1-D tensor of 2 elements .*got shape \[\]"),
    ("size_zero", (1, 5, 7, 3), [0, 4], {}, r"size must be positive, got \[0, 4\]"),
    ("size_negative", (1, 5, 7, 3), [4, -3], {},
     r"size must be positive, got \[4, -3\]"),
    ("output_overflows_int64", (4, 2, 2, 17), [_INT32_MAX, _INT32_MAX], {},
     r"output shape \[4, 2147483647, 2147483647, 17\].*overflows"),
    ("half_pixel_centers_with_align_corners", (1, 5, 7, 3), [4, 4],
     dict(align_corners=True, half_pixel_centers=True),
     r"half_pixel_centers=true requires align_corners=false"),
]


def _call_params():
    return [dict(testcase_name=name, shape=shape, size=size, attrs=attrs,
                 message=message)
            for name, shape, size, attrs, message in _BAD_CALLS]


class MyBilinearValidationTest(test_util.TestCase, parameterized.TestCase):

    def _assert_process_still_works(self):
        images = np.ones((1, 2, 2, 1), np.float32)
        self.assertAllEqual(my_bilinear(images, (3, 3)), np.ones((1, 3, 3, 1)))

    @parameterized.named_parameters(*_call_params())
    def test_eager_raises_invalid_argument(self, shape, size, attrs, message):
        images = np.zeros(shape, np.float32)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, message):
            ops.my_bilinear(images=images, size=np.array(size, np.int32), **attrs)
        self._assert_process_still_works()

    @parameterized.named_parameters(*_call_params())
    def test_tf_function_raises_invalid_argument(self, shape, size, attrs, message):
        # Unknown shapes leave every check to the kernel at run time.
        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32),
                                      tf.TensorSpec(None, tf.int32)])
        def resize(images, size):
            return ops.my_bilinear(images=images, size=size, **attrs)

        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, message):
            resize(np.zeros(shape, np.float32), np.array(size, np.int32))
        self._assert_process_still_works()

    def test_unallocatable_output_is_an_error_not_a_crash(self):
        """2^62 bytes fit in 64 bits, so validation passes; the kernel refuses
        them as more than TensorFlow's CPU allocator (its BFC allocator, with
        oneDNN, the default) and the machine can ever hold, before asking the
        allocator, which would wait 10 s for memory to be freed."""
        with self.assertRaisesRegex(
                tf.errors.ResourceExhaustedError,
                r"OOM when allocating tensor with shape\[1,2147483647,536870912,1\] "
                r"and type float: 4611686016279904256 bytes, more than the \d+ bytes "
                r"that allocator \S+ can hold and the \d+ bytes of this machine's "
                r"memory and swap \(refused before allocating\)"):
            ops.my_bilinear(images=np.zeros((1, 2, 2, 1), np.float32),
                            size=np.array([_INT32_MAX, 2**29], np.int32))
        self._assert_process_still_works()

    def test_wrapper_passes_bad_size_to_the_kernel(self):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    r"size must be positive, got \[0, 4\]"):
            my_bilinear(np.zeros((1, 5, 7, 3), np.float32), (0, 4))

    def test_static_shapes_are_refused_when_the_graph_is_built(self):
        # Inside tf.function, shapes known at tracing time are checked by the
        # shape function, which TensorFlow reports as ValueError.
        cases = [
            ((5, 7, 3), [4, 4], r"must be rank 4"),
            ((1, 5, 7, 3), [4, 4, 4], r"must be 2 but is 3"),
            ((1, 5, 7, 3), [0, 4], r"size must be positive"),
        ]
        for shape, size, message in cases:
            with self.subTest(shape=shape, size=size):
                # The constant is made inside the function so that the shape
                # function sees its value.
                resize = tf.function(
                    lambda images, s=size: ops.my_bilinear(images=images,
                                                           size=tf.constant(s)))
                with self.assertRaisesRegex(ValueError, message):
                    resize(tf.zeros(shape))

    def test_wrapper_refuses_sizes_int32_cannot_hold(self):
        images = np.zeros((1, 2, 2, 1), np.float32)
        with self.assertRaisesRegex(ValueError, "size must fit int32"):
            my_bilinear(images, np.array([2**31, 4], np.int64))
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "size must fit int32"):
            my_bilinear(images, tf.constant([4, -2**40], tf.int64))
        with self.assertRaisesRegex(TypeError, "size must hold integers"):
            my_bilinear(images, (2.5, 3.0))

    def test_size_of_every_integer_dtype(self):
        # Narrow types always fit int32 and are cast; wide ones are range-checked
        # in their own type (int8 bounds used to wrap around, uint64 to crash).
        images = np.ones((1, 2, 2, 1), np.float32)
        expected = my_bilinear(images, (4, 3))
        for dtype in (tf.int8, tf.uint8, tf.int16, tf.uint16, tf.int32, tf.int64,
                      tf.uint32, tf.uint64):
            for size in (tf.constant([4, 3], dtype),
                         np.array([4, 3], dtype.as_numpy_dtype)):
                with self.subTest(dtype=dtype.name, kind=type(size).__name__):
                    self.assertAllEqual(my_bilinear(images, size), expected)

    def test_wide_unsigned_sizes_past_int32_are_refused(self):
        images = np.zeros((1, 2, 2, 1), np.float32)
        for dtype in (tf.uint32, tf.uint64, tf.int64):
            with self.subTest(dtype=dtype.name):
                with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                            "size must fit int32"):
                    my_bilinear(images, tf.constant([2**31, 4], dtype))
                with self.assertRaisesRegex(ValueError, "size must fit int32"):
                    my_bilinear(images, np.array([2**31, 4], dtype.as_numpy_dtype))


if __name__ == "__main__":
    tf.test.main()
