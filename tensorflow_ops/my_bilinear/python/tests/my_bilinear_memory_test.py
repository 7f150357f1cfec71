"""What MyBilinear and MyBilinearGrad allocate through TensorFlow's allocator:
their output, once, and nothing else: no temporary buffer for any image dtype
or out_type, half and bfloat16 gradients included (TensorFlow's
ResizeBilinearGrad of half takes a float buffer the size of the input there).

Read from a graph run's step stats (RunOptions FULL_TRACE), which record each
node's allocations and its temporary memory. The shapes are large enough that
the kernels split their rows over threads.
"""

from typing import Dict, List, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import test_cases

_SHAPE = (4, 48, 40, 16)
_SIZE = (96, 72)          # up-sampled: 442,368 output values
_DOWN_SIZE = (21, 17)     # down-sampled
_IMAGE_DTYPES = [tf.float32, tf.half, tf.bfloat16, tf.float64, tf.uint8, tf.int16]
_OUT_TYPES = [tf.float32, tf.half, tf.bfloat16]


def _node_allocations(build) -> Dict[str, Tuple[List[int], int, int]]:
    """Runs the graph `build()` makes (it returns the tensors to fetch, and a
    feed dict) with a full trace: for each node, the byte counts of its
    allocations, its temporary memory, and the bytes its output requested."""
    stats: Dict[str, Tuple[List[int], int, int]] = {}
    with tf.Graph().as_default():
        fetches, feed = build()
        with tf.compat.v1.Session() as session:
            metadata = tf.compat.v1.RunMetadata()
            session.run(fetches, feed,
                        options=tf.compat.v1.RunOptions(
                            trace_level=tf.compat.v1.RunOptions.FULL_TRACE),
                        run_metadata=metadata)
    for device in metadata.step_stats.dev_stats:
        for node in device.node_stats:
            records = [record.alloc_bytes for memory in node.memory
                       for record in memory.allocation_records if record.alloc_bytes > 0]
            requested = sum(output.tensor_description.allocation_description.requested_bytes
                            for output in node.output)
            stats[node.node_name] = (records, node.memory_stats.temp_memory_size, requested)
    return stats


class MyBilinearMemoryTest(test_util.TestCase):

    def assert_only_its_output(self, stats, node: str, output_bytes: int) -> None:
        records, temp_bytes, requested = stats[node]
        self.assertEqual(requested, output_bytes, node)
        self.assertEqual(records, [output_bytes], node)
        self.assertEqual(temp_bytes, 0, node)

    def test_forward_allocates_only_its_output(self):
        rng = np.random.default_rng(0)
        for dtype in _IMAGE_DTYPES:
            for size in (_SIZE, _DOWN_SIZE):
                out_types = _OUT_TYPES if dtype != tf.float64 else [tf.float64]
                for out_type in out_types:
                    def build(dtype=dtype, size=size, out_type=out_type):
                        images = tf.compat.v1.placeholder(dtype, _SHAPE)
                        resized = ops.my_bilinear(images=images, size=size,
                                                  out_type=out_type, name="ours")
                        values = rng.uniform(0, 255, _SHAPE).astype(dtype.as_numpy_dtype)
                        return resized, {images: values}
                    with self.subTest(dtype=dtype.name, size=size, out_type=out_type.name):
                        output_bytes = (_SHAPE[0] * size[0] * size[1] * _SHAPE[3]
                                        * out_type.size)
                        self.assert_only_its_output(_node_allocations(build), "ours",
                                                    output_bytes)

    def test_gradient_allocates_only_its_output(self):
        rng = np.random.default_rng(1)
        for dtype in (tf.float32, tf.half, tf.bfloat16, tf.float64):
            for size in (_SIZE, _DOWN_SIZE):
                for ac, hp in test_cases.ATTRS:
                    def build(dtype=dtype, size=size, ac=ac, hp=hp):
                        images = tf.compat.v1.placeholder(dtype, _SHAPE)
                        grads_shape = (_SHAPE[0], *size, _SHAPE[3])
                        grads = tf.compat.v1.placeholder(dtype, grads_shape)
                        ours = ops.my_bilinear_grad(grads=grads, original_image=images,
                                                    align_corners=ac,
                                                    half_pixel_centers=hp, name="ours")
                        np_dtype = dtype.as_numpy_dtype
                        return ours, {
                            images: rng.uniform(-1, 1, _SHAPE).astype(np_dtype),
                            grads: rng.uniform(-1, 1, grads_shape).astype(np_dtype)}
                    with self.subTest(dtype=dtype.name, size=size, ac=ac, hp=hp):
                        self.assert_only_its_output(_node_allocations(build), "ours",
                                                    int(np.prod(_SHAPE)) * dtype.size)

    def test_the_trace_sees_temporary_buffers(self):
        """TensorFlow's half gradient takes a float buffer the size of the
        input: the trace reports it, so the checks above could fail."""
        def build():
            images = tf.compat.v1.placeholder(tf.half, _SHAPE)
            grads = tf.compat.v1.placeholder(tf.float32, (_SHAPE[0], *_SIZE, _SHAPE[3]))
            theirs = tf.raw_ops.ResizeBilinearGrad(grads=grads, original_image=images,
                                                   name="theirs")
            return theirs, {images: np.ones(_SHAPE, np.float16),
                            grads: np.ones((_SHAPE[0], *_SIZE, _SHAPE[3]), np.float32)}
        records, temp_bytes, _ = _node_allocations(build)["theirs"]
        self.assertEqual(temp_bytes, int(np.prod(_SHAPE)) * 4)
        self.assertIn(int(np.prod(_SHAPE)) * 4, records)


if __name__ == "__main__":
    tf.test.main()
