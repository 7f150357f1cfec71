"""The op fuzzer's calls of MyBilinear and MyBilinearGrad made through JAX
(op_fuzzer.py --mode=jax): the same decoded inputs and attrs, passed to
tensorflow_ops.my_bilinear.jax_ops, then to the FFI handler directly with
the shapes and dtypes jax_ops would have refused.

The outcomes allowed are a result, a ValueError or TypeError from jax_ops's
trace-time checks, and a JaxRuntimeError (the handler's FFI error, or XLA's
out of memory) with a message; anything else, a crash above all, is a finding.
"""

from typing import Any, Optional, Tuple

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

# pylint: disable=g-import-not-at-top,wrong-import-position
from tensorflow_ops.my_bilinear import jax_ops
from tensorflow_ops.my_bilinear.python import jax_ops as jax_ops_impl

OP_NAMES = ("MyBilinear", "MyBilinearGrad")
ALLOWED_ERRORS = (ValueError, TypeError, jax.errors.JaxRuntimeError)
# Handler errors: what the FFI returns (jax_ops's own checks raise before XLA
# runs), and XLA's refusal of an allocation.
HANDLER_CODES = ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED")
MAX_UPSTREAM_ELEMENTS = 1 << 22


def jax_ops_of(ops):
    """The ops that --mode=jax fuzzes."""
    return [op for op in ops if op.op_def.name in OP_NAMES]


def _flags(attrs) -> Tuple[Any, Any]:
    return attrs.get("align_corners", True), attrs.get("half_pixel_centers", False)


def run_wrapper(call) -> Optional[jax.Array]:
    """The call through jax_ops; its result (blocked on), for the gradient."""
    align, half = _flags(call.attrs)
    if call.op.op_def.name == "MyBilinear":
        result = jax_ops.my_bilinear(call.inputs["images"], call.inputs["size"], align, half)
    else:
        result = jax_ops.my_bilinear_grad(call.inputs["grads"],
                                          call.inputs["original_image"], align, half)
    return jax.block_until_ready(result)


def run_gradient(call, upstream_values, seed: int) -> bool:
    """The VJP of a floating call, with NaN and Inf in the upstream gradient;
    whether there was one to take."""
    align, half = _flags(call.attrs)
    if call.op.op_def.name == "MyBilinear":
        primal = jnp.asarray(call.inputs["images"])
        function = lambda x: jax_ops.my_bilinear(x, call.inputs["size"], align, half)  # noqa: E731
    else:
        primal = jnp.asarray(call.inputs["grads"])
        original = call.inputs["original_image"]
        function = lambda g: jax_ops.my_bilinear_grad(g, original, align, half)  # noqa: E731
    if not jnp.issubdtype(primal.dtype, jnp.floating):
        return False
    output, vjp = jax.vjp(function, primal)
    if output.size > MAX_UPSTREAM_ELEMENTS:
        return False
    upstream = np.random.default_rng(seed).choice(
        np.asarray(upstream_values, output.dtype), size=output.shape)
    jax.block_until_ready(vjp(jnp.asarray(upstream)))
    return True


def _raw_out_shape(call) -> Tuple[Tuple[int, ...], Any]:
    """The result the raw handler call declares: what jax_ops would have
    declared, from whatever shapes and values the call has."""
    if call.op.op_def.name == "MyBilinearGrad":
        grads = np.asarray(call.inputs["grads"])
        return np.shape(call.inputs["original_image"]), grads.dtype
    images = np.asarray(call.inputs["images"])
    size = np.asarray(call.inputs["size"]).reshape(-1)
    out_type = np.dtype(call.attrs["out_type"].as_numpy_dtype) if "out_type" in call.attrs \
        else np.dtype(np.float32)
    if images.ndim >= 3 and size.size >= 2:
        height, width = (int(np.clip(v, 0, 2**31 - 1)) for v in size[:2])
        return (*images.shape[:-3], height, width, images.shape[-1]), out_type
    return images.shape, out_type


def _overflows_int64(shape) -> bool:
    """Whether a running product of `shape`'s dims passes INT64_MAX: XLA aborts
    the process (an unchecked StatusOr) on a result shape like that, before any
    handler runs. jax_ops never declares one: its output-size check (the
    kernels') bounds every such product."""
    product = 1
    for dim in shape:
        product *= int(dim)
        if product > np.iinfo(np.int64).max:
            return True
    return False


def run_handler(call) -> bool:
    """The handler itself, past jax_ops's checks; whether it was called."""
    align, half = _flags(call.attrs)
    operand = call.inputs["images" if call.op.op_def.name == "MyBilinear" else "grads"]
    target = (jax_ops_impl.RESIZE_TARGET if call.op.op_def.name == "MyBilinear"
              else jax_ops_impl.RESIZE_GRAD_TARGET)
    shape, dtype = _raw_out_shape(call)
    if _overflows_int64(shape):
        return False
    ffi = jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(shape, dtype))
    jax.block_until_ready(ffi(jnp.asarray(operand), align_corners=np.bool_(align),
                              half_pixel_centers=np.bool_(half)))
    return True


def expect_clean_error(error: Exception, handler: bool) -> str:
    """The outcome of an allowed error (its type and code); raises any other."""
    if not isinstance(error, ALLOWED_ERRORS) or not str(error).strip():
        raise error
    if isinstance(error, jax.errors.JaxRuntimeError):
        code = str(error).split(":", 1)[0]
        if code not in HANDLER_CODES:
            raise error
        return f"{'handler' if handler else 'wrapper'} {code}"
    if handler:
        # Making the call (a shape JAX refuses, a dtype with no XLA type),
        # before any handler ran.
        return f"handler call {type(error).__name__}"
    return f"wrapper {type(error).__name__}"
