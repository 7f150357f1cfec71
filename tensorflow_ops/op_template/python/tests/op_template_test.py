"""The op's Python tests in one process, which then imports TensorFlow once
(about 3 s of CPU each time; tensorflow_ops/test_util.py, load_tests_of).
Each file also runs alone, with `--test_filter=<its module name>` or
`python -m`."""

import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.op_template.python.tests import op_template_ops_test
from tensorflow_ops.op_template.python.tests import op_template_property_test

load_tests = test_util.load_tests_of(
    op_template_ops_test,
    op_template_property_test,
)

if __name__ == "__main__":
    tf.test.main()
