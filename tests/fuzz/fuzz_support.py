"""What the Atheris fuzz targets share: the memory cap, the outcome signal and
libFuzzer's default flags."""

import resource
import zlib
from typing import Callable, Dict, List

import atheris

# A hostile size either is refused or fails to allocate within this much
# address space above what the process holds when it is capped.
MEMORY_BUDGET_BYTES = 1 << 30

OUTCOME_BUCKETS = 64


def statm_bytes(field: int) -> int:
    """A field of /proc/self/statm (0: address space, 1: resident), in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[field]) * resource.getpagesize()


def cap_memory() -> None:
    """Address space = now + MEMORY_BUDGET_BYTES. Call it once TensorFlow's
    threads exist, which take address space of their own."""
    limit = statm_bytes(0) + MEMORY_BUDGET_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))


def with_default_flags(argv: List[str], defaults: Dict[str, object]) -> List[str]:
    """`argv` with -FLAG=VALUE added for each default it does not set."""
    return argv + [f"-{flag}={value}" for flag, value in defaults.items()
                   if not any(arg.startswith(f"-{flag}=") for arg in argv)]


def make_outcome_signal() -> Callable[[str], None]:
    """A function of how a call ended, with one branch per bucket, instrumented
    like the code under test. Python coverage alone cannot tell a call refused
    by the first check from one that ran the kernel (the kernels are C++);
    branching on how the call ended makes libFuzzer keep inputs that reach a
    new check or a result, and mutate from them."""
    lines = ["def outcome_signal(bucket):"]
    lines += [f"    if bucket == {b}:\n        return {b}" for b in range(OUTCOME_BUCKETS)]
    namespace = {}
    exec("\n".join(lines), namespace)  # pylint: disable=exec-used
    branches = atheris.instrument_func(namespace["outcome_signal"])
    return lambda outcome: branches(zlib.crc32(outcome.encode()) % OUTCOME_BUCKETS)
