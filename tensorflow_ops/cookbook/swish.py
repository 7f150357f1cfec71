"""Technique 1: compose built-in ops. Swish (`x * sigmoid(x)`) two ways.

Built-in ops already have gradients, GPU kernels and SavedModel support, so a
layer made only of them needs nothing else. What needs care is saving: a
`.keras` file stores a Lambda's function by its registered name, not its code,
so the function must be a module-level function registered with
`keras.saving.register_keras_serializable`, and the loading process must import
this module (or pass it in `custom_objects`). A `Layer` subclass is the sturdier
form: it is registered the same way and can carry its own settings in
`get_config`, which a closure cannot.
"""

import keras
import tensorflow as tf

_PACKAGE = "tensorflow_ops_cookbook"


@keras.saving.register_keras_serializable(package=_PACKAGE)
def swish(x: tf.Tensor) -> tf.Tensor:
    """x * sigmoid(x), for `keras.layers.Lambda(swish)`."""
    return x * tf.sigmoid(x)


@keras.saving.register_keras_serializable(package=_PACKAGE)
class Swish(keras.layers.Layer):
    """x * sigmoid(beta * x) as a layer; `beta` is saved with the model."""

    def __init__(self, beta: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.beta = beta

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        return inputs * tf.sigmoid(self.beta * inputs)

    def get_config(self) -> dict:
        return {**super().get_config(), "beta": self.beta}


def swish_lambda_layer() -> keras.layers.Layer:
    """A Lambda layer over the registered module-level `swish`: it reloads."""
    return keras.layers.Lambda(swish, name="swish_lambda")
