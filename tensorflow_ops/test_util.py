"""Base test case for the op tests."""

import tensorflow as tf


class TestCase(tf.test.TestCase):
    """tf.test.TestCase without TensorFlow's deprecated `test_session` helper,
    which unittest would otherwise collect and report as a skipped test."""

    test_session = None
