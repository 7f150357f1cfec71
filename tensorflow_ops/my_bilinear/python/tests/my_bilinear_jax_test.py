"""jax_ops against the TensorFlow kernels in one process: the same bits forward
and backward (every dtype, attr mode and size kind), under jax.jit and
jax.vmap too; gradients checked numerically; and every bad input refused
with the kernels' own message, never a crash."""

import os
import re
import subprocess
import sys

from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax import test_util as jtu
import numpy as np
import tensorflow as tf

jax.config.update("jax_enable_x64", True)

# pylint: disable=g-import-not-at-top,wrong-import-position
from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import jax_ops
from tensorflow_ops.my_bilinear import my_bilinear as tf_my_bilinear
from tensorflow_ops.my_bilinear import ops
from tensorflow_ops.my_bilinear.python import jax_ops as jax_ops_impl
from tensorflow_ops.my_bilinear.python.tests import test_cases

FLOAT_DTYPES = [np.float16, test_cases.BFLOAT16, np.float32, np.float64]
INTEGER_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64]
# Up, down, mixed and equal sizes; 1x1 in and out; an empty batch.
SIZES = [((2, 5, 7, 3), (9, 4)), ((1, 8, 9, 1), (3, 2)), ((2, 3, 4, 4), (12, 17)),
         ((1, 6, 5, 3), (6, 5)), ((1, 1, 1, 2), (3, 3)), ((2, 4, 3, 2), (1, 1)),
         ((0, 4, 5, 3), (7, 2))]


def _images(shape, dtype, seed=0) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        low, high = max(int(info.min), -2**40), min(int(info.max), 2**40)
        return np.random.default_rng(seed).integers(low, high, shape, endpoint=True,
                                                    dtype=dtype)
    return test_cases.random_images(shape, dtype, seed=seed)


def _bits(value) -> bytes:
    array = value.numpy() if isinstance(value, tf.Tensor) else np.asarray(value)
    return array.dtype.str.encode() + str(array.shape).encode() + array.tobytes()


def _raw_resize(images, out_shape, out_dtype, align_corners=True,
                half_pixel_centers=False):
    """The handler called directly, past jax_ops's checks."""
    call = jax.ffi.ffi_call(jax_ops_impl.RESIZE_TARGET,
                            jax.ShapeDtypeStruct(out_shape, out_dtype))
    return call(images, align_corners=np.bool_(align_corners),
                half_pixel_centers=np.bool_(half_pixel_centers))


def _raw_resize_grad(grads, in_shape, align_corners=True, half_pixel_centers=False):
    """The gradient's handler called directly, past jax_ops's checks."""
    call = jax.ffi.ffi_call(jax_ops_impl.RESIZE_GRAD_TARGET,
                            jax.ShapeDtypeStruct(in_shape, grads.dtype))
    return call(grads, align_corners=np.bool_(align_corners),
                half_pixel_centers=np.bool_(half_pixel_centers))


class ForwardBitsTest(test_util.TestCase, parameterized.TestCase):
    """jax_ops.my_bilinear gives the TensorFlow kernel's bits."""

    @parameterized.product(dtype=FLOAT_DTYPES + INTEGER_DTYPES, attrs=test_cases.ATTRS)
    def test_forward_equals_tensorflow_kernel(self, dtype, attrs):
        align, half = attrs
        for shape, size in SIZES:
            images = _images(shape, dtype, seed=sum(shape))
            expected = tf_my_bilinear(images, size, align_corners=align,
                                      half_pixel_centers=half)
            got = jax_ops.my_bilinear(images, size, align_corners=align,
                                      half_pixel_centers=half)
            self.assertEqual(_bits(got), _bits(expected), (dtype, shape, size, attrs))

    def test_every_dtype_pair_of_the_handler(self):
        """The handler takes every (images, out_type) pair the CPU kernel takes,
        which jax_ops itself uses only in part (floating images keep theirs)."""
        for dtype in FLOAT_DTYPES + INTEGER_DTYPES:
            images = _images((2, 3, 5, 3), dtype, seed=3)
            for out_dtype in FLOAT_DTYPES:
                expected = ops.my_bilinear(images=images, size=[7, 4],
                                           out_type=tf.as_dtype(out_dtype),
                                           align_corners=False, half_pixel_centers=True)
                got = _raw_resize(images, (2, 7, 4, 3), out_dtype, False, True)
                self.assertEqual(_bits(got), _bits(expected), (dtype, out_dtype))

    def test_threaded_sizes_give_the_same_bits(self):
        """Large enough to be split over XLA's pool (past 2^18 values)."""
        images = _images((2, 64, 96, 8), np.float32, seed=5)
        for size in ((160, 200), (31, 45)):
            expected = tf_my_bilinear(images, size, align_corners=False,
                                      half_pixel_centers=True)
            got = jax_ops.my_bilinear(images, size, align_corners=False,
                                      half_pixel_centers=True)
            self.assertEqual(_bits(got), _bits(expected), size)


