"""Coverage-guided fuzz target (Atheris) for every op library of the workspace.

Each input is decoded (op_calls.py) into a call of one generated op function,
which is run eagerly, followed, where the op has a registered gradient and a
floating output, by its gradient with an upstream gradient holding NaN and Inf.
The only outcomes allowed are a result, or InvalidArgumentError or
ResourceExhaustedError with a message. Anything else (another exception, a
crash, a sanitizer report, a hang past -timeout) is a finding: libFuzzer
writes the input to crash-<sha1> and `--describe FILE` prints the call.

`--mode=jax` makes the calls of MyBilinear and MyBilinearGrad through JAX
instead (jax_calls.py): jax_ops, its gradient, and the FFI handler called
directly with the shapes and dtypes that jax_ops refused.

`--mode=jit` runs the calls, and gradients, inside tf.function(jit_compile=True)
instead, for the ops that have an XLA kernel (jit_calls.py): the XLA kernels
check shapes and attrs when XLA compiles, another path than the eager
kernels'. The outcomes allowed are the same, with two more findings: an
InvalidArgumentError for want of an XLA kernel (an op or dtype the XLA kernel
does not cover), and "must be a compile-time constant" for an input that was
one. A jit run ends by itself once its RSS has grown by
jit_calls.MAX_RSS_GROWTH_BYTES, since XLA keeps every executable; the
address-space cap is set again before each call, MEMORY_BUDGET_BYTES above
what the process holds then (refused compiles grow it by 0.7 MB each).

The process's address space is capped at its size after start-up plus
MEMORY_BUDGET_BYTES, so a hostile size either is refused by the op or fails to
allocate (ResourceExhaustedError) instead of taking the machine's memory.
oneDNN is turned off for the same reason: its allocator retries a failed
allocation for 10 s, TensorFlow's default one fails at once.

    # CI (tests/fuzz:op_fuzz_test) runs a fixed number of iterations:
    python tests/fuzz/op_fuzzer.py -runs=5000 -seed=1
    # hours, keeping a corpus and findings:
    mkdir -p /tmp/op_corpus && python tests/fuzz/op_fuzzer.py /tmp/op_corpus \
        -max_total_time=14400 -timeout=60 -artifact_prefix=/tmp/op_findings-
    # through JAX (jax_ops and its FFI handlers); CI runs 1500:
    python tests/fuzz/op_fuzzer.py --mode=jax -runs=1500 -seed=1
    # print the call in a finding:
    python tests/fuzz/op_fuzzer.py --describe crash-0123...
    # under XLA; CI runs 2000 (a finding is described with the same --mode):
    python tests/fuzz/op_fuzzer.py --mode=jit -runs=2000 -seed=1
    mkdir -p /tmp/jit_corpus && python tests/fuzz/op_fuzzer.py --mode=jit \
        /tmp/jit_corpus -max_total_time=600 -artifact_prefix=/tmp/jit_findings-
    python tests/fuzz/op_fuzzer.py --mode=jit --describe crash-0123...

Atheris sees only Python coverage (of this file and of `tensorflow_ops`): the
op libraries are not compiled with coverage instrumentation, so `cov:` counts
Python branches, not C++ ones (see tools/fuzz_bilinear_math.sh for a
libFuzzer target over the C++ math).
"""

import collections
import os
import re
import sys
from typing import List, Optional, Tuple

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import atheris  # pylint: disable=g-import-not-at-top

with atheris.instrument_imports(include=["tensorflow_ops", "op_calls", "jit_calls",
                                         "jax_calls"]):
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework import ops as framework_ops

    import fuzz_support
    import jit_calls
    import op_calls

MEMORY_BUDGET_BYTES = fuzz_support.MEMORY_BUDGET_BYTES

# libFuzzer flags unless given on the command line. Its RSS limit (2 GB by
# default) would report a large but legitimate output as a finding: the
# address-space cap bounds memory instead. Inputs start at full length (a call
# of a 4-D tensor needs a few hundred bytes), and one call may take a minute.
DEFAULT_FLAGS = {"rss_limit_mb": 0, "len_control": 0, "max_len": 1024, "timeout": 60}
ALLOWED_ERRORS = (tf.errors.InvalidArgumentError, tf.errors.ResourceExhaustedError)

# Values of the upstream gradient, and how many elements it may have.
UPSTREAM_VALUES = [0.5, -2.0, np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45]
MAX_UPSTREAM_ELEMENTS = 1 << 22

OPS = op_calls.discover_ops()


def _has_gradient(op_name: str) -> bool:
    """Whether a gradient function is registered (tf.no_gradient registers None)."""
    try:
        return framework_ops._gradient_registry.lookup(op_name) is not None  # pylint: disable=protected-access
    except LookupError:
        return False


