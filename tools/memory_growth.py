"""Resident memory of this process, and whether it kept growing during a soak.

The verdict, on samples (seconds since the timed run started, RSS bytes):

- Warm-up: the first third of the run, and at least MIN_WARMUP_S. Every trace
  and XLA compile is made before the run starts (tools/soak_calls.py); the
  warm-up leaves time for what still settles afterwards (malloc's per-thread
  arenas, TensorFlow's lazily made kernels).
- Baseline: the median RSS of the first EDGE_SAMPLES samples after the
  warm-up; final: the median of the last EDGE_SAMPLES. A median, so that one
  sample taken while a call held its buffers does not decide the verdict.
- Passes if final - baseline is under max(GROWTH_BOUND_BYTES,
  GROWTH_BOUND_FRACTION * baseline), and, where the samples after the warm-up
  span at least MIN_SLOPE_WINDOW_S, the least-squares slope over them is
  under SLOPE_BOUND_MIB_PER_MIN. (Over a shorter window one late step of a few
  MiB reads as a steep slope; the growth bound covers it there.)

Measured here (2 cores, 4 threads): RSS moves by up to 20 MiB between samples
as calls hold their buffers, around 680 MiB once primed; an 8-minute run grew
by 5 MiB after its warm-up, with a slope of -1.0 MiB/min over its 5.3 minutes.
A 20-minute window at the slope bound is 30 MiB of growth, so a leak too slow
for the 64 MiB bound still fails a 30-minute soak.
- Fails if fewer than MIN_SAMPLES_AFTER_WARMUP samples follow the warm-up:
  such a run is too short to judge.
"""

import dataclasses
import statistics
from typing import List, Sequence, Tuple

MIB = 1 << 20
WARMUP_FRACTION = 1 / 3
MIN_WARMUP_S = 10.0
EDGE_SAMPLES = 5
MIN_SAMPLES_AFTER_WARMUP = 10
GROWTH_BOUND_BYTES = 64 * MIB
GROWTH_BOUND_FRACTION = 0.10
SLOPE_BOUND_MIB_PER_MIN = 1.5
MIN_SLOPE_WINDOW_S = 600.0

Sample = Tuple[float, int]  # (seconds since the start, resident bytes)


def resident_bytes() -> int:
    """This process's resident set size (VmRSS of /proc/self/status)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024  # in kB
    raise RuntimeError("/proc/self/status has no VmRSS line")


@dataclasses.dataclass(frozen=True)
class GrowthVerdict:
    passed: bool
    reasons: Tuple[str, ...]        # why it failed; empty if it passed
    warmup_s: float
    samples_after_warmup: int
    baseline_bytes: int
    final_bytes: int
    peak_bytes: int
    growth_bytes: int               # final - baseline
    growth_bound_bytes: int
    slope_mib_per_min: float        # over the samples after the warm-up
    window_s: float                 # the time those samples span
    slope_checked: bool             # window_s >= MIN_SLOPE_WINDOW_S

    def summary(self) -> str:
        slope = (f"slope {self.slope_mib_per_min:+.2f} MiB/min over "
                 f"{self.window_s / 60:.1f} min (bound {SLOPE_BOUND_MIB_PER_MIN:.1f}"
                 f"{'' if self.slope_checked else ', not applied under'}"
                 f"{'' if self.slope_checked else f' {MIN_SLOPE_WINDOW_S / 60:.0f} min'})")
        return (f"RSS after warm-up ({self.warmup_s:.0f} s) {self.baseline_bytes / MIB:.1f} "
                f"MiB, final {self.final_bytes / MIB:.1f} MiB, peak "
                f"{self.peak_bytes / MIB:.1f} MiB; growth "
                f"{self.growth_bytes / MIB:+.1f} MiB (bound "
                f"{self.growth_bound_bytes / MIB:.1f} MiB); {slope}")


def warmup_seconds(duration_s: float) -> float:
    return max(MIN_WARMUP_S, WARMUP_FRACTION * duration_s)


def _slope_per_minute(samples: Sequence[Sample]) -> float:
    """Least-squares slope of RSS over time, in MiB per minute."""
    times = [t for t, _ in samples]
    values = [rss / MIB for _, rss in samples]
    mean_t, mean_v = statistics.fmean(times), statistics.fmean(values)
    spread = sum((t - mean_t) ** 2 for t in times)
    if spread == 0:
        return 0.0
    return 60 * sum((t - mean_t) * (v - mean_v) for t, v in zip(times, values)) / spread


def check_growth(samples: Sequence[Sample], duration_s: float) -> GrowthVerdict:
    """The verdict on RSS `samples` of a run of `duration_s` seconds."""
    warmup_s = warmup_seconds(duration_s)
    after: List[Sample] = [s for s in samples if s[0] >= warmup_s]
    peak = max((rss for _, rss in samples), default=0)
    if len(after) < MIN_SAMPLES_AFTER_WARMUP:
        return GrowthVerdict(
            False, (f"only {len(after)} RSS samples after the {warmup_s:.0f} s warm-up "
                    f"of a {duration_s:.0f} s run, {MIN_SAMPLES_AFTER_WARMUP} needed "
                    "to judge growth: run longer",),
            warmup_s, len(after), 0, 0, peak, 0, GROWTH_BOUND_BYTES, 0.0, 0.0, False)
    edge = min(EDGE_SAMPLES, len(after) // 2)
    baseline = int(statistics.median(rss for _, rss in after[:edge]))
    final = int(statistics.median(rss for _, rss in after[-edge:]))
    bound = max(GROWTH_BOUND_BYTES, int(GROWTH_BOUND_FRACTION * baseline))
    slope = _slope_per_minute(after)
    window_s = after[-1][0] - after[0][0]
    slope_checked = window_s >= MIN_SLOPE_WINDOW_S
    reasons = []
    if final - baseline >= bound:
        reasons.append(f"RSS grew by {(final - baseline) / MIB:.1f} MiB after the "
                       f"warm-up (from {baseline / MIB:.1f} to {final / MIB:.1f} MiB), "
                       f"bound {bound / MIB:.1f} MiB")
    if slope_checked and slope >= SLOPE_BOUND_MIB_PER_MIN:
        reasons.append(f"RSS kept growing at {slope:.2f} MiB/min over the "
                       f"{window_s / 60:.1f} min after the warm-up, bound "
                       f"{SLOPE_BOUND_MIB_PER_MIN:.1f} MiB/min")
    return GrowthVerdict(not reasons, tuple(reasons), warmup_s, len(after), baseline,
                         final, peak, final - baseline, bound, slope, window_s,
                         slope_checked)