class GradientBitsTest(test_util.TestCase, parameterized.TestCase):
    """The gradient is MyBilinearGrad's bits, and both orders check out."""

    @parameterized.product(dtype=FLOAT_DTYPES, attrs=test_cases.ATTRS)
    def test_gradient_equals_my_bilinear_grad(self, dtype, attrs):
        align, half = attrs
        for shape, size in SIZES:
            images = _images(shape, dtype, seed=1)
            grads = _images((shape[0], *size, shape[3]), dtype, seed=2)
            expected = ops.my_bilinear_grad(grads=grads, original_image=images,
                                            align_corners=align, half_pixel_centers=half)
            direct = jax_ops.my_bilinear_grad(grads, images, align_corners=align,
                                              half_pixel_centers=half)
            _, vjp = jax.vjp(lambda x, a=align, h=half, s=size: jax_ops.my_bilinear(
                x, s, align_corners=a, half_pixel_centers=h), jnp.asarray(images))
            self.assertEqual(_bits(direct), _bits(expected), (dtype, shape, attrs))
            self.assertEqual(_bits(vjp(jnp.asarray(grads))[0]), _bits(expected))

    def test_threaded_gradient_gives_the_same_bits(self):
        images = _images((2, 96, 80, 8), np.float32, seed=6)
        grads = _images((2, 200, 150, 8), np.float32, seed=7)
        expected = ops.my_bilinear_grad(grads=grads, original_image=images,
                                        align_corners=False, half_pixel_centers=True)
        for _ in range(3):
            got = jax_ops.my_bilinear_grad(grads, images, align_corners=False,
                                           half_pixel_centers=True)
            self.assertEqual(_bits(got), _bits(expected))

    def test_second_order_is_the_forward(self):
        """d/dg <MyBilinearGrad(g), v> = MyBilinear(v): TensorFlow's registered
        gradient of the gradient, the same bits."""
        grads = _images((2, 7, 6, 3), np.float32, seed=8)
        images = np.zeros((2, 4, 5, 3), np.float32)
        cotangent = _images((2, 4, 5, 3), np.float32, seed=9)
        _, vjp = jax.vjp(lambda g: jax_ops.my_bilinear_grad(g, images), jnp.asarray(grads))
        expected = ops.my_bilinear(images=cotangent, size=[7, 6], out_type=tf.float32)
        self.assertEqual(_bits(vjp(jnp.asarray(cotangent))[0]), _bits(expected))

    @parameterized.parameters(*test_cases.ATTRS)
    def test_check_grads_orders_1_and_2(self, align, half):
        images = _images((2, 4, 5, 2), np.float64, seed=10)
        resize = lambda x: jax_ops.my_bilinear(x, (7, 3), align, half)  # noqa: E731
        jtu.check_grads(resize, (images,), order=2, modes=["rev"])
        grads = _images((2, 7, 3, 2), np.float64, seed=11)
        resize_grad = lambda g: jax_ops.my_bilinear_grad(g, images, align, half)  # noqa: E731
        jtu.check_grads(resize_grad, (grads,), order=2, modes=["rev"])

    def test_jacrev_and_integer_images(self):
        images = _images((1, 3, 2, 1), np.float64, seed=12)
        jacobian = jax.jacrev(lambda x: jax_ops.my_bilinear(x, (4, 3)))(images)
        self.assertEqual(jacobian.shape, (1, 4, 3, 1, 1, 3, 2, 1))
        # Integer images resize but carry no gradient, as in TensorFlow.
        self.assertEqual(jax_ops.my_bilinear(np.ones((1, 2, 2, 1), np.uint8),
                                             (3, 3)).dtype, np.float32)