GRADIENT_OPS = {op.op_def.name for op in OPS if _has_gradient(op.op_def.name)}

# Set by main(): the mode and its ops (_take_flags), the RSS at start.
MODE = "eager"
FUZZED_OPS = OPS
jit_functions = jit_calls.JitFunctions()
start_rss_bytes = 0  # set by main()


# How calls ended, printed every STATS_EVERY calls (--stats_every): shows that
# the fuzzer reaches the kernels and their gradients, not only the argument checks.
STATS_EVERY = 5000
stats = collections.Counter()


outcome_signal = fuzz_support.make_outcome_signal()


def _record(outcome: str) -> None:
    """Counts the outcome and signals its template (digits dropped) as coverage."""
    stats[outcome] += 1
    outcome_signal(re.sub(r"[0-9]+", "", outcome))


def _expect_clean_error(error: Exception, stage: str) -> None:
    if not isinstance(error, ALLOWED_ERRORS) or not error.message.strip():
        raise error
    stats[f"{stage} {type(error).__name__}"] += 1
    # The message up to its first shape or value: which check refused the call.
    outcome_signal(stage + re.split(r"[0-9\[]", error.message, maxsplit=1)[0])


def _upstream(output, seed: int) -> Optional[tf.Tensor]:
    """An upstream gradient for `output`, or None where there is none to take."""
    if not isinstance(output, tf.Tensor) or not output.dtype.is_floating:
        return None
    count = output.shape.num_elements()
    if count > MAX_UPSTREAM_ELEMENTS:
        # The op ran on a large request; a second tensor that large could
        # exhaust the memory cap in NumPy, outside any op.
        stats["gradient skipped: large output"] += 1
        return None
    if count == 0:
        # Empty, possibly with huge dims (a batch of 0), which NumPy refuses.
        return tf.zeros(output.shape, output.dtype)
    rng = np.random.default_rng(seed)
    return tf.constant(rng.choice(np.array(UPSTREAM_VALUES, output.dtype.as_numpy_dtype),
                                  size=output.shape.as_list()))


def _run_gradient(call: op_calls.OpCall) -> None:
    """The gradient of the call's first output w.r.t. its floating inputs."""
    sources = {name: tf.constant(value) for name, value in call.inputs.items()
               if not isinstance(value, list) and value.dtype.kind == "f"}
    with tf.GradientTape() as tape:
        for tensor in sources.values():
            tape.watch(tensor)
        inputs = {name: sources.get(name, value) for name, value in call.inputs.items()}
        outputs = call.op.function(**inputs, **call.attrs)
    output = outputs[0] if isinstance(outputs, (list, tuple)) else outputs
    upstream = _upstream(output, call.upstream_seed) if sources else None
    if upstream is not None:
        tape.gradient(output, list(sources.values()), output_gradients=upstream)


def _expect_clean_jit_error(error: Exception, stage: str, runtime: bool) -> None:
    """As _expect_clean_error, and neither a missing XLA kernel (the call
    never compiled) nor a compile-time constant refused that was one."""
    if isinstance(error, tf.errors.InvalidArgumentError):
        if jit_calls.XLA_DEVICE in error.message and "No registered" in error.message:
            raise AssertionError(f"{stage}: no XLA kernel for this call") from error
        if "must be a compile-time constant" in error.message and not runtime:
            raise AssertionError(f"{stage}: a constant input was refused as not "
                                 "a compile-time constant") from error
    _expect_clean_error(error, stage)


def _test_jit(call: op_calls.OpCall, runtime: bool) -> None:
    """The call, then its gradient, under jit_compile=True."""
    if fuzz_support.statm_bytes(1) - start_rss_bytes > jit_calls.MAX_RSS_GROWTH_BYTES:
        print(f"op_fuzzer --mode=jit: RSS grew by more than "
              f"{jit_calls.MAX_RSS_GROWTH_BYTES >> 20} MiB, as XLA keeps every "
              f"executable; ending the run after {stats['calls'] - 1} calls: "
              f"{dict(sorted(stats.items()))}", flush=True)
        os._exit(0)  # pylint: disable=protected-access
    _cap_memory()
    name = call.op.op_def.name
    try:
        output = jit_functions.run(call, runtime)
        _record(f"{name} ran")
    except Exception as error:  # pylint: disable=broad-except
        _expect_clean_jit_error(error, name, runtime)
        return
    has_sources = any(value.dtype.kind == "f" for value in call.inputs.values())
    upstream = _upstream(output, call.upstream_seed) if has_sources else None
    if name not in GRADIENT_OPS or upstream is None:
        return
    try:
        jit_functions.run_gradient(call, runtime, upstream)
        _record(f"{name} gradient ran")
    except Exception as error:  # pylint: disable=broad-except
        _expect_clean_jit_error(error, f"{name} gradient", runtime)


