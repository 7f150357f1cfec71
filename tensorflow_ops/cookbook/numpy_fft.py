"""Technique 2: run NumPy inside the graph with `tf.numpy_function`, and give it
a gradient with `tf.custom_gradient`. The example is a 2-D FFT.

`tf.numpy_function` calls back into this Python process: it runs on the CPU
only, holds the GIL, copies its inputs and outputs, and is not serializable. A
SavedModel stores only a token naming the callback, so the model runs only in a
process that has created the same callback (never in TensorFlow Serving). Its
outputs have unknown shape unless it is set again, and it has no gradient
unless one is given, as here.

The gradient: y = F x with F the unnormalised DFT over the last two axes. For a
real loss, TensorFlow passes dL/dy as the conjugate-convention cotangent g and
expects F^H g back, which is size * ifft2(g) (as TensorFlow's own FFT2D
gradient does).
"""

from typing import Callable

import numpy as np
import tensorflow as tf


def _fft2(x: np.ndarray) -> np.ndarray:
    """np.fft.fft2 over the last two axes, in the input's precision (NumPy
    always computes in complex128)."""
    return np.fft.fft2(x).astype(x.dtype)


def _fft2_adjoint(g: np.ndarray) -> np.ndarray:
    """F^H g = size * ifft2(g) over the last two axes."""
    size = g.shape[-1] * g.shape[-2]
    return (np.fft.ifft2(g) * size).astype(g.dtype)


def _call_numpy(function: Callable[[np.ndarray], np.ndarray],
                x: tf.Tensor) -> tf.Tensor:
    """Runs `function` on `x`'s NumPy value; the result has x's dtype and shape."""
    y = tf.numpy_function(function, [x], Tout=x.dtype, stateful=False)
    # numpy_function cannot know the result's shape: restore it.
    y.set_shape(x.shape)
    return y


@tf.custom_gradient
def _fft2d_numpy(x: tf.Tensor):
    def gradient(upstream: tf.Tensor) -> tf.Tensor:
        return _call_numpy(_fft2_adjoint, upstream)

    return _call_numpy(_fft2, x), gradient


def fft2d_numpy(x: tf.Tensor) -> tf.Tensor:
    """2-D FFT over the last two axes, computed by NumPy; like tf.signal.fft2d.

    Args:
      x: complex64 or complex128 tensor of rank >= 2.

    Returns:
      A tensor of x's dtype and static shape.
    """
    x = tf.convert_to_tensor(x)
    if x.dtype not in (tf.complex64, tf.complex128):
        raise TypeError(f"fft2d_numpy needs complex64 or complex128, got {x.dtype.name}")
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ValueError(f"fft2d_numpy needs rank >= 2, got shape {x.shape}")
    return _fft2d_numpy(x)
