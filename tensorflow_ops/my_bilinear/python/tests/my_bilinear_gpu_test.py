"""The GPU kernels against the CPU kernels, on a machine with a GPU.

Every comparison needs a GPU that TensorFlow sees. Without one the comparisons
are skipped, saying why, unless the machine has an NVIDIA GPU (a /dev/nvidia0,
or `nvidia-smi -L` lists one) or MY_BILINEAR_REQUIRE_GPU=1 is set: then
test_gpu_is_visible fails, so that a GPU machine with a CPU-only TensorFlow
cannot pass by skipping. The GPU kernels' indexing and arithmetic are checked
without a GPU by bilinear_gpu_grid_test (the same per-element functions on the
host) and their registration by my_bilinear_gpu_registry_test.

The GPU kernels evaluate the CPU kernels' formulas in the same order, with no
fused multiply-adds (nvcc -fmad=false) and float denormals flushed as
TensorFlow's CPU kernels flush them (-ftz=true), so results are compared bit
for bit, NaNs as NaNs (their bits differ between x86 and the GPU). double keeps
its denormals on the GPU, which TensorFlow flushes on the CPU: double results
with denormals in play differ by less than the smallest normal per term.

Eager TensorFlow can run an op whose inputs are all small host-resident
integers on the CPU even inside tf.device("/GPU:0") (MaybePinSmallOpsToCpu,
behind TF_EAGER_ENABLE_SMALL_TENSOR_CPU_PINNING); the module turns that
pinning off, copies every input to the device it runs on, and asserts the
device of every result, so no comparison can be of the CPU with itself.
"""

import os

os.environ["TF_EAGER_ENABLE_SMALL_TENSOR_CPU_PINNING"] = "0"

import shutil  # pylint: disable=g-import-not-at-top,wrong-import-position
import subprocess
from typing import Sequence, Tuple

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python.tests import test_cases


def _machine_has_gpu() -> bool:
    """Whether the machine has an NVIDIA GPU, whatever TensorFlow sees."""
    if os.path.exists("/dev/nvidia0"):
        return True
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        listed = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60,
                                check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "GPU " in listed


_TF_SEES_GPU = bool(tf.config.list_physical_devices("GPU"))
_NO_GPU = ("no GPU visible to TensorFlow (tf.config.list_physical_devices('GPU') "
           "is empty): the GPU kernels are checked on the host by "
           "bilinear_gpu_grid_test and in the registry by "
           "my_bilinear_gpu_registry_test instead")

# Every (images dtype, out_type) pair with a GPU kernel.
_FORWARD_TYPES = ([(t, t) for t in (np.float16, test_cases.BFLOAT16, np.float64)] +
                  [(t, np.float32) for t in (np.float16, test_cases.BFLOAT16, np.float32,
                                             np.float64, np.int8, np.uint8, np.int16,
                                             np.uint16, np.int32, np.int64)])
_GRADIENT_TYPES = [np.float16, test_cases.BFLOAT16, np.float32, np.float64]
_ATTRS = dict(align_corners=False, half_pixel_centers=True)


def _on(device: str, value) -> tf.Tensor:
    """`value` as a tensor in `device`'s memory."""
    with tf.device(device):
        return tf.identity(tf.constant(value))


def _check_device(result: tf.Tensor, device: str) -> np.ndarray:
    if not result.device.endswith(device.lstrip("/")):
        raise AssertionError(f"ran on {result.device}, not {device}")
    return result.numpy()


def _resize_on(device: str, images: np.ndarray, size, out_type, attrs) -> np.ndarray:
    images = _on(device, images)
    with tf.device(device):
        return _check_device(ops.my_bilinear(images=images, size=size, out_type=out_type,
                                             **attrs), device)


def _grad_on(device: str, grads: np.ndarray, original_shape, dtype, attrs) -> np.ndarray:
    grads = _on(device, grads)
    original = _on(device, np.zeros(original_shape, dtype))
    with tf.device(device):
        return _check_device(ops.my_bilinear_grad(grads=grads, original_image=original,
                                                  **attrs), device)


def _assert_same_bits(test: tf.test.TestCase, got: np.ndarray, want: np.ndarray):
    """Bitwise equal, except that any NaN equals any NaN."""
    test.assertEqual(got.dtype, want.dtype)
    test.assertEqual(got.shape, want.shape)
    if got.dtype.kind == "f" or got.dtype == test_cases.BFLOAT16:
        got_nan = np.isnan(got.astype(np.float64))
        want_nan = np.isnan(want.astype(np.float64))
        np.testing.assert_array_equal(got_nan, want_nan, "NaNs in different places")
        got, want = got[~got_nan], want[~want_nan]
    if got.tobytes() != want.tobytes():
        per_element = lambda a: np.ascontiguousarray(a).view(np.uint8).reshape(a.size, -1)
        differ = np.flatnonzero((per_element(got) != per_element(want)).any(axis=1))
        test.fail(f"{differ.size} of {got.size} elements differ in bits, the first at "
                  f"flat index {differ[0]} (of the non-NaN elements)")


