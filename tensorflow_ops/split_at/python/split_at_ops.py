"""Python API of SplitAt: loads the op library, wraps its generated op and
registers its gradient.

The gradient shows the two things a several-output op with an integer input
needs:
  - one upstream gradient per output. When an output does not reach the loss,
    TensorFlow 2.21's GradientTape and tf.gradients pass zeros for it (seen
    here for float outputs), but the contract of a gradient function allows
    None there (for example for outputs TensorFlow deems not trainable), so a
    None becomes zeros of that output's shape and the gradient of `values`
    always has the full length;
  - one gradient per input, None for the int32 `index`, which is not
    differentiable.
"""

import os
from typing import Optional, Tuple

import tensorflow as tf

from tensorflow_ops import library_loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ops = library_loader.load_op_library(
    "split_at_op.so", _PACKAGE_DIR,
    build_target="//tensorflow_ops/split_at:split_at_op.so")


def split_at(values: tf.Tensor, index: tf.Tensor,
             name: Optional[str] = None) -> Tuple[tf.Tensor, tf.Tensor]:
    """Splits a vector into `values[:index]` and `values[index:]`.

    Args:
      values: 1-D float32 or float64 tensor (or anything convertible to one).
      index: int32 scalar with 0 <= index <= len(values).
      name: name scope of the op.

    Returns:
      (head, tail), with the dtype of `values`.

    Raises:
      tf.errors.InvalidArgumentError: `values` is not 1-D, `index` is not a
        scalar or is out of range (the message names the bad value).
    """
    with tf.name_scope(name or "SplitAt"):
        return tuple(ops.split_at(values=values, index=index))


@tf.RegisterGradient("SplitAt")
def _split_at_gradient(op: tf.Operation, head_grad: Optional[tf.Tensor],
                       tail_grad: Optional[tf.Tensor]):
    """d(values) = concat(head_grad, tail_grad); `index` gets no gradient."""
    if head_grad is None:
        head_grad = tf.zeros_like(op.outputs[0])
    if tail_grad is None:
        tail_grad = tf.zeros_like(op.outputs[1])
    return [tf.concat([head_grad, tail_grad], axis=0), None]
