"""OpTemplate in plain float64 NumPy: what the tests compare the op with.

TODO(you): your op's math, written as plainly as possible, so that a mistake in
the kernels cannot hide in here too.
"""

import numpy as np


def as_attr(scale: float) -> np.float64:
    """The scale as the op sees it: its `scale` attr is a float32."""
    return np.float64(np.float32(scale))


def op_template(x: np.ndarray, scale: float) -> np.ndarray:
    """y = scale * x, in float64."""
    return as_attr(scale) * np.asarray(x, np.float64)
# --grad: begin


def op_template_grad(grads: np.ndarray, x: np.ndarray, scale: float) -> np.ndarray:
    """The gradient with respect to x from the one with respect to y, in
    float64. dy/dx = scale does not depend on x; most derivatives read it."""
    del x  # unused
    return as_attr(scale) * np.asarray(grads, np.float64)
# --grad: end
