"""SplitAt: splits a vector at an index into head and tail (C++ op with a float
input, an int32 input and two outputs).

    from tensorflow_ops.split_at import split_at
    head, tail = split_at([1., 2., 3., 4.], 1)   # [1.], [2., 3., 4.]

Its gradient is registered with `@tf.RegisterGradient("SplitAt")`: one upstream
gradient per output, and a gradient for `values` only. `ops` holds the generated
op functions of the loaded library (`ops.split_at`).
"""

from tensorflow_ops.split_at.python.split_at_ops import ops
from tensorflow_ops.split_at.python.split_at_ops import split_at

__all__ = ["ops", "split_at"]