def _images(shape: Sequence[int], dtype, seed: int = 0) -> np.ndarray:
    """Values in [-100, 100) (the integers' whole range for 8-bit types)."""
    values = test_cases.random_images(shape, np.float64, seed) * 200 - 100
    if np.dtype(dtype) in (np.dtype(np.int8), np.dtype(np.uint8)):
        values = test_cases.random_images(shape, np.float64, seed) * 255 - (
            128 if np.dtype(dtype) == np.int8 else 0)
    if np.dtype(dtype).kind == "u":
        values = np.abs(values)
    return values.astype(dtype)


def _special_values(shape: Sequence[int], dtype, seed: int = 3) -> np.ndarray:
    """Images with NaN, +inf and -inf among ordinary values."""
    values = _images(shape, np.float64, seed).ravel()
    values[::7] = np.nan
    values[3::11] = np.inf
    values[5::13] = -np.inf
    return values.reshape(shape).astype(dtype)


def _denormal_values(shape: Sequence[int], dtype, seed: int = 4) -> np.ndarray:
    """Images where a third of the values are denormal and a third just above
    the smallest normal, whose blends round into denormals."""
    tiny = float(np.finfo(dtype).tiny)
    values = _images(shape, np.float64, seed).ravel()
    values[1::3] *= tiny / 1024
    values[2::3] *= tiny / 64
    return values.reshape(shape).astype(dtype)


