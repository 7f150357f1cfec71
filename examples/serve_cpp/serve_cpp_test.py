"""The serving program's tests in one process, which then imports TensorFlow
once (tensorflow_ops/test_util.py, load_tests_of; docs/testing.md#one-process-per-target).
Each file also runs alone, with `--test_filter=<its module name>` or
`python -m`."""

import tensorflow as tf

from examples.serve_cpp import serve_npy_input_test
from examples.serve_cpp import serve_saved_model_test
from tensorflow_ops import test_util

load_tests = test_util.load_tests_of(
    serve_npy_input_test,
    serve_saved_model_test,
)

if __name__ == "__main__":
    tf.test.main()
