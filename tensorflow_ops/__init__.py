"""TensorFlow custom ops built with Bazel against the installed TensorFlow.

Each op lives in a subpackage (for example `tensorflow_ops.my_bilinear`) that loads
its compiled library on import.
"""
