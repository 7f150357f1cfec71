"""Coverage-guided fuzz target (Atheris) for every op library of the workspace.

Each input is decoded (op_calls.py) into a call of one generated op function,
which is run eagerly, followed, where the op has a registered gradient and a
floating output, by its gradient with an upstream gradient holding NaN and Inf.
The only outcomes allowed are a result, or InvalidArgumentError or
ResourceExhaustedError with a message. Anything else (another exception, a
crash, a sanitizer report, a hang past -timeout) is a finding: libFuzzer
writes the input to crash-<sha1> and `--describe FILE` prints the call.

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
    # print the call in a finding:
    python tests/fuzz/op_fuzzer.py --describe crash-0123...

Atheris sees only Python coverage (of this file and of `tensorflow_ops`): the
op libraries are not compiled with coverage instrumentation, so `cov:` counts
Python branches, not C++ ones (see tools/fuzz_bilinear_math.sh for a
libFuzzer target over the C++ math).
"""

import collections
import os
import re
import resource
import sys
import zlib

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import atheris  # pylint: disable=g-import-not-at-top

with atheris.instrument_imports(include=["tensorflow_ops", "op_calls"]):
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework import ops as framework_ops

    import op_calls

MEMORY_BUDGET_BYTES = 1 << 30

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


# How calls ended, printed every STATS_EVERY calls: shows that the fuzzer
# reaches the kernels and their gradients, not only the argument checks.
STATS_EVERY = 5000
stats = collections.Counter()


OUTCOME_BUCKETS = 64


def _make_outcome_signal():
    """A function with one branch per bucket, instrumented like the code under
    test. Python coverage alone cannot tell a call refused by the first check
    from one that ran the kernel (the kernels are C++); branching on how the
    call ended makes libFuzzer keep inputs that reach a new check or a result,
    and mutate from them."""
    lines = ["def outcome_signal(bucket):"]
    lines += [f"    if bucket == {b}:\n        return {b}" for b in range(OUTCOME_BUCKETS)]
    namespace = {}
    exec("\n".join(lines), namespace)  # pylint: disable=exec-used
    return atheris.instrument_func(namespace["outcome_signal"])


outcome_signal = _make_outcome_signal()


def _record(outcome: str) -> None:
    """Counts the outcome and signals its template (digits dropped) as coverage."""
    stats[outcome] += 1
    template = re.sub(r"[0-9]+", "", outcome)
    outcome_signal(zlib.crc32(template.encode()) % OUTCOME_BUCKETS)


def _expect_clean_error(error: Exception, stage: str) -> None:
    if not isinstance(error, ALLOWED_ERRORS) or not error.message.strip():
        raise error
    stats[f"{stage} {type(error).__name__}"] += 1
    # The message up to its first shape or value: which check refused the call.
    outcome_signal(zlib.crc32(
        (stage + re.split(r"[0-9\[]", error.message, maxsplit=1)[0]).encode())
        % OUTCOME_BUCKETS)


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
    if not isinstance(output, tf.Tensor) or not output.dtype.is_floating or not sources:
        return
    count = output.shape.num_elements()
    if count > MAX_UPSTREAM_ELEMENTS:
        # The op ran on a large request; a second tensor that large could
        # exhaust the memory cap in NumPy, outside any op.
        stats["gradient skipped: large output"] += 1
        return
    if count == 0:
        # Empty, possibly with huge dims (a batch of 0), which NumPy refuses.
        upstream = tf.zeros(output.shape, output.dtype)
    else:
        rng = np.random.default_rng(call.upstream_seed)
        upstream = rng.choice(np.array(UPSTREAM_VALUES, output.dtype.as_numpy_dtype),
                              size=output.shape.as_list())
    tape.gradient(output, list(sources.values()), output_gradients=upstream)


def test_one_input(data: bytes) -> None:
    stats["calls"] += 1
    if stats["calls"] % STATS_EVERY == 0:
        print(f"op_fuzzer after {stats['calls']} calls: {dict(sorted(stats.items()))}",
              flush=True)
    call = op_calls.decode(atheris.FuzzedDataProvider(data), OPS)
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
    with open("/proc/self/statm") as statm:
        used = int(statm.read().split()[0]) * resource.getpagesize()
    limit = used + MEMORY_BUDGET_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))


def main(argv) -> None:
    if len(argv) == 3 and argv[1] == "--describe":
        with open(argv[2], "rb") as finding:
            print(op_calls.describe(op_calls.decode(
                atheris.FuzzedDataProvider(finding.read()), OPS)))
        return
    print("fuzzing " + ", ".join(f"{op.op_def.name} ({op.library})" for op in OPS)
          + f"; gradients of {sorted(GRADIENT_OPS)}", flush=True)
    if not OPS:
        sys.exit("no op library found under tensorflow_ops")
    _cap_memory()
    argv = argv + [f"-{flag}={value}" for flag, value in DEFAULT_FLAGS.items()
                   if not any(arg.startswith(f"-{flag}=") for arg in argv)]
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
