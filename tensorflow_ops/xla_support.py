"""Whether an op of this package can be compiled by XLA in this process.

Keras's default `compile(jit_compile="auto")` turns XLA on when TensorFlow sees a
GPU and every layer reports `supports_jit`; an op without an XLA kernel then fails
inside `fit`. Layers therefore ask this module instead of assuming, so the answer
turns True by itself once an op's library registers an XLA kernel.
"""

import functools

import tensorflow as tf
from tensorflow.python.framework import kernels

# Device types under which TensorFlow registers the kernels that XLA compiles.
_XLA_JIT_DEVICE_SUFFIX = "_JIT"


@functools.lru_cache(maxsize=None)
def _register_xla_compilation_kernels() -> None:
    """TensorFlow adds XLA's kernels (REGISTER_XLA_OP) to its kernel registry only
    when XLA first compiles something; compiling a trivial function does that."""
    tf.function(lambda: tf.constant(1) + 1, jit_compile=True)()


def has_xla_kernel(op_name: str) -> bool:
    """Returns whether `op_name` (for example "MyBilinear") has an XLA kernel in
    TensorFlow's kernel registry, where XLA looks for it when it compiles.

    Call it after the op's library is loaded.
    """
    _register_xla_compilation_kernels()
    registered = kernels.get_registered_kernels_for_op(op_name).kernel
    return any(kernel.device_type.endswith(_XLA_JIT_DEVICE_SUFFIX) for kernel in registered)
