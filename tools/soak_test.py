"""tools/soak.py: a 30-second soak passes and runs every mode and op; the
growth check and the result checks can fail; the command's exit status."""

import contextlib
import io
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from tools import memory_growth
from tools import soak
from tools import soak_calls

MIB = memory_growth.MIB


def _series(minutes: float, start_mib: float, mib_per_min: float,
            noise_mib: float = 0.0, seed: int = 0):
    """RSS samples every second: a line with uniform noise."""
    rng = np.random.default_rng(seed)
    return [(t, int((start_mib + mib_per_min * t / 60 + rng.uniform(-noise_mib, noise_mib))
                    * MIB)) for t in range(int(minutes * 60) + 1)]


class GrowthCheckTest(absltest.TestCase):

    def test_flat_series_with_noise_passes(self):
        verdict = memory_growth.check_growth(_series(30, 680, 0.0, noise_mib=10), 1800)
        self.assertTrue(verdict.passed, verdict.reasons)
        self.assertTrue(verdict.slope_checked)
        self.assertLess(abs(verdict.slope_mib_per_min), 0.2)

    def test_steady_growth_under_the_bound_fails_on_the_slope(self):
        # 2 MiB/min for the 20 minutes after the warm-up: 40 MiB, under the
        # 64 MiB bound, so only the slope catches it.
        verdict = memory_growth.check_growth(_series(30, 680, 2.0, noise_mib=5), 1800)
        self.assertFalse(verdict.passed)
        self.assertLess(verdict.growth_bytes, verdict.growth_bound_bytes)
        self.assertRegex(" ".join(verdict.reasons), r"kept growing at [12]\.\d\d MiB/min")

    def test_growth_past_the_bound_fails_and_names_the_figures(self):
        series = _series(1, 600, 0.0)
        series += [(t, 700 * MIB) for t in range(61, 90)]
        verdict = memory_growth.check_growth(series, 90)
        self.assertFalse(verdict.passed)
        self.assertFalse(verdict.slope_checked)  # 60 s: too short for the slope
        self.assertIn("RSS grew by 100.0 MiB after the warm-up (from 600.0 to 700.0 MiB), "
                      "bound 64.0 MiB", verdict.reasons)

    def test_bound_is_a_tenth_of_a_large_baseline(self):
        verdict = memory_growth.check_growth(_series(1, 2000, 0.0), 60)
        self.assertEqual(verdict.growth_bound_bytes, 200 * MIB)

    def test_growth_during_the_warm_up_is_allowed(self):
        series = [(t, (500 + min(t, 20) * 5) * MIB) for t in range(90)]
        self.assertTrue(memory_growth.check_growth(series, 90).passed)

    def test_too_short_a_run_cannot_pass(self):
        verdict = memory_growth.check_growth(_series(0.2, 600, 0.0), 12)
        self.assertFalse(verdict.passed)
        self.assertRegex(verdict.reasons[0], "RSS samples after the 10 s warm-up")

    def test_resident_bytes_is_this_process(self):
        before = memory_growth.resident_bytes()
        block = np.ones(64 * MIB, np.uint8)
        self.assertGreater(memory_growth.resident_bytes() - before, 60 * MIB)
        del block


class ResultCheckTest(absltest.TestCase):

    def _call(self, mode: str, out_type: tf.DType) -> soak_calls.Call:
        rng = np.random.default_rng(3)
        call = soak_calls.random_call(rng, mode, "MyBilinear")
        return call._replace(out_type=out_type)

    def test_correct_results_pass(self):
        for mode in soak_calls.MODES:
            for out_type in soak_calls.FLOAT_DTYPES:
                call = self._call(mode, out_type)
                result = soak_calls.ops.my_bilinear(
                    images=call.images, size=call.size, out_type=out_type,
                    align_corners=call.attrs[0], half_pixel_centers=call.attrs[1])
                soak_calls.check_forward(call, result.numpy())

    def test_one_ulp_off_in_float32_fails_outside_xla(self):
        call = self._call("eager", tf.float32)
        result = soak_calls.ops.my_bilinear(
            images=call.images, size=call.size, align_corners=call.attrs[0],
            half_pixel_centers=call.attrs[1]).numpy()
        result.ravel()[0] = np.nextafter(result.ravel()[0], np.float32(2))
        with self.assertRaisesRegex(soak_calls.Mismatch, "not bitwise equal"):
            soak_calls.check_forward(call, result)

    def test_wrong_gradient_fails(self):
        rng = np.random.default_rng(4)
        call = soak_calls.random_call(rng, "eager", "MyBilinearGrad")
        call = call._replace(images=call.images.astype(np.float32), out_type=tf.float32)
        out_shape = (call.images.shape[0], *call.size, call.images.shape[3])
        upstream = np.ones(out_shape, np.float32)
        grad = tf.raw_ops.ResizeBilinearGrad(
            grads=upstream, original_image=call.images, align_corners=call.attrs[0],
            half_pixel_centers=call.attrs[1]).numpy()
        soak_calls.check_gradient(call, upstream, grad)
        grad.ravel()[0] += 0.5
        with self.assertRaisesRegex(soak_calls.Mismatch, "gradient differs"):
            soak_calls.check_gradient(call, upstream, grad)

    def test_geometries_stay_within_the_element_bound(self):
        rng = np.random.default_rng(5)
        for _ in range(2000):
            shape, size = soak_calls.random_geometry(rng)
            self.assertLessEqual(int(np.prod(shape)), soak_calls.MAX_ELEMENTS)
            self.assertLessEqual(max(shape[0], 1) * size[0] * size[1] * shape[3],
                                 soak_calls.MAX_ELEMENTS)


class SoakTest(absltest.TestCase):

    def test_thirty_seconds_pass_and_run_every_mode_and_op(self):
        lines = []
        report = soak.soak(minutes=0.5, threads=4, seed=1, interval_s=5,
                           print_fn=lines.append)
        self.assertTrue(report.passed, report.summary())
        for mode in soak_calls.MODES:
            for op in soak_calls.OPS:
                self.assertGreater(report.calls.get(f"{mode} {op}", 0), 0, f"{mode} {op}")
                self.assertGreater(report.checks.get(f"{mode} {op}", 0), 0, f"{mode} {op}")
        self.assertGreaterEqual(report.duration_s, 30)
        self.assertGreaterEqual(report.growth.samples_after_warmup,
                                memory_growth.MIN_SAMPLES_AFTER_WARMUP)
        self.assertTrue(any(" calls (" in line and "RSS" in line for line in lines))
        self.assertIn("PASS", report.summary())

    def test_failed_report_exits_nonzero_naming_the_figures(self):
        verdict = memory_growth.check_growth(
            [(t, (600 + 2 * t) * MIB) for t in range(60)], 60)
        report = soak.SoakReport(
            minutes=1, threads=1, seed=0, primed=1, prime_s=1.0, duration_s=60.0,
            calls={"eager MyBilinear": 5}, checks={}, errors=[], error_count=0,
            rss_start_bytes=500 * MIB, samples=[], growth=verdict,
            reasons=list(verdict.reasons))
        output = io.StringIO()
        with mock.patch.object(soak, "soak", return_value=report), \
                contextlib.redirect_stdout(output):
            self.assertEqual(soak.main(["--minutes", "1"]), 1)
        self.assertRegex(output.getvalue(), r"FAIL: RSS grew by \d+\.\d MiB after the warm-up")


if __name__ == "__main__":
    absltest.main()
