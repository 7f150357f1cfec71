"""Base test case for the op tests, and the loader of test targets that run
several test files in one process."""

import types
import unittest
from typing import Callable

import tensorflow as tf


class TestCase(tf.test.TestCase):
    """tf.test.TestCase without TensorFlow's deprecated `test_session` helper,
    which unittest would otherwise collect and report as a skipped test."""

    test_session = None


def load_tests_of(*modules: types.ModuleType) -> Callable[..., unittest.TestSuite]:
    """unittest's `load_tests` hook for a target that runs the tests of several
    files in one process (docs/testing.md#one-process-per-target): each file
    then pays for TensorFlow's import once, not once per file.

    A file's tests stay selectable by its module name, with Bazel's
    `--test_filter=my_bilinear_ops_test` (absltest's `-k`: `python -m <the
    target's main module> -- -k my_bilinear_ops_test`). The main module itself
    holds no tests: its own would be named `__main__`'s, not its file's.
    """
    def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite,
                   pattern: str) -> unittest.TestSuite:
        del pattern  # unused: the modules are named, not discovered
        for module in modules:
            tests.addTests(loader.loadTestsFromModule(module))
        return tests
    return load_tests
