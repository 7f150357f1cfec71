"""Property tests: generated bad calls of MyBilinear and MyBilinearGrad fail
cleanly, naming the bad value.

Each drawn call breaks one rule (a rank, a zero or negative size, a `size` of
the wrong length, mismatched `grads` and `original_image`, both attrs true, an
output too large for 64-bit sizes, a dtype outside the op's list). It is run
eagerly, where the kernel (or the op's dtype check) refuses it with
InvalidArgumentError (TypeError for dtypes), and inside tf.function with every
shape and value known while tracing, where the shape function may refuse it
first with ValueError. Either way the message must contain the bad value.
"""

from typing import Callable, List, NamedTuple

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import tensorflow as tf

from tensorflow_ops import hypothesis_profiles
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import test_cases

hypothesis_profiles.load_profile()

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
FLOAT_DTYPES = [np.float16, test_cases.BFLOAT16, np.float32, np.float64]


class BadCall(NamedTuple):
    op_name: str          # "my_bilinear" or "my_bilinear_grad"
    inputs: dict          # argument name -> NumPy array
    attrs: dict
    bad_values: List[str]  # each must appear in the message (spaces removed)


def shape_text(shape) -> str:
    """A shape as TensorFlow writes it in messages: [1,5,7,3]."""
    return "[" + ",".join(str(d) for d in shape) + "]"


small_dims = st.integers(0, 3)
positive_dims = st.integers(1, 6)
image_dtypes = st.sampled_from(FLOAT_DTYPES)
valid_attrs = st.sampled_from([dict(align_corners=ac, half_pixel_centers=hp)
                               for ac, hp in test_cases.ATTRS])
valid_sizes = st.tuples(positive_dims, positive_dims)


def image_shapes(batch=st.integers(0, 3)):
    return st.tuples(batch, positive_dims, positive_dims, positive_dims)


def resize_call(shape, dtype, size, attrs, bad_values) -> BadCall:
    return BadCall("my_bilinear",
                   dict(images=np.zeros(shape, dtype), size=np.asarray(size, np.int32)),
                   attrs, bad_values)


def grad_call(grads_shape, image_shape, dtype, attrs, bad_values) -> BadCall:
    return BadCall("my_bilinear_grad",
                   dict(grads=np.ones(grads_shape, dtype),
                        original_image=np.zeros(image_shape, dtype)),
                   attrs, bad_values)


@st.composite
def images_of_wrong_rank(draw) -> BadCall:
    rank = draw(st.sampled_from([0, 1, 2, 3, 5, 6]))
    shape = draw(st.lists(small_dims, min_size=rank, max_size=rank))
    return resize_call(shape, draw(image_dtypes), draw(valid_sizes), draw(valid_attrs),
                       [shape_text(shape)])


@st.composite
def images_with_an_empty_axis(draw) -> BadCall:
    shape = list(draw(image_shapes()))
    shape[draw(st.sampled_from([1, 2, 3]))] = 0
    return resize_call(shape, draw(image_dtypes), draw(valid_sizes), draw(valid_attrs),
                       [shape_text(shape)])


@st.composite
def size_of_wrong_shape(draw) -> BadCall:
    size_shape = draw(st.sampled_from([(), (0,), (1,), (3,), (4,), (1, 2), (2, 2)]))
    size = np.full(size_shape, 4, np.int32)
    return resize_call(draw(image_shapes()), draw(image_dtypes), size,
                       draw(valid_attrs), [shape_text(size_shape)])


@st.composite
def size_not_positive(draw) -> BadCall:
    bad = st.one_of(st.sampled_from([0, -1, INT32_MIN]), st.integers(INT32_MIN, 0))
    size = [draw(bad), draw(st.one_of(bad, st.integers(1, 8)))]
    if draw(st.booleans()):
        size.reverse()
    return resize_call(draw(image_shapes()), draw(image_dtypes), size,
                       draw(valid_attrs), [str(min(size))])


@st.composite
def output_overflowing_64_bits(draw) -> BadCall:
    batch, channels = draw(st.integers(2, 9)), draw(st.integers(2, 9))
    size = [draw(st.integers(2**30, INT32_MAX)), draw(st.integers(2**30, INT32_MAX))]
    dtype = draw(image_dtypes)
    # At least 2^2 * 2^60 elements of 2 bytes: more bytes than int64 holds.
    return resize_call((batch, 2, 2, channels), dtype, size, draw(valid_attrs),
                       [str(size[0]), str(size[1])])


