"""MyBilinear's Python tests that need no process of their own, in one
process (tensorflow_ops/test_util.py, load_tests_of): among them those whose
cases run in child processes (a CPU path or a thread count fixed before
TensorFlow starts, an output that must be fresh memory). Each file also runs
alone: `python -m tensorflow_ops.my_bilinear.python.tests.my_bilinear_ops_test`,
or here with `--test_filter=my_bilinear_ops_test`."""

import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_concurrency_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_cpu_paths_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_determinism_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_dtypes_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_grad_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_grad_validation_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_huge_page_advice_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_invalid_property_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_large_output_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_layer_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_memory_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_nonfinite_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_ops_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_property_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_shape_test
from tensorflow_ops.my_bilinear.python.tests import my_bilinear_validation_test

load_tests = test_util.load_tests_of(
    my_bilinear_concurrency_test,
    my_bilinear_cpu_paths_test,
    my_bilinear_determinism_test,
    my_bilinear_dtypes_test,
    my_bilinear_grad_test,
    my_bilinear_grad_validation_test,
    my_bilinear_huge_page_advice_test,
    my_bilinear_invalid_property_test,
    my_bilinear_large_output_test,
    my_bilinear_layer_test,
    my_bilinear_memory_test,
    my_bilinear_nonfinite_test,
    my_bilinear_ops_test,
    my_bilinear_property_test,
    my_bilinear_shape_test,
    my_bilinear_validation_test,
)

if __name__ == "__main__":
    tf.test.main()
