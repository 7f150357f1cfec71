#!/usr/bin/env python3
"""Soak of MyBilinear and its gradient: many threads, every mode, for minutes.

    PYTHONPATH=. .venv/bin/python tools/soak.py --minutes 30
    bazel run //tools:soak -- --minutes 30 --threads 4 --seed 0

Each of --threads threads calls MyBilinear (`ops.my_bilinear`) and its
gradient (`tf.GradientTape` over `my_bilinear`, which runs MyBilinearGrad) in
random valid shapes (at most 2^18 elements in and out), every image dtype,
every floating out_type and every attr combination, eagerly, in `tf.function`
and in `tf.function(jit_compile=True)` (tools/soak_calls.py). One call in
CHECK_FRACTION is compared with TensorFlow's ResizeBilinear and
ResizeBilinearGrad. Each thread draws from its own generator, seeded from
--seed and its index.

Every trace and XLA compile the run can need is made first, on one thread
("priming"); then the clock starts. RSS (/proc/self/status) is sampled every
SAMPLE_S and printed with the calls per second every --interval_s. It fails
(exit status 1, naming the figures) on any error or mismatch, on a mode or op
that never ran, or if RSS kept growing after the warm-up: tools/memory_growth.py
states the warm-up (a third of the run, at least 10 s) and the bounds (growth
under max(64 MiB, 10%), slope under 1.5 MiB/min where 10 minutes or more
follow the warm-up).
"""

import argparse
import collections
import dataclasses
import itertools
import os
import sys
import threading
import time
import traceback
from typing import Callable, Dict, List, Optional

if __package__ in (None, ""):  # run as a script: make `tools` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # pylint: disable=wrong-import-position

from tools import memory_growth  # pylint: disable=wrong-import-position
from tools import soak_calls  # pylint: disable=wrong-import-position

CHECK_FRACTION = 0.1
SAMPLE_S = 1.0
MAX_ERRORS_KEPT = 5


@dataclasses.dataclass
class SoakReport:
    minutes: float
    threads: int
    seed: int
    primed: int                   # functions traced (and jit cases compiled) first
    prime_s: float
    duration_s: float             # the timed run, after priming
    calls: Dict[str, int]         # "MODE OP" (e.g. "jit MyBilinearGrad") -> calls
    checks: Dict[str, int]        # "MODE OP" -> results compared with TensorFlow's
    errors: List[str]             # errors and mismatches, the first MAX_ERRORS_KEPT
    error_count: int
    rss_start_bytes: int          # before priming
    samples: List[memory_growth.Sample]
    growth: memory_growth.GrowthVerdict
    reasons: List[str]            # why it failed; empty if it passed

    @property
    def passed(self) -> bool:
        return not self.reasons

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def summary(self) -> str:
        per_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(self.calls.items()))
        lines = [
            f"soak summary: {self.duration_s / 60:.1f} min, {self.threads} threads, seed "
            f"{self.seed}; primed {self.primed} functions in {self.prime_s:.0f} s",
            f"calls: {self.total_calls} ({self.total_calls / max(self.duration_s, 1e-9):.1f}"
            f"/s): {per_kind}",
            f"checked against TensorFlow: {sum(self.checks.values())} results, "
            f"{self.error_count} errors or mismatches",
            f"RSS before priming {self.rss_start_bytes / memory_growth.MIB:.1f} MiB; "
            + self.growth.summary(),
            "PASS" if self.passed else "FAIL: " + "; ".join(self.reasons),
        ]
        return "\n".join(lines + self.errors)


class _Worker(threading.Thread):
    """Calls random modes and ops until `stop` is set."""

    def __init__(self, index: int, seed: int, table: soak_calls.CallTable,
                 stop: threading.Event, tally: "_Tally") -> None:
        super().__init__(name=f"soak-{index}", daemon=True)
        self._rng = np.random.default_rng([seed, index])
        self._table, self._stop_event, self._tally = table, stop, tally

    def run(self) -> None:
        kinds = list(itertools.product(soak_calls.MODES, soak_calls.OPS))
        while not self._stop_event.is_set():
            mode, op = kinds[int(self._rng.integers(len(kinds)))]
            call = soak_calls.random_call(self._rng, mode, op)
            check = self._rng.random() < CHECK_FRACTION
            try:
                check = soak_calls.run(self._table, call, self._rng, check)
            except Exception as error:  # pylint: disable=broad-except
                self._tally.error(f"{call.describe()}: {type(error).__name__}: {error}\n"
                                  + traceback.format_exc(limit=4))
                self._stop_event.set()
                return
            self._tally.count(f"{mode} {op}", check)