@st.composite
def both_attrs_true(draw) -> BadCall:
    attrs = dict(align_corners=True, half_pixel_centers=True)
    if draw(st.booleans()):
        return resize_call(draw(image_shapes()), draw(image_dtypes), draw(valid_sizes),
                           attrs, ["align_corners=true"])
    shape = draw(image_shapes())
    return grad_call(shape, shape, draw(image_dtypes), attrs, ["align_corners=true"])


@st.composite
def grads_mismatching_image(draw) -> BadCall:
    grads_shape = list(draw(image_shapes()))
    image_shape = list(draw(image_shapes()))
    axis = draw(st.sampled_from([0, 3]))
    image_shape[3 - axis] = grads_shape[3 - axis]  # the other axis agrees
    if image_shape[axis] == grads_shape[axis]:
        image_shape[axis] += 1
    return grad_call(grads_shape, image_shape, draw(image_dtypes), draw(valid_attrs),
                     [shape_text(grads_shape), shape_text(image_shape)])


@st.composite
def grad_input_of_wrong_rank_or_empty(draw) -> BadCall:
    good = list(draw(image_shapes(batch=st.integers(1, 3))))
    if draw(st.booleans()):
        rank = draw(st.sampled_from([0, 1, 2, 3, 5, 6]))
        bad = draw(st.lists(small_dims, min_size=rank, max_size=rank))
    else:
        bad = list(good)
        bad[draw(st.sampled_from([1, 2]))] = 0
    if draw(st.booleans()):
        return grad_call(bad, good, draw(image_dtypes), draw(valid_attrs),
                         [shape_text(bad)])
    return grad_call(good, bad, draw(image_dtypes), draw(valid_attrs), [shape_text(bad)])


@st.composite
def dtype_not_allowed(draw) -> BadCall:
    dtype = draw(st.sampled_from([np.bool_, np.complex64, np.uint32]))
    if draw(st.booleans()):
        return resize_call(draw(image_shapes()), dtype, draw(valid_sizes),
                           draw(valid_attrs), [tf.as_dtype(dtype).name])
    shape = draw(image_shapes())
    return grad_call(shape, shape, dtype, draw(valid_attrs), [tf.as_dtype(dtype).name])


bad_calls = st.one_of(
    images_of_wrong_rank(), images_with_an_empty_axis(), size_of_wrong_shape(),
    size_not_positive(), output_overflowing_64_bits(), both_attrs_true(),
    grads_mismatching_image(), grad_input_of_wrong_rank_or_empty(),
    dtype_not_allowed())

# What each way of calling may raise for a bad call.
_EAGER_ERRORS = (tf.errors.InvalidArgumentError, TypeError)
_GRAPH_ERRORS = (tf.errors.InvalidArgumentError, ValueError, TypeError)


class MyBilinearInvalidPropertyTest(test_util.TestCase):

    def _assert_refused(self, run: Callable[[], object], errors, call: BadCall):
        with self.assertRaises(errors) as caught:
            run()
        message = str(caught.exception).replace(" ", "")
        for value in call.bad_values:
            self.assertIn(value.replace(" ", ""), message)
        # The refusal left nothing broken behind.
        result = ops.my_bilinear(images=np.ones((1, 2, 2, 1), np.float32), size=[3, 3])
        self.assertAllEqual(result, np.ones((1, 3, 3, 1), np.float32))

    @given(call=bad_calls)
    def test_eager_call_is_refused_naming_the_bad_value(self, call):
        op = getattr(ops, call.op_name)
        self._assert_refused(lambda: op(**call.inputs, **call.attrs), _EAGER_ERRORS,
                             call)

    @given(call=bad_calls)
    def test_traced_call_is_refused_naming_the_bad_value(self, call):
        op = getattr(ops, call.op_name)

        @tf.function
        def traced():
            # Constants made inside the function: the shape function sees
            # every shape and value.
            return op(**{name: tf.constant(value) for name, value in call.inputs.items()},
                      **call.attrs)

        self._assert_refused(traced, _GRAPH_ERRORS, call)


if __name__ == "__main__":
    tf.test.main()
