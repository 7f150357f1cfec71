"""The op fuzzer's jit mode: decoded calls run inside tf.function(jit_compile=True).

Only ops with an XLA kernel are fuzzed there, found by name in TensorFlow's
kernel registry (a kernel for the XLA_CPU_JIT device), not listed by hand.
Every input is an argument of a function whose input_signature has unknown
ranks, so the shapes reach the XLA kernel's compile-time checks rather than
the shape function; an integer input (MyBilinear's `size`) is then a
compile-time constant, as XLA needs. In one call in RUNTIME_SHARE the integer
inputs are instead values computed when the function runs, which an op that
needs them at compile time must refuse ("must be a compile-time constant").

Under jit_compile=True TensorFlow compiles the whole function or fails, so a
result proves that the op went through XLA; `prove_jit_is_real` shows, at
start-up, that the same wrapper fails for an op without an XLA kernel.
"""

import functools
import re
from typing import Callable, Dict, List, Optional

import tensorflow as tf
from tensorflow.python.framework import kernels

import op_calls

XLA_DEVICE = "XLA_CPU_JIT"
RUNTIME_SHARE = 8

# XLA keeps every executable it compiles, with no eviction, whether or not the
# tf.function that made it is still alive: measured here at 0.25 to 0.5 MB of
# RSS per distinct call that compiles (and 6 KB per one refused when
# compiling). A jit run therefore ends by itself (exit status 0, saying so)
# once its RSS has grown by MAX_RSS_GROWTH_BYTES since start-up, after about
# 15,000 calls; run it again with the same corpus folder to go on.
MAX_RSS_GROWTH_BYTES = 3 << 29  # 1.5 GiB


@functools.lru_cache(maxsize=None)
def _register_xla_kernels() -> None:
    """XLA registers its kernels with TensorFlow on the first jit compile."""
    tf.function(lambda x: x + 1, jit_compile=True, autograph=False)(tf.constant(1.0))


def has_xla_kernel(op_name: str) -> bool:
    """Whether TensorFlow's kernel registry holds an XLA_CPU_JIT kernel of the op."""
    _register_xla_kernels()
    return any(kernel.device_type == XLA_DEVICE
               for kernel in kernels.get_registered_kernels_for_op(op_name).kernel)


def jit_ops(ops: List[op_calls.OpUnderTest]) -> List[op_calls.OpUnderTest]:
    """The ops with an XLA kernel and no list inputs (which a signature of
    single tensors cannot hold)."""
    return [op for op in ops if has_xla_kernel(op.op_def.name)
            and not any(a.number_attr or a.type_list_attr for a in op.op_def.input_arg)]


def prove_jit_is_real(ops: List[op_calls.OpUnderTest]) -> str:
    """Runs an op without an XLA kernel through the jit wrapper: it must fail
    naming XLA_CPU_JIT, where the same call runs eagerly. Returns what it saw.

    Raises:
      AssertionError: the wrapper ran the op anyway, so it does not use XLA.
    """
    without = [op for op in ops if not has_xla_kernel(op.op_def.name)
               and op.accepted_shapes and len(op.op_def.input_arg) == 1]
    if without:
        op = without[0]
        arg = op.op_def.input_arg[0]
        attr_defs = {attr.name: attr for attr in op.op_def.attr}
        dtype = (tf.as_dtype(arg.type) if arg.type
                 else op_calls.allowed_types(attr_defs[arg.type_attr])[0])
        shape = [1 if dim is None else dim for dim in op.accepted_shapes[0][0]]
        name, call = op.op_def.name, lambda x: op.function(**{arg.name: x})
        value = tf.zeros(shape, dtype)
    else:  # every op of the workspace has an XLA kernel: one of TensorFlow's
        name, call, value = "StringLength", tf.strings.length, tf.constant(["xla"])
    call(value)  # runs eagerly
    compiled = tf.function(call, input_signature=[tf.TensorSpec(None, value.dtype)],
                           jit_compile=True, autograph=False)
    try:
        compiled(value)
    except tf.errors.InvalidArgumentError as error:
        missing = re.search(rf"No registered '{name}' OpKernel for {XLA_DEVICE} devices",
                            error.message)
        if not missing:
            raise AssertionError(f"{name} under jit_compile failed, but not for want "
                                 f"of an XLA kernel: {error.message}") from error
        return f"{name} (no XLA kernel) fails under the jit wrapper: {missing.group(0)}"
    raise AssertionError(f"{name} has no XLA kernel but ran under jit_compile=True: "
                         "the jit mode does not compile with XLA")


class JitFunctions:
    """One tf.function(jit_compile=True) per op, attrs, input dtypes and variant
    (run-time integer inputs or not; forward, or gradient for an upstream dtype).

    autograph=False: the bodies have no tensor-dependent Python control flow,
    and Atheris's instrumented code has no source for autograph to convert."""

    def __init__(self) -> None:
        self._functions: Dict[tuple, Callable] = {}

    def _function(self, call: op_calls.OpCall, runtime: bool,
                  upstream_dtype: Optional[tf.DType]) -> Callable:
        names = list(call.inputs)
        dtypes = [tf.as_dtype(value.dtype) for value in call.inputs.values()]
        key = (call.op.op_def.name, repr(sorted(call.attrs.items(), key=str)),
               tuple(dtypes), runtime, upstream_dtype)
        if key not in self._functions:
            self._functions[key] = self._make(call.op, dict(call.attrs), names, dtypes,
                                              runtime, upstream_dtype)
        return self._functions[key]

    @staticmethod
    def _make(op: op_calls.OpUnderTest, attrs: dict, names: List[str],
              dtypes: List[tf.DType], runtime: bool,
              upstream_dtype: Optional[tf.DType]) -> Callable:
        def forward(tensors: List[tf.Tensor]) -> tf.Tensor:
            if runtime:
                # Not foldable: XLA knows a random value only when it runs.
                zero = tf.random.uniform([], maxval=1, dtype=tf.int32)
                tensors = [t + tf.cast(zero, t.dtype) if t.dtype.is_integer else t
                           for t in tensors]
            outputs = op.function(**dict(zip(names, tensors)), **attrs)
            return outputs[0] if isinstance(outputs, (list, tuple)) else outputs

        signature = [tf.TensorSpec(None, dtype) for dtype in dtypes]
        if upstream_dtype is None:
            return tf.function(lambda *tensors: forward(list(tensors)), autograph=False,
                               input_signature=signature, jit_compile=True)

        def with_gradient(*tensors):
            *inputs, upstream = tensors
            sources = [t for t in inputs if t.dtype.is_floating]
            with tf.GradientTape() as tape:
                tape.watch(sources)
                output = forward(inputs)
            return tape.gradient(output, sources, output_gradients=upstream)

        return tf.function(with_gradient, jit_compile=True, autograph=False,
                           input_signature=signature + [tf.TensorSpec(None, upstream_dtype)])

    def run(self, call: op_calls.OpCall, runtime: bool) -> tf.Tensor:
        """The op's first output, computed under jit_compile=True."""
        return self._function(call, runtime, None)(
            *[tf.constant(value) for value in call.inputs.values()])

    def run_gradient(self, call: op_calls.OpCall, runtime: bool,
                     upstream: tf.Tensor) -> List[tf.Tensor]:
        """The gradient of the first output w.r.t. the floating inputs, under jit."""
        return self._function(call, runtime, upstream.dtype)(
            *[tf.constant(value) for value in call.inputs.values()], upstream)
