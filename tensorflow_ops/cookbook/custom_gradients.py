"""Technique 3: `tf.custom_gradient`: a forward pass of built-in ops with a
gradient written by hand, for stability, for speed, or to define derivatives
of any order.

- `log1pexp`: log(1 + exp(x)) with the gradient sigmoid(x). Autodiff of the
  naive form divides inf by inf at large x (NaN at x = 100 in float32).
- `softmax_cross_entropy`: the loss from log_softmax, with the hand-simplified
  gradient softmax(logits) - labels instead of autodiff's longer chain.
- `log1pexp_twice`: log1pexp whose gradient is itself a custom-gradient
  function, so its second derivative is also the one written here.
"""

import tensorflow as tf


def log1pexp_naive(x: tf.Tensor) -> tf.Tensor:
    """log(1 + exp(x)) as written: overflows for large x, and so does its
    autodiff gradient exp(x) / (1 + exp(x)) = inf / inf = NaN."""
    return tf.math.log(1.0 + tf.exp(x))


def log1pexp_stable_forward(x: tf.Tensor) -> tf.Tensor:
    """max(x, 0) + log1p(exp(-|x|)): never overflows. Its autodiff gradient is
    right except at x = 0, where max and abs pick one-sided slopes (1 + 0
    instead of 1/2); the custom gradients below avoid that too."""
    return tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))


@tf.custom_gradient
def log1pexp(x: tf.Tensor):
    """log(1 + exp(x)), with the gradient sigmoid(x): finite for every x."""

    def gradient(upstream: tf.Tensor) -> tf.Tensor:
        return upstream * tf.sigmoid(x)

    return log1pexp_stable_forward(x), gradient


@tf.custom_gradient
def softmax_cross_entropy(labels: tf.Tensor, logits: tf.Tensor):
    """-sum(labels * log_softmax(logits), axis=-1), for [..., classes] inputs.

    Gradients: logits get softmax(logits) * sum(labels) - labels (the textbook
    softmax(logits) - labels when each row of labels sums to 1); labels get
    -log_softmax(logits). Both are scaled by the upstream gradient per row.
    """
    log_probs = tf.nn.log_softmax(logits)
    loss = -tf.reduce_sum(labels * log_probs, axis=-1)

    def gradient(upstream: tf.Tensor):
        upstream = upstream[..., tf.newaxis]
        label_mass = tf.reduce_sum(labels, axis=-1, keepdims=True)
        logits_grad = upstream * (tf.exp(log_probs) * label_mass - labels)
        labels_grad = -upstream * log_probs
        return labels_grad, logits_grad

    return loss, gradient


def softmax_cross_entropy_autodiff(labels: tf.Tensor, logits: tf.Tensor) -> tf.Tensor:
    """The same loss, left to autodiff: the reference for the custom gradient."""
    return -tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=-1)


@tf.custom_gradient
def _sigmoid_twice(x: tf.Tensor):
    """sigmoid(x), whose gradient s * (1 - s) reuses the forward value."""
    s = tf.sigmoid(x)

    def gradient(upstream: tf.Tensor) -> tf.Tensor:
        return upstream * s * (1.0 - s)

    return s, gradient


@tf.custom_gradient
def log1pexp_twice(x: tf.Tensor):
    """log1pexp whose first derivative (sigmoid) and second derivative
    (sigmoid * (1 - sigmoid)) both come from custom gradients: the gradient
    function calls another custom-gradient function, and a tape watching the
    first gradient records that call and differentiates it with its own rule."""

    def gradient(upstream: tf.Tensor) -> tf.Tensor:
        return upstream * _sigmoid_twice(x)

    return log1pexp_stable_forward(x), gradient
