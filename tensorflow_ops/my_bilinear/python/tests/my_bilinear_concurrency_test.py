"""Four Python threads running MyBilinear and its gradient at once, on
different shapes, attrs and dtypes, get bitwise the results of single calls.

Eager ops release the GIL while their kernels run, so the calls overlap in
the kernels and in TensorFlow's shared thread pool.
"""

import threading
from typing import List, NamedTuple, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import my_bilinear
from tensorflow_ops.my_bilinear.python.tests import test_cases

_ROUNDS = 10


class Job(NamedTuple):
    images: np.ndarray
    size: Tuple[int, int]
    align_corners: bool
    half_pixel_centers: bool


def _jobs() -> List[Job]:
    # Kernels long enough to overlap; the first touches more than 2^18 values
    # (bilinear::kMinValuesToSplit), so it is split over threads.
    shapes = [((2, 37, 23, 3), (1400, 520)), ((1, 300, 200, 1), (61, 47)),
              ((3, 16, 16, 17), (16, 16)), ((2, 19, 80, 4), (90, 33))]
    dtypes = [np.float32, np.float64, np.float16, test_cases.BFLOAT16]
    return [Job(test_cases.random_images(shape, dtype, seed=i), size,
                *test_cases.ATTRS[i % 3])
            for i, ((shape, size), dtype) in enumerate(zip(shapes, dtypes))]


def _run(job: Job) -> Tuple[bytes, bytes]:
    """The resized images and the gradient of their weighted sum, as bytes."""
    images = tf.constant(job.images)
    with tf.GradientTape() as tape:
        tape.watch(images)
        resized = my_bilinear(images, job.size, job.align_corners,
                              job.half_pixel_centers)
        # A weight per output element, so the gradient is not uniform.
        weights = tf.cast(tf.reshape(tf.range(tf.size(resized)) % 7, tf.shape(resized)),
                          resized.dtype)
        loss = tf.reduce_sum(resized * weights)
    return resized.numpy().tobytes(), tape.gradient(loss, images).numpy().tobytes()


class MyBilinearConcurrencyTest(test_util.TestCase):

    def test_four_threads_get_the_bits_of_single_calls(self):
        jobs = _jobs()
        expected = [_run(job) for job in jobs]
        results = [[] for _ in jobs]
        errors = []
        start = threading.Barrier(len(jobs))

        def worker(index: int) -> None:
            try:
                start.wait()
                for _ in range(_ROUNDS):
                    results[index].append(_run(jobs[index]))
            except Exception as error:  # pylint: disable=broad-except
                errors.append(error)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(jobs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(errors, [])
        for index, job in enumerate(jobs):
            with self.subTest(shape=job.images.shape, dtype=job.images.dtype.name):
                self.assertLen(results[index], _ROUNDS)
                for forward, gradient in results[index]:
                    self.assertEqual(forward, expected[index][0])
                    self.assertEqual(gradient, expected[index][1])


if __name__ == "__main__":
    tf.test.main()
