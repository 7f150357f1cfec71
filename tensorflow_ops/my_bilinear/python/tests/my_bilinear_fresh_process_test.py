"""MyBilinear's tests whose cases run in child processes (a CPU path or a
thread count fixed before TensorFlow starts, an output that must be fresh
memory), with their parents in one process
(tensorflow_ops/test_util.py, load_tests_of). Each file also runs alone, or
here with `--test_filter=<its module name>`."""

import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_cpu_paths_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_determinism_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_huge_page_advice_test

load_tests = test_util.load_tests_of(
    my_bilinear_cpu_paths_test,
    my_bilinear_determinism_test,
    my_bilinear_huge_page_advice_test,
)

if __name__ == "__main__":
    tf.test.main()