class TransformBitsTest(test_util.TestCase):
    """jax.jit and jax.vmap change nothing in the bits."""

    def setUp(self):
        super().setUp()
        self.images = _images((2, 5, 7, 3), np.float32, seed=13)
        self.stack = np.stack([_images((2, 5, 7, 3), np.float32, seed=s)
                               for s in range(3)])
        self.resize = lambda x: jax_ops.my_bilinear(x, (9, 4), False, True)  # noqa: E731

    def test_jit(self):
        expected = tf_my_bilinear(self.images, (9, 4), align_corners=False,
                                  half_pixel_centers=True)
        self.assertEqual(_bits(jax.jit(self.resize)(self.images)), _bits(expected))
        grad = jax.jit(jax.grad(lambda x: jnp.sum(self.resize(x) ** 2)))
        self.assertEqual(_bits(grad(self.images)),
                         _bits(jax.grad(lambda x: jnp.sum(self.resize(x) ** 2))(self.images)))

    def test_vmap_over_a_leading_axis_and_nested(self):
        each = [np.asarray(self.resize(image)) for image in self.stack]
        self.assertEqual(_bits(jax.vmap(self.resize)(self.stack)), _bits(np.stack(each)))
        moved = np.moveaxis(self.stack, 0, 2)  # the vmapped axis inside
        self.assertEqual(_bits(jax.vmap(self.resize, in_axes=2)(moved)),
                         _bits(np.stack(each)))
        # Both vmapped axes longer than 1, so that each must be folded in.
        nested = jax.jit(jax.vmap(jax.vmap(self.resize)))(
            np.stack([self.stack, self.stack[::-1]]))
        self.assertEqual(_bits(nested), _bits(np.stack([each, each[::-1]])))

    def test_vmap_of_the_gradient(self):
        loss = lambda x: jnp.sum(self.resize(x) ** 3)  # noqa: E731
        each = np.stack([np.asarray(jax.grad(loss)(image)) for image in self.stack])
        self.assertEqual(_bits(jax.vmap(jax.grad(loss))(self.stack)), _bits(each))
        hessian_vector = jax.vmap(lambda x: jax.grad(lambda y: jnp.sum(
            jax.grad(loss)(y)))(x))(self.stack)
        self.assertEqual(hessian_vector.shape, self.stack.shape)


