"""Python API of OpTemplate: loads the op library and wraps its generated op.

`op_template` is the entry point. `ops` is the module of generated op functions
that `tf.load_op_library` returns (`ops.op_template`, and one function per
further op of the library).
"""

import os
from typing import Optional

import tensorflow as tf

from tensorflow_ops import library_loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ops = library_loader.load_op_library(
    "op_template_op.so",
    _PACKAGE_DIR,
    build_target="//tensorflow_ops/op_template:op_template_op.so",
)


def op_template(
    x: tf.Tensor, scale: float = 1.0, name: Optional[str] = None
) -> tf.Tensor:
    """Returns `scale * x`, element by element.

    Args:
      x: float32 or float64 tensor of any shape (or anything convertible to one).
      scale: a finite number (the op holds it as a float32 attr).
      name: name scope of the op.

    Returns:
      A tensor with the shape and dtype of `x`.

    Raises:
      tf.errors.InvalidArgumentError: `scale` is not finite (the message names it).
    """
    with tf.name_scope(name or "OpTemplate"):
        return ops.op_template(x=x, scale=scale)
# --grad: begin


# Computed by the C++ op OpTemplateGrad. Without a registered gradient,
# tf.GradientTape raises LookupError when asked to differentiate OpTemplate.
@tf.RegisterGradient("OpTemplate")
def _op_template_gradient(op: tf.Operation, grad: tf.Tensor) -> list[tf.Tensor]:
    """d(x) = OpTemplateGrad(grad, x), with the scale of the OpTemplate being
    differentiated."""
    scale = op.get_attr("scale")
    return [ops.op_template_grad(grads=grad, x=op.inputs[0], scale=scale)]
# --grad: end