class _Tally:
    """Counts shared by the workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = collections.Counter()
        self.checks = collections.Counter()
        self.errors: List[str] = []
        self.error_count = 0

    def count(self, kind: str, checked: bool) -> None:
        with self._lock:
            self.calls[kind] += 1
            if checked:
                self.checks[kind] += 1

    def error(self, message: str) -> None:
        with self._lock:
            self.error_count += 1
            if len(self.errors) < MAX_ERRORS_KEPT:
                self.errors.append(message)

    def total(self) -> int:
        with self._lock:
            return sum(self.calls.values())


def soak(minutes: float, threads: int = 4, seed: int = 0, interval_s: float = 30.0,
         print_fn: Callable[[str], None] = print) -> SoakReport:
    """Runs the soak for `minutes` (after priming) and returns its report."""
    rss_start = memory_growth.resident_bytes()
    table = soak_calls.CallTable()
    prime_start = time.monotonic()
    primed = table.prime(np.random.default_rng([seed, threads]))
    prime_s = time.monotonic() - prime_start
    print_fn(f"primed {primed} functions in {prime_s:.1f} s; RSS "
             f"{memory_growth.resident_bytes() / memory_growth.MIB:.1f} MiB; running "
             f"{minutes} min on {threads} threads, seed {seed}")

    stop, tally = threading.Event(), _Tally()
    workers = [_Worker(i, seed, table, stop, tally) for i in range(threads)]
    start = time.monotonic()
    for worker in workers:
        worker.start()
    samples: List[memory_growth.Sample] = []
    last_print, last_total = 0.0, 0
    deadline = minutes * 60
    while not stop.is_set():
        elapsed = time.monotonic() - start
        if elapsed >= deadline:
            break
        samples.append((elapsed, memory_growth.resident_bytes()))
        if elapsed - last_print >= interval_s or not last_print:
            total = tally.total()
            rate = (total - last_total) / max(elapsed - last_print, 1e-9)
            print_fn(f"[{elapsed:7.1f} s] {total} calls ({rate:.1f}/s), RSS "
                     f"{samples[-1][1] / memory_growth.MIB:.1f} MiB")
            last_print, last_total = elapsed, total
        stop.wait(min(SAMPLE_S, max(deadline - elapsed, 0.0)))
    stop.set()
    for worker in workers:
        worker.join()
    duration_s = time.monotonic() - start
    samples.append((duration_s, memory_growth.resident_bytes()))

    growth = memory_growth.check_growth(samples, duration_s)
    reasons = list(growth.reasons)
    if tally.error_count:
        reasons.insert(0, f"{tally.error_count} calls failed or mismatched")
    missing = [f"{mode} {op}" for mode, op in itertools.product(soak_calls.MODES, soak_calls.OPS)
               if not tally.calls[f"{mode} {op}"]]
    if missing and not tally.error_count:
        reasons.append("never ran: " + ", ".join(missing))
    return SoakReport(minutes, threads, seed, primed, prime_s, duration_s,
                      dict(tally.calls), dict(tally.checks), tally.errors,
                      tally.error_count, rss_start, samples, growth, reasons)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, required=True,
                        help="length of the timed run, after priming (e.g. 0.5)")
    parser.add_argument("--threads", type=int, default=4, help="calling threads")
    parser.add_argument("--seed", type=int, default=0, help="seed of every thread's draws")
    parser.add_argument("--interval_s", type=float, default=30.0,
                        help="seconds between progress lines")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.threads < 1 or args.interval_s <= 0:
        parser.error("--minutes and --interval_s must be positive, --threads at least 1")
    report = soak(args.minutes, args.threads, args.seed, args.interval_s,
                  print_fn=lambda line: print(line, flush=True))
    print(report.summary(), flush=True)
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