def _test_jax(call: op_calls.OpCall) -> None:
    """The call through jax_ops, its gradient, and the handler directly."""
    import jax_calls  # pylint: disable=g-import-not-at-top
    _cap_memory()
    name = call.op.op_def.name
    try:
        jax_calls.run_wrapper(call)
        _record(f"{name} ran")
        if jax_calls.run_gradient(call, UPSTREAM_VALUES, call.upstream_seed):
            _record(f"{name} gradient ran")
    except Exception as error:  # pylint: disable=broad-except
        _record(f"{name} {jax_calls.expect_clean_error(error, handler=False)}")
    try:
        if jax_calls.run_handler(call):
            _record(f"{name} handler ran")
        else:
            _record(f"{name} handler skipped: XLA aborts on the result shape")
    except Exception as error:  # pylint: disable=broad-except
        _record(f"{name} {jax_calls.expect_clean_error(error, handler=True)}")


def decode(data: bytes) -> Tuple[op_calls.OpCall, bool]:
    """The call in `data` under the current mode, and (jit) whether its
    integer inputs are made run-time values."""
    fdp = atheris.FuzzedDataProvider(data)
    call = op_calls.decode(fdp, FUZZED_OPS)
    if MODE != "jit":
        return call, False
    return call, fdp.ConsumeIntInRange(0, jit_calls.RUNTIME_SHARE - 1) == 0


def test_one_input(data: bytes) -> None:
    stats["calls"] += 1
    if stats["calls"] % STATS_EVERY == 0:
        print(f"op_fuzzer after {stats['calls']} calls: {dict(sorted(stats.items()))}",
              flush=True)
    call, runtime = decode(data)
    if MODE == "jit":
        _test_jit(call, runtime)
        return
    if MODE == "jax":
        _test_jax(call)
        return
    try:
        call.op.function(**call.inputs, **call.attrs)
        _record(f"{call.op.op_def.name} ran")
    except Exception as error:  # pylint: disable=broad-except
        _expect_clean_error(error, call.op.op_def.name)
        return
    if call.op.op_def.name in GRADIENT_OPS:
        try:
            _run_gradient(call)
            _record(f"{call.op.op_def.name} gradient ran")
        except Exception as error:  # pylint: disable=broad-except
            _expect_clean_error(error, f"{call.op.op_def.name} gradient")


def _cap_memory() -> None:
    """Address space = now + MEMORY_BUDGET_BYTES (TensorFlow's threads exist by now)."""
    tf.constant(0.0) + 1.0  # start the eager context and its thread pools
    fuzz_support.cap_memory()


def _take_flags(argv: List[str]) -> List[str]:
    """Sets MODE, FUZZED_OPS and STATS_EVERY from --mode= and --stats_every=;
    returns the other arguments, for libFuzzer."""
    global MODE, FUZZED_OPS, STATS_EVERY  # pylint: disable=global-statement
    rest = []
    for arg in argv:
        if arg.startswith("--mode="):
            MODE = arg[len("--mode="):]
            if MODE not in ("eager", "jit", "jax"):
                sys.exit(f"--mode must be eager, jit or jax, got {MODE!r}")
        elif arg.startswith("--stats_every="):
            STATS_EVERY = int(arg[len("--stats_every="):])
        else:
            rest.append(arg)
    if MODE == "jit":
        FUZZED_OPS = jit_calls.jit_ops(OPS)
    if MODE == "jax":
        with atheris.instrument_imports(include=["tensorflow_ops", "jax_calls"]):
            import jax_calls  # pylint: disable=g-import-not-at-top
        FUZZED_OPS = jax_calls.jax_ops_of(OPS)
    return rest


def main(argv) -> None:
    global start_rss_bytes  # pylint: disable=global-statement
    argv = _take_flags(argv)
    if len(argv) == 3 and argv[1] == "--describe":
        with open(argv[2], "rb") as finding:
            call, runtime = decode(finding.read())
        print(op_calls.describe(call) + (f"\n  mode jit, integer inputs made run-time "
                                         f"values: {runtime}" if MODE == "jit" else ""))
        return
    print("fuzzing " + ", ".join(f"{op.op_def.name} ({op.library})" for op in FUZZED_OPS)
          + f"; gradients of {sorted(GRADIENT_OPS)}; mode {MODE}", flush=True)
    if not FUZZED_OPS:
        sys.exit(f"no op library found under tensorflow_ops (mode {MODE})")
    if MODE == "jit":
        print(f"jit mode is real: {jit_calls.prove_jit_is_real(OPS)}", flush=True)
    _cap_memory()
    start_rss_bytes = fuzz_support.statm_bytes(1)
    atheris.Setup(fuzz_support.with_default_flags(argv, DEFAULT_FLAGS), test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