class ErrorsTest(test_util.TestCase):
    """Bad inputs: trace-time errors with the kernels' messages; a handler
    called past jax_ops returns an FFI error, never crashes."""

    def _tf_message(self, function) -> str:
        """The kernel's own message, without eager TensorFlow's decoration
        ("{{function_node ...}} " before, " [Op:MyBilinear]" after)."""
        with self.assertRaises(tf.errors.InvalidArgumentError) as caught:
            function()
        return re.sub(r"^\{\{[^}]*\}\} | \[Op:\w+\]$", "", caught.exception.message)

    def test_shape_errors_word_what_tensorflow_says(self):
        cases = [np.zeros((2, 3, 3), np.float32), np.zeros((1, 0, 3, 1), np.float32),
                 np.zeros((1, 2, 3, 0), np.float32)]
        for images in cases:
            expected = self._tf_message(lambda x=images: ops.my_bilinear(
                images=x, size=[2, 2]))
            with self.assertRaises(ValueError) as caught:
                jax_ops.my_bilinear(images, (2, 2))
            self.assertEqual(str(caught.exception), expected)
            # The handler's own check, where the result is not empty (XLA
            # runs no handler for an empty one).
            out_shape = (*images.shape[:-3], 2, 2, images.shape[-1])
            if np.prod(out_shape) > 0:
                with self.assertRaises(jax.errors.JaxRuntimeError) as caught:
                    jax.block_until_ready(_raw_resize(images, out_shape, jnp.float32))
                self.assertEqual(str(caught.exception), "INVALID_ARGUMENT: " + expected)

    def test_size_and_flag_errors(self):
        images = np.zeros((1, 2, 2, 1), np.float32)
        expected = self._tf_message(lambda: ops.my_bilinear(images=images, size=[0, 3]))
        with self.assertRaises(ValueError) as caught:
            jax_ops.my_bilinear(images, (0, 3))
        self.assertEqual(str(caught.exception), expected)
        with self.assertRaisesRegex(ValueError, "size must fit int32"):
            jax_ops.my_bilinear(images, (2**31, 3))
        with self.assertRaisesRegex(TypeError, "size must be two integers"):
            jax_ops.my_bilinear(images, (2.0, 3))
        with self.assertRaisesRegex(TypeError, "size must be static"):
            jax.jit(lambda s: jax_ops.my_bilinear(images, s))(jnp.array([2, 3]))
        with self.assertRaisesRegex(ValueError, "half_pixel_centers=true requires "
                                    "align_corners=false, got align_corners=true"):
            jax_ops.my_bilinear(images, (2, 3), True, True)
        with self.assertRaisesRegex(TypeError, "align_corners must be a Python or NumPy "
                                    "bool, got 1"):
            jax_ops.my_bilinear(images, (2, 3), 1)
        with self.assertRaisesRegex(TypeError, "got complex64"):
            jax_ops.my_bilinear(images.astype(np.complex64), (2, 3))
        # An empty batch of the largest sizes is an empty result, not an
        # overflow (XLA aborts on a result shape whose size overflows).
        empty = jax_ops.my_bilinear(np.zeros((0, 2, 2, 3), np.float32), (2**31 - 1,) * 2)
        self.assertEqual(empty.shape, (0, 2**31 - 1, 2**31 - 1, 3))
        big = jax.ShapeDtypeStruct((2**20, 1, 1, 2**20), jnp.float32)
        with self.assertRaisesRegex(ValueError, "overflows 64-bit sizes"):
            jax.eval_shape(lambda x: jax_ops.my_bilinear(x, (2**20, 2**20)), big)
        # Each image's result fits, the vmapped axis multiplies it past int64;
        # XLA would abort compiling it.
        per_image = jax.ShapeDtypeStruct((4, 1, 2, 2, 1), jnp.float32)
        with self.assertRaisesRegex(ValueError, "overflows 64-bit sizes"):
            jax.eval_shape(jax.vmap(lambda x: jax_ops.my_bilinear(x, (2**30, 2**30))),
                           per_image)

    def test_gradient_errors(self):
        grads = np.zeros((2, 4, 4, 3), np.float32)
        other = np.zeros((1, 2, 2, 3), np.float32)
        expected = self._tf_message(lambda: ops.my_bilinear_grad(
            grads=grads, original_image=other))
        with self.assertRaises(ValueError) as caught:
            jax_ops.my_bilinear_grad(grads, other)
        self.assertEqual(str(caught.exception), expected)
        with self.assertRaisesRegex(TypeError, "one dtype, got float32 and float64"):
            jax_ops.my_bilinear_grad(grads, other.astype(np.float64))
        with self.assertRaisesRegex(TypeError, "grads must be float16, bfloat16"):
            jax_ops.my_bilinear_grad(grads.astype(np.int32), other)

    def test_handler_errors_come_back_as_ffi_errors(self):
        # (An empty result is no call: XLA runs no handler for it, so a size
        # of 0 is refused at trace time only.)
        images = jnp.zeros((1, 2, 2, 1), jnp.float32)
        bad_calls = {
            "half_pixel_centers=true requires align_corners=false":
                lambda: _raw_resize(images, (1, 3, 3, 1), jnp.float32, True, True),
            r"images must be 4-D \[batch, height, width, channels\], got shape \[2,2\]":
                lambda: _raw_resize(jnp.zeros((2, 2)), (2, 3), jnp.float32),
            "does not match images shape":
                lambda: _raw_resize(images, (1, 3, 3, 2), jnp.float32),
            "MyBilinear takes int8":
                lambda: _raw_resize(images.astype(jnp.complex64), (1, 3, 3, 1),
                                    jnp.float32),
            "into float16, bfloat16, float32 or float64 output":
                lambda: _raw_resize(images, (1, 3, 3, 1), jnp.int32),
            "MyBilinearGrad takes float16, bfloat16, float32 or float64 grads":
                lambda: _raw_resize_grad(jnp.zeros((1, 3, 3, 1), jnp.int32),
                                         (1, 2, 2, 1)),
        }
        for message, call in bad_calls.items():
            with self.assertRaisesRegex(jax.errors.JaxRuntimeError, message):
                jax.block_until_ready(call())


class ImportTest(test_util.TestCase):
    """jax_ops imports without TensorFlow, and a missing library says how to
    build it."""

    def _run(self, code: str, **env) -> subprocess.CompletedProcess:
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **env)
        return subprocess.run([sys.executable, "-c", code], env=environment,
                              capture_output=True, text=True, check=False)

    def test_import_loads_no_tensorflow(self):
        result = self._run(
            "import sys\n"
            "import tensorflow_ops.my_bilinear.jax_ops as jax_ops\n"
            "print(jax_ops.my_bilinear([[[[1.0]]]], (2, 2)).shape)\n"
            "assert 'tensorflow' not in sys.modules, 'TensorFlow was imported'\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(1, 2, 2, 1)", result.stdout)

    def test_missing_library_is_an_import_error_with_the_build_command(self):
        result = self._run("import tensorflow_ops.my_bilinear.jax_ops",
                           TENSORFLOW_OPS_LIBRARY_DIR=self.get_temp_dir())
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("ImportError: my_bilinear_jax_ffi.so was not found", result.stderr)
        self.assertIn("python3 configure.py && bazel build "
                      "//tensorflow_ops/my_bilinear:my_bilinear_jax_ffi.so", result.stderr)


if __name__ == "__main__":
    tf.test.main()
