"""The cookbook's tests, one file per technique, in one process
(tensorflow_ops/test_util.py, load_tests_of). Each file also runs alone:
`python -m tensorflow_ops.cookbook.swish_test`, or here with
`--test_filter=swish_test`."""

import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.cookbook import custom_gradients_test
from tensorflow_ops.cookbook import numpy_fft_test
from tensorflow_ops.cookbook import swish_test
from tensorflow_ops.cookbook import two_gradients_test

load_tests = test_util.load_tests_of(
    custom_gradients_test,
    numpy_fft_test,
    swish_test,
    two_gradients_test,
)

if __name__ == "__main__":
    tf.test.main()
