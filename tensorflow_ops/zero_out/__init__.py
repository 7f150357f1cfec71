"""ZeroOut: keeps the first element of a vector and zeroes the rest (C++ op).

    from tensorflow_ops.zero_out import zero_out
    zero_out([5, 3, 2])   # [5, 0, 0]

The op has no gradient: it is marked with `tf.no_gradient("ZeroOut")`, so a
gradient through it is None. `ops` holds the generated op functions of the loaded
library (`ops.zero_out`).
"""

from tensorflow_ops.zero_out.python.zero_out_ops import ops
from tensorflow_ops.zero_out.python.zero_out_ops import zero_out

__all__ = ["ops", "zero_out"]
