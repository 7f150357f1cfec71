"""Technique 6: one forward, two gradients: the TensorFlow 2 counterpart of
graph-mode `Defun(grad_func=...)`.

The forward is sign(x), whose true gradient is zero almost everywhere, which
stops training (binarised networks, quantisation). Two replacement gradients:
  - straight-through: pass the upstream gradient unchanged;
  - clipped straight-through: pass it only where |x| <= 1.

Two ways to attach them:
  - `tf.custom_gradient` wrappers around the same forward (eager, tf.function,
    Keras, SavedModel);
  - `gradient_override_map` in a `tf.Graph`: re-routes the gradient of the op
    type "Sign" to a gradient registered under another name. Only graph-mode
    `tf.gradients` reads it; `tf.GradientTape` (TensorFlow 2's way) ignores it.
"""

import tensorflow as tf


def _clip_mask(x: tf.Tensor) -> tf.Tensor:
    return tf.cast(tf.abs(x) <= 1.0, x.dtype)


@tf.custom_gradient
def sign_straight_through(x: tf.Tensor):
    """sign(x), with gradient 1."""
    return tf.sign(x), lambda upstream: upstream


@tf.custom_gradient
def sign_clipped_straight_through(x: tf.Tensor):
    """sign(x), with gradient 1 where |x| <= 1 and 0 elsewhere."""
    return tf.sign(x), lambda upstream: upstream * _clip_mask(x)


STRAIGHT_THROUGH = "CookbookSignStraightThrough"
CLIPPED_STRAIGHT_THROUGH = "CookbookSignClippedStraightThrough"


@tf.RegisterGradient(STRAIGHT_THROUGH)
def _straight_through_gradient(op: tf.Operation, upstream: tf.Tensor) -> tf.Tensor:
    del op  # unused: the gradient does not depend on the input
    return upstream


@tf.RegisterGradient(CLIPPED_STRAIGHT_THROUGH)
def _clipped_straight_through_gradient(op: tf.Operation,
                                       upstream: tf.Tensor) -> tf.Tensor:
    return upstream * _clip_mask(op.inputs[0])


def sign_with_gradient_override(x: tf.Tensor, gradient_name: str) -> tf.Tensor:
    """sign(x) whose graph-mode gradient is the one registered as `gradient_name`.

    Call it while building a `tf.Graph` (not eagerly): the override is an attr
    on the Sign op that `tf.gradients` reads.
    """
    graph = tf.compat.v1.get_default_graph()
    with graph.gradient_override_map({"Sign": gradient_name}):
        return tf.sign(x)
