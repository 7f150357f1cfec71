"""Outputs and gradients of 2^30 and more elements: computed, or refused with
a TensorFlow error, but never a crash.

Each case runs in a child process, so that a crash (a C++ exception escaping
the kernel, an out-of-memory kill) is seen as a failure of this test instead
of ending it. The interpolation once kept a plan of 24 bytes per output row
and column, and the gradient three 64-bit counters per input row: 12 times a
narrow half-precision tensor, which threw std::bad_alloc through the kernel.
"""

import subprocess
import sys
import textwrap

import tensorflow as tf

from tensorflow_ops import test_util

# The child prints "computed" or "refused: <error>" and exits 0; any other way
# of ending is a failure.
_CHILD_PRELUDE = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    from tensorflow_ops.my_bilinear import ops

    def report(compute, check):
        try:
            result = compute()
        except (tf.errors.ResourceExhaustedError, tf.errors.InvalidArgumentError) as error:
            print("refused:", type(error).__name__, error.message[:200])
            return
        check(result)
        print("computed", result.shape)
""")

_TIMEOUT_SECONDS = 600


class HugeSizesTest(test_util.TestCase):

    def _run_child(self, body: str) -> str:
        code = _CHILD_PRELUDE + textwrap.dedent(body)
        process = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                 text=True, timeout=_TIMEOUT_SECONDS)
        self.assertEqual(
            process.returncode, 0,
            f"child ended with {process.returncode}:\n{process.stdout}\n"
            f"{process.stderr[-3000:]}")
        last_line = process.stdout.strip().splitlines()[-1]
        self.assertRegex(last_line, r"^(computed|refused: (ResourceExhausted|InvalidArgument)Error \S)")
        return last_line

    def _check_forward(self, size):
        # A 1x1 image resizes to a constant; its first and last values are read.
        return self._run_child(f"""
            size = {size}
            def check(result):
                assert result.dtype == tf.half and result.shape == (1, *size, 1)
                assert float(result[0, 0, 0, 0]) == 0.5, result[0, 0, 0, 0]
                assert float(result[0, -1, -1, 0]) == 0.5, result[0, -1, -1, 0]
            report(lambda: ops.my_bilinear(images=np.full((1, 1, 1, 1), 0.5, np.float16),
                                           size=size, out_type=tf.half), check)
        """)

    def test_one_row_of_2_to_the_30_columns(self):
        self._check_forward([1, 2**30])

    def test_2_to_the_30_rows_of_one_column(self):
        self._check_forward([2**30, 1])

    def test_int32_max_rows(self):
        self._check_forward([2**31 - 1, 1])

    def test_gradient_into_2_to_the_30_rows(self):
        # With one output row, align_corners reads input row 0 only (scale
        # in / out): the gradient is the upstream value there and 0 elsewhere.
        line = self._run_child("""
            def check(result):
                assert result.dtype == tf.half and result.shape == (1, 2**30, 1, 1)
                assert float(result[0, 0, 0, 0]) == 0.75, result[0, 0, 0, 0]
                assert np.count_nonzero(result.numpy().view(np.uint16)) == 1
            report(lambda: ops.my_bilinear_grad(
                grads=tf.fill([1, 1, 1, 1], tf.constant(0.75, tf.half)),
                original_image=tf.zeros([1, 2**30, 1, 1], tf.half)), check)
        """)
        self.assertNotIn("InvalidArgument", line)


if __name__ == "__main__":
    tf.test.main()
