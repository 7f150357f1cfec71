"""Python API of ZeroOut: loads the op library, wraps its generated op and marks
it as having no gradient.

`tf.no_gradient("ZeroOut")` tells TensorFlow that the op is not differentiable,
so `tape.gradient` through it returns None (with `unconnected_gradients="zero"`,
zeros). Without it, the tape would raise LookupError ("No gradient defined for
operation ...").
"""

import os
from typing import Optional

import tensorflow as tf

from tensorflow_ops import library_loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ops = library_loader.load_op_library(
    "zero_out_op.so", _PACKAGE_DIR,
    build_target="//tensorflow_ops/zero_out:zero_out_op.so")

tf.no_gradient("ZeroOut")


def zero_out(to_zero: tf.Tensor, name: Optional[str] = None) -> tf.Tensor:
    """Returns `to_zero` with all elements but the first set to zero.

    Args:
      to_zero: 1-D int32 or float32 tensor (or anything convertible to one).
      name: name scope of the op.

    Returns:
      A tensor of the same shape and dtype: [to_zero[0], 0, 0, ...].
    """
    with tf.name_scope(name or "ZeroOut"):
        return ops.zero_out(to_zero=to_zero)