@parameterized.named_parameters(test_cases.ATTR_PARAMS)
class MyBilinearGpuTest(test_util.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        if not _TF_SEES_GPU:
            self.skipTest(_NO_GPU)
        # A missing GPU kernel must fail, not quietly run on the CPU.
        tf.config.set_soft_device_placement(False)

    def _forward(self, images: np.ndarray, size: Tuple[int, int], out_type, attrs):
        _assert_same_bits(self, _resize_on("/GPU:0", images, size, out_type, attrs),
                          _resize_on("/CPU:0", images, size, out_type, attrs))

    def _gradient(self, grads: np.ndarray, shape, attrs):
        _assert_same_bits(self, _grad_on("/GPU:0", grads, shape, grads.dtype, attrs),
                          _grad_on("/CPU:0", grads, shape, grads.dtype, attrs))

    def test_forward_equals_cpu(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for shape, size in test_cases.ALL_CASES:
            for images_dtype, out_type in _FORWARD_TYPES:
                with self.subTest(shape=shape, size=size, dtype=images_dtype,
                                  out_type=out_type):
                    self._forward(_images(shape, images_dtype), size, out_type, attrs)

    def test_gradient_equals_cpu(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for shape, size in test_cases.ALL_CASES:
            grads_shape = (shape[0], size[0], size[1], shape[3])
            for dtype in _GRADIENT_TYPES:
                with self.subTest(shape=shape, size=size, dtype=dtype):
                    self._gradient(_images(grads_shape, dtype, seed=1), shape, attrs)

    def test_non_finite_values(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for dtype in _GRADIENT_TYPES:
            with self.subTest(dtype=dtype):
                self._forward(_special_values((2, 9, 11, 3), dtype), (17, 5), dtype, attrs)
                self._gradient(_special_values((2, 17, 5, 3), dtype), (2, 9, 11, 3), attrs)

    def test_float_denormals_flush_as_on_the_cpu(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        for dtype in (np.float32, np.float16):
            with self.subTest(dtype=dtype):
                self._forward(_denormal_values((2, 9, 11, 3), dtype), (17, 5), dtype, attrs)
                self._gradient(_denormal_values((2, 17, 5, 3), dtype), (2, 9, 11, 3),
                               attrs)

    def test_double_denormals_are_kept(self, align_corners, half_pixel_centers):
        attrs = dict(align_corners=align_corners, half_pixel_centers=half_pixel_centers)
        # Each output sums at most a few hundred terms here, each off by less
        # than the smallest normal double where the CPU flushed it.
        bound = 1024 * float(np.finfo(np.float64).tiny)
        images = _denormal_values((2, 9, 11, 3), np.float64)
        np.testing.assert_allclose(
            _resize_on("/GPU:0", images, (17, 5), np.float64, attrs),
            _resize_on("/CPU:0", images, (17, 5), np.float64, attrs), rtol=0, atol=bound)
        grads = _denormal_values((2, 17, 5, 3), np.float64)
        np.testing.assert_allclose(
            _grad_on("/GPU:0", grads, (2, 9, 11, 3), np.float64, attrs),
            _grad_on("/CPU:0", grads, (2, 9, 11, 3), np.float64, attrs), rtol=0, atol=bound)


class MyBilinearGpuLargeTest(test_util.TestCase):
    """Launches of many waves, the grid-stride loop, and gradients where few
    input pixels gather from many output pixels."""

    def setUp(self):
        super().setUp()
        if not _TF_SEES_GPU:
            self.skipTest(_NO_GPU)
        tf.config.set_soft_device_placement(False)

    def test_many_waves(self):
        images = _images((4, 256, 384, 3), np.float32)
        _assert_same_bits(self, _resize_on("/GPU:0", images, (1024, 1024), tf.float32,
                                           _ATTRS),
                          _resize_on("/CPU:0", images, (1024, 1024), tf.float32, _ATTRS))

    def test_grid_stride_loop(self):
        # More than kMaxBlocks * kThreadsPerBlock = 2^28 output elements, so
        # every thread computes two or more.
        images = _images((1, 2, 3, 1), np.uint8)
        _assert_same_bits(self, _resize_on("/GPU:0", images, (16400, 16400), tf.float32,
                                           _ATTRS),
                          _resize_on("/CPU:0", images, (16400, 16400), tf.float32, _ATTRS))

    def test_gradient_of_tiny_inputs(self):
        for shape, size in (((1, 1, 1, 3), (4096, 4096)), ((2, 1, 1, 1), (64, 64)),
                            ((1, 2, 3, 2), (1500, 2000))):
            grads = _images((shape[0], size[0], size[1], shape[3]), np.float32, seed=5)
            with self.subTest(shape=shape, size=size):
                _assert_same_bits(self, _grad_on("/GPU:0", grads, shape, np.float32, _ATTRS),
                                  _grad_on("/CPU:0", grads, shape, np.float32, _ATTRS))

    def test_gradient_of_large_downsampling(self):
        grads = _images((2, 17, 31, 3), np.float32, seed=6)
        _assert_same_bits(self, _grad_on("/GPU:0", grads, (2, 2048, 1024, 3), np.float32,
                                         _ATTRS),
                          _grad_on("/CPU:0", grads, (2, 2048, 1024, 3), np.float32, _ATTRS))

    def test_gradient_is_deterministic(self):
        # Many output pixels per input pixel: where a scatter with atomics
        # would add in a different order from run to run.
        grads = _images((2, 301, 257, 5), np.float32, seed=2)
        first = _grad_on("/GPU:0", grads, (2, 17, 13, 5), np.float32, _ATTRS)
        for _ in range(3):
            _assert_same_bits(self, _grad_on("/GPU:0", grads, (2, 17, 13, 5), np.float32,
                                             _ATTRS), first)

    def test_bad_input_is_invalid_argument(self):
        images = _on("/GPU:0", np.zeros((1, 5, 7, 3), np.float32))
        with tf.device("/GPU:0"):
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        r"size must be positive, got \[4, -3\]"):
                ops.my_bilinear(images=images, size=[4, -3])
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        r"agree on batch and channels"):
                ops.my_bilinear_grad(grads=_on("/GPU:0", np.zeros((2, 4, 4, 3), np.float32)),
                                     original_image=_on("/GPU:0",
                                                        np.zeros((3, 5, 7, 3), np.float32)))

    def test_empty_batch(self):
        images = _on("/GPU:0", np.zeros((0, 4, 4, 3), np.float32))
        with tf.device("/GPU:0"):
            result = ops.my_bilinear(images=images, size=[8, 8])
        self.assertEqual(result.shape, (0, 8, 8, 3))
        self.assertIn("GPU", result.device)


class GpuVisibilityTest(test_util.TestCase):

    def test_gpu_is_visible(self):
        required = os.environ.get("MY_BILINEAR_REQUIRE_GPU") == "1"
        if not (required or _machine_has_gpu()):
            self.skipTest(_NO_GPU)
        self.assertTrue(
            _TF_SEES_GPU,
            "this machine has an NVIDIA GPU (or MY_BILINEAR_REQUIRE_GPU=1) but "
            "TensorFlow sees none, so every GPU comparison would be skipped: install "
            "TensorFlow's GPU build (pip install tensorflow[and-cuda]), build with "
            "--config=cuda, and check the driver (docs/building.md#cuda)")


if __name__ == "__main__":
    tf.test.main()
