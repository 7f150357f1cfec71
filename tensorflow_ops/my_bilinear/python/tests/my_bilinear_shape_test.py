"""Static shapes of MyBilinear: known H and W for a constant size, unknown otherwise."""

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear


def _traced_shape(fn, *specs):
    return fn.get_concrete_function(*specs).structured_outputs.shape.as_list()


class MyBilinearShapeTest(test_util.TestCase):

    def test_constant_size_gives_static_height_and_width(self):
        resize = tf.function(lambda images: my_bilinear(images, (9, 4)))
        self.assertEqual(_traced_shape(resize, tf.TensorSpec([None, 5, 7, 3])),
                         [None, 9, 4, 3])
        self.assertEqual(_traced_shape(resize, tf.TensorSpec([2, None, None, 17])),
                         [2, 9, 4, 17])

    def test_dynamic_size_gives_unknown_height_and_width(self):
        resize = tf.function(my_bilinear)
        self.assertEqual(
            _traced_shape(resize, tf.TensorSpec([2, 5, 7, 3]),
                          tf.TensorSpec([2], tf.int32)),
            [2, None, None, 3])

    def test_partly_constant_size(self):
        @tf.function
        def resize(images, width):
            return my_bilinear(images, tf.stack([9, width]))

        self.assertEqual(
            _traced_shape(resize, tf.TensorSpec([2, 5, 7, 3]),
                          tf.TensorSpec([], tf.int32)),
            [2, 9, None, 3])

    def test_unknown_rank_input_still_runs(self):
        resize = tf.function(my_bilinear, input_signature=[
            tf.TensorSpec(None, tf.float32), tf.TensorSpec(None, tf.int32)])
        self.assertEqual(
            resize.get_concrete_function().structured_outputs.shape.rank, 4)
        images = np.ones((2, 3, 3, 5), np.float32)
        self.assertEqual(resize(images, tf.constant([4, 6])).shape, (2, 4, 6, 5))

    def test_eager_shapes(self):
        images = np.ones((3, 5, 7, 2), np.float32)
        self.assertEqual(my_bilinear(images, (1, 11)).shape, (3, 1, 11, 2))
        self.assertEqual(my_bilinear(images[:0], (4, 4)).shape, (0, 4, 4, 2))


if __name__ == "__main__":
    tf.test.main()
