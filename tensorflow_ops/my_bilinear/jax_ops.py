"""MyBilinear for JAX through XLA's FFI, without TensorFlow: see
python/jax_ops.py and docs/jax.md.

    from tensorflow_ops.my_bilinear.jax_ops import my_bilinear, my_bilinear_grad
"""

from tensorflow_ops.my_bilinear.python.jax_ops import my_bilinear
from tensorflow_ops.my_bilinear.python.jax_ops import my_bilinear_grad
from tensorflow_ops.my_bilinear.python.jax_ops import PLATFORMS
from tensorflow_ops.my_bilinear.python.jax_ops import result_dtype

__all__ = ["PLATFORMS", "my_bilinear", "my_bilinear_grad", "result_dtype"]
