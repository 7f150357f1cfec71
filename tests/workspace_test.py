"""The workspace-wide tests that need no process of their own, in one process
(tensorflow_ops/test_util.py, load_tests_of): saving and loading, TensorFlow
Lite, configure.py's CUDA switch, find_tensorflow.py, and the wheel. Each file
also runs alone, or here with `--test_filter=<its module name>`, e.g.
`--test_filter=saving_test`."""

import tensorflow as tf

from tensorflow_ops import test_util
from tests import configure_cuda_test
from tests import find_tensorflow_test
from tests import saving_test
from tests import tflite_conversion_test
from tests import wheel_test

load_tests = test_util.load_tests_of(
    configure_cuda_test,
    find_tensorflow_test,
    saving_test,
    tflite_conversion_test,
    wheel_test,
)

if __name__ == "__main__":
    tf.test.main()
