"""Outputs and gradients of 2^30 and more elements: computed, or refused with
a TensorFlow error, but never a crash.

The cases run in one child process, one after the other, so that a crash (a
C++ exception escaping the kernel, an out-of-memory kill) is seen as a failure
of this test instead of ending it; the child names each case before it starts
it, so a crash names the case that caused it. One child, not one per case:
each start of TensorFlow costs seconds, and this test is among the suite's
longest. The interpolation once kept a plan of 24 bytes per output row and
column, and the gradient three 64-bit counters per input row: 12 times a
narrow half-precision tensor, which threw std::bad_alloc through the kernel.
"""

import subprocess
import sys
import textwrap
from typing import Dict

import tensorflow as tf

from tensorflow_ops import test_util

# The child prints "start: <case>" before each case and "<case>: computed ..."
# or "<case>: refused: <error>" after it, and exits 0. A case with no outcome
# fails, with the child's output: the last case started is the one that ended
# it.
_CHILD = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf
    from tensorflow_ops.my_bilinear import ops

    def report(name, compute, check):
        print("start:", name, flush=True)
        try:
            result = compute()
        except (tf.errors.ResourceExhaustedError, tf.errors.InvalidArgumentError) as error:
            print(f"{name}: refused:", type(error).__name__, error.message[:200], flush=True)
            return
        check(result)
        print(f"{name}: computed", result.shape, flush=True)

    def check_forward(size):
        # A 1x1 image resizes to a constant; its first and last values are read.
        def check(result):
            assert result.dtype == tf.half and result.shape == (1, *size, 1)
            assert float(result[0, 0, 0, 0]) == 0.5, result[0, 0, 0, 0]
            assert float(result[0, -1, -1, 0]) == 0.5, result[0, -1, -1, 0]
        return check

    def forward(size):
        return lambda: ops.my_bilinear(images=np.full((1, 1, 1, 1), 0.5, np.float16),
                                       size=size, out_type=tf.half)

    for name, size in (("columns_2_to_the_30", [1, 2**30]),
                       ("rows_2_to_the_30", [2**30, 1]),
                       ("rows_int32_max", [2**31 - 1, 1])):
        report(name, forward(size), check_forward(size))

    # With one output row, align_corners reads input row 0 only (scale in /
    # out): the gradient is the upstream value there and 0 elsewhere.
    def check_gradient(result):
        assert result.dtype == tf.half and result.shape == (1, 2**30, 1, 1)
        # Bit patterns, four halves to a word, so that -0 and NaN count as
        # nonzero: the first word holds 0.75 (0x3a00) and three zeros, and
        # every other word is 0. (TensorFlow's count_nonzero would make
        # 1G-element bool and int64 copies; .numpy() a copy of 2 GB.)
        words = tf.bitcast(tf.reshape(tf.bitcast(result, tf.uint16), [-1, 4]), tf.uint64)
        assert int(words[0]) == 0x3A00, hex(int(words[0]))
        assert int(tf.reduce_max(words[1:])) == 0

    report("gradient_rows_2_to_the_30",
           lambda: ops.my_bilinear_grad(
               grads=tf.fill([1, 1, 1, 1], tf.constant(0.75, tf.half)),
               original_image=tf.zeros([1, 2**30, 1, 1], tf.half)),
           check_gradient)
""")

_TIMEOUT_SECONDS = 600


class HugeSizesTest(test_util.TestCase):

    _outcomes: Dict[str, str] = {}
    _failure = ""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        process = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True,
                                 text=True, timeout=_TIMEOUT_SECONDS)
        for line in process.stdout.splitlines():
            name, separator, outcome = line.partition(": ")
            if separator and name != "start":
                cls._outcomes[name] = outcome
        if process.returncode != 0:
            cls._failure = (f"child ended with {process.returncode}:\n{process.stdout}\n"
                            f"{process.stderr[-3000:]}")

    def _case_outcome(self, case: str) -> str:
        if case not in self._outcomes:
            self.fail(f"no outcome for {case}; " + (self._failure or str(self._outcomes)))
        outcome = self._outcomes[case]
        self.assertRegex(outcome, r"^(computed|refused: (ResourceExhausted|InvalidArgument)Error \S)")
        return outcome

    def test_one_row_of_2_to_the_30_columns(self):
        self._case_outcome("columns_2_to_the_30")

    def test_2_to_the_30_rows_of_one_column(self):
        self._case_outcome("rows_2_to_the_30")

    def test_int32_max_rows(self):
        self._case_outcome("rows_int32_max")

    def test_gradient_into_2_to_the_30_rows(self):
        self.assertNotIn("InvalidArgument", self._case_outcome("gradient_rows_2_to_the_30"))

    def test_child_exits_cleanly(self):
        if self._failure:
            self.fail(self._failure)


if __name__ == "__main__":
    tf.test.main()
