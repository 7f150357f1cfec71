"""One forward (sign), two gradients, attached with tf.custom_gradient and with
gradient_override_map; each gives its own gradient."""

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.cookbook import two_gradients

_X = np.array([-2.0, -1.0, -0.3, 0.4, 1.0, 1.5], np.float32)
_UPSTREAM = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], np.float32)
_STRAIGHT_THROUGH = _UPSTREAM
_CLIPPED = _UPSTREAM * (np.abs(_X) <= 1.0)


def _tape_gradient(function, x=_X):
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = function(x)
    return y, tape.gradient(y, x, output_gradients=tf.constant(_UPSTREAM))


class CustomGradientWrappersTest(test_util.TestCase):

    def test_same_forward_own_gradients(self):
        for function, expected in (
                (two_gradients.sign_straight_through, _STRAIGHT_THROUGH),
                (two_gradients.sign_clipped_straight_through, _CLIPPED),
                (tf.sign, np.zeros_like(_X))):
            with self.subTest(function=function.__name__):
                y, gradient = _tape_gradient(function)
                self.assertAllEqual(y, np.sign(_X))
                self.assertAllEqual(gradient, expected)
                traced = tf.function(lambda x: _tape_gradient(function, x))
                self.assertAllEqual(traced(tf.constant(_X))[1], expected)

    def test_compute_gradient_shows_the_replacement(self):
        # Away from 0 the numerical Jacobian of sign is 0; the theoretical one is
        # the replacement rule, to the stated tolerance of exactly 0.
        x = tf.constant(_X)
        for function, diagonal in (
                (two_gradients.sign_straight_through, np.ones_like(_X)),
                (two_gradients.sign_clipped_straight_through, np.abs(_X) <= 1.0)):
            theoretical, numerical = tf.test.compute_gradient(function, [x], delta=1e-2)
            with self.subTest(function=function.__name__):
                self.assertAllEqual(theoretical[0], np.diag(diagonal.astype(np.float32)))
                self.assertAllEqual(numerical[0], np.zeros((6, 6)))


class GradientOverrideMapTest(test_util.TestCase):

    def test_each_override_gives_its_gradient_in_a_graph(self):
        with tf.Graph().as_default() as graph:
            x = tf.constant(_X)
            upstream = tf.constant(_UPSTREAM)
            gradients = {}
            for name in (two_gradients.STRAIGHT_THROUGH,
                         two_gradients.CLIPPED_STRAIGHT_THROUGH):
                y = two_gradients.sign_with_gradient_override(x, name)
                gradients[name] = (y, tf.gradients(y, x, upstream)[0])
            default_gradient = tf.gradients(tf.sign(x), x, upstream)[0]
            with tf.compat.v1.Session(graph=graph) as session:
                values, default = session.run((gradients, default_gradient))
        for name, expected in ((two_gradients.STRAIGHT_THROUGH, _STRAIGHT_THROUGH),
                               (two_gradients.CLIPPED_STRAIGHT_THROUGH, _CLIPPED)):
            self.assertAllEqual(values[name][0], np.sign(_X))
            self.assertAllEqual(values[name][1], expected)
        self.assertAllEqual(default, np.zeros_like(_X))

    def test_gradient_tape_ignores_the_override(self):
        # Pitfall: the tape looks gradients up by op type, not by the override.
        @tf.function
        def tape_gradient(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = two_gradients.sign_with_gradient_override(
                    x, two_gradients.STRAIGHT_THROUGH)
            return tape.gradient(y, x)

        self.assertAllEqual(tape_gradient(tf.constant(_X)), np.zeros_like(_X))


if __name__ == "__main__":
    tf.test.main()
