"""Property tests of OpTemplate on inputs that Hypothesis draws.

Valid calls (shapes of rank 0-4 with dims 0-6, both dtypes, finite scales,
values from a drawn seed) are checked against the float64 NumPy reference, and
bad calls must be refused naming the bad value. See
tensorflow_ops/hypothesis_profiles.py for the number of examples.
"""

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import tensorflow as tf

from tensorflow_ops import hypothesis_profiles
from tensorflow_ops import test_util
from tensorflow_ops.op_template import op_template
from tensorflow_ops.op_template import ops
from tensorflow_ops.op_template.python.tests import (
    op_template_reference as reference)

hypothesis_profiles.load_profile()

# Relative error of one rounding to each dtype, with room for a few operations;
# results below the smallest normal number keep only an absolute precision.
TOLERANCE = {tf.float32: 1e-6, tf.float64: 1e-14}
TINY = {tf.float32: np.finfo(np.float32).tiny, tf.float64: np.finfo(np.float64).tiny}
shapes = st.lists(st.integers(0, 6), max_size=4)
dtypes = st.sampled_from([tf.float32, tf.float64])
# Finite float32 scales (the attr's type), tiny and huge ones included.
scales = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False, width=32)
seeds = st.integers(0, 2**32 - 1)


def values(shape: list[int], dtype: tf.DType, seed: int) -> np.ndarray:
    """Uniform values in [-100, 100) of `dtype`."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-100, 100, shape).astype(dtype.as_numpy_dtype)


class OpTemplatePropertyTest(test_util.TestCase):

    @given(shape=shapes, dtype=dtypes, scale=scales, seed=seeds,
           via_wrapper=st.booleans())
    def test_matches_reference(self, shape, dtype, scale, seed, via_wrapper):
        x = values(shape, dtype, seed)
        if via_wrapper:
            y = op_template(x, scale)
        else:
            y = ops.op_template(x=x, scale=scale)
        self.assertEqual(y.dtype, dtype)
        want = reference.op_template(x, scale)
        self.assertAllClose(y, want, rtol=TOLERANCE[dtype], atol=TINY[dtype])

    @given(shape=shapes, scale=st.sampled_from([np.nan, np.inf, -np.inf]))
    def test_non_finite_scale_is_refused(self, shape, scale):
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    f"scale must be finite, got {scale}"):
            ops.op_template(x=np.zeros(shape, np.float32), scale=scale)
    # --grad: begin

    @given(shape=shapes, dtype=dtypes, scale=scales, seed=seeds)
    def test_gradient_matches_reference(self, shape, dtype, scale, seed):
        x = tf.constant(values(shape, dtype, seed))
        upstream = values(shape, dtype, seed + 1)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = op_template(x, scale)
        x_grad = tape.gradient(y, x, output_gradients=upstream)
        want = reference.op_template_grad(upstream, x.numpy(), scale)
        self.assertAllClose(x_grad, want, rtol=TOLERANCE[dtype], atol=TINY[dtype])

    @given(grads_shape=shapes, x_shape=shapes)
    def test_grads_of_another_shape_are_refused(self, grads_shape, x_shape):
        if grads_shape == x_shape:
            x_shape = x_shape + [1]
        shown = ",".join(str(d) for d in x_shape)
        grads, x = np.zeros(grads_shape, np.float32), np.zeros(x_shape, np.float32)
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                    rf"and x shape \[{shown}\]"):
            ops.op_template_grad(grads=grads, x=x, scale=1.0)
    # --grad: end


if __name__ == "__main__":
    tf.test.main()
