"""Draws the benchmark's speed-ups and times over the bound as a PNG."""

from typing import List

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top,wrong-import-position


def plot(rows: List, path: str, title: str) -> None:
    """Two bar charts, one bar per (pass, case): TF time / ours, ours / tf.fill."""
    labels = [f"{r.pass_name[:4]} {'x'.join(map(str, r.shape))}->{r.size[0]}x{r.size[1]} "
              f"{r.attrs} {r.dtype}" for r in rows]
    figure, (speedup_axis, bound_axis) = plt.subplots(
        1, 2, figsize=(14, 0.28 * len(rows) + 1.5), sharey=True)
    positions = range(len(rows))
    colors = ["tab:blue" if r.pass_name == "forward" else "tab:orange" for r in rows]
    speedup_axis.barh(positions, [r.speedup for r in rows], color=colors)
    speedup_axis.axvline(1.0, color="black", linewidth=0.8)
    speedup_axis.set_xlabel("speed-up over TensorFlow (TF time / ours)")
    speedup_axis.set_yticks(list(positions), labels, fontsize=7)
    speedup_axis.invert_yaxis()
    bound_axis.barh(positions, [r.over_fill for r in rows], color=colors)
    bound_axis.axvline(1.0, color="black", linewidth=0.8)
    bound_axis.set_xlabel("ours / tf.fill of the result (1 = framework bound)")
    figure.suptitle(title + " (blue: forward, orange: gradient)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
