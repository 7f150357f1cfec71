"""Run by tests/pip_install_test.py in a child process: `python pip_install_probe.py OUT_DIR`.

Calls MyBilinear (eager, gradient, jit_compile=True, the Keras layer, and
from JAX through the FFI library) on a fixed set of inputs, saves every result as OUT_DIR/<case>.npy, and prints one
JSON line of facts (where the package was imported from, errors against
TensorFlow's own ops). The test runs it once against the pip-installed library
and once against the Bazel-built one, then compares the .npy files byte for byte.
"""

import importlib
import json
import os
import pkgutil
import sys

import numpy as np
import tensorflow as tf

import tensorflow_ops
from tensorflow_ops.my_bilinear import MyBilinearLayer, my_bilinear

# (align_corners, half_pixel_centers): the three valid modes.
_MODES = [(False, False), (True, False), (False, True)]
_SIZES = [(13, 5), (4, 17)]
_DTYPES = [tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.uint8, tf.int32]


def _images(dtype: tf.DType) -> tf.Tensor:
    values = np.random.default_rng(7).random((2, 7, 9, 3)) * 200.0 - 50.0
    if dtype.is_integer:
        values = np.clip(values, 0, 255) if dtype == tf.uint8 else values
    return tf.cast(tf.constant(values), dtype)


def _save(out_dir: str, name: str, tensor: tf.Tensor) -> None:
    # bfloat16 has no NumPy type: compare its bits.
    if tensor.dtype == tf.bfloat16:
        tensor = tf.bitcast(tensor, tf.uint16)
    np.save(os.path.join(out_dir, name + ".npy"), tensor.numpy())


def _half_pixel(images: tf.Tensor) -> tf.Tensor:
    return my_bilinear(images, (13, 5), align_corners=False, half_pixel_centers=True)


def main(out_dir: str) -> None:
    facts = {"package_file": tensorflow_ops.__file__, "tensorflow": tf.__version__}
    packages = sorted(m.name for m in pkgutil.iter_modules(tensorflow_ops.__path__)
                      if m.ispkg)
    facts["packages"] = packages
    if "PROBE_ALL_PACKAGES" in os.environ:
        for name in packages:
            importlib.import_module("tensorflow_ops." + name)
        from tensorflow_ops import _build_info  # pylint: disable=g-import-not-at-top
        facts["built_against"] = _build_info.TENSORFLOW_VERSION

    forward_error = 0.0
    for dtype in _DTYPES:
        for size in _SIZES:
            for align, half in _MODES:
                name = f"forward_{dtype.name}_{size[0]}x{size[1]}_{int(align)}{int(half)}"
                resized = my_bilinear(_images(dtype), size, align_corners=align,
                                      half_pixel_centers=half)
                _save(out_dir, name, resized)
                if dtype == tf.float32:
                    expected = tf.compat.v1.image.resize_bilinear(
                        _images(dtype), size, align_corners=align, half_pixel_centers=half)
                    forward_error = max(forward_error,
                                        float(tf.reduce_max(tf.abs(resized - expected))))
    facts["forward_error"] = forward_error

    @tf.function(jit_compile=True)
    def jit_forward_and_gradient(images, weights):
        with tf.GradientTape() as tape:
            tape.watch(images)
            loss = tf.reduce_sum(weights * _half_pixel(images))
        return _half_pixel(images), \
            tape.gradient(loss, images)

    gradient_error = 0.0
    for dtype in (tf.float32, tf.float64):
        images = _images(dtype)
        weights = tf.cast(tf.reshape(tf.range(2 * 13 * 5 * 3) % 11, (2, 13, 5, 3)), dtype)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(images)
            loss = tf.reduce_sum(weights * _half_pixel(images))
            # ResizeBilinear computes in float32 (its gradient op too).
            expected_loss = tf.reduce_sum(tf.cast(weights, tf.float32) *
                                          tf.compat.v1.image.resize_bilinear(
                                              images, (13, 5), half_pixel_centers=True))
        gradient = tape.gradient(loss, images)
        if dtype == tf.float32:
            expected = tape.gradient(expected_loss, images)
            gradient_error = float(tf.reduce_max(tf.abs(gradient - expected)) /
                                   tf.reduce_max(tf.abs(expected)))
        _save(out_dir, f"gradient_{dtype.name}", gradient)
        jit_resized, jit_gradient = jit_forward_and_gradient(images, weights)
        _save(out_dir, f"jit_forward_{dtype.name}", jit_resized)
        _save(out_dir, f"jit_gradient_{dtype.name}", jit_gradient)
    facts["gradient_error"] = gradient_error
    # The jit kernels came from this library (XLA would refuse an op it has no
    # kernel for); their float32 results are TensorFlow's up to rounding.
    facts["jit_forward_error"] = float(tf.reduce_max(tf.abs(
        jit_forward_and_gradient(_images(tf.float32), tf.ones((2, 13, 5, 3)))[0] -
        _half_pixel(_images(tf.float32)))))

    layer = MyBilinearLayer((5, 6), align_corners=False, half_pixel_centers=True)
    _save(out_dir, "layer_float32", layer(_images(tf.float32)))
    facts["layer_config"] = layer.get_config()["target_size"]
    facts.update(_jax_facts(out_dir))
    print(json.dumps(facts))


def _jax_facts(out_dir: str) -> dict:
    """jax_ops through the FFI library found beside the package: its forward
    and gradient saved for the byte comparison, and whether the forward has
    the TensorFlow kernel's bits."""
    import jax  # pylint: disable=g-import-not-at-top
    from tensorflow_ops import library_loader  # pylint: disable=g-import-not-at-top
    from tensorflow_ops.my_bilinear import jax_ops  # pylint: disable=g-import-not-at-top

    images = _images(tf.float32).numpy()
    resized = np.asarray(jax_ops.my_bilinear(images, (13, 5), align_corners=False,
                                             half_pixel_centers=True))
    np.save(os.path.join(out_dir, "jax_forward_float32.npy"), resized)
    gradient = np.asarray(jax.grad(lambda x: (jax_ops.my_bilinear(
        x, (13, 5), align_corners=False, half_pixel_centers=True) ** 2).sum())(images))
    np.save(os.path.join(out_dir, "jax_gradient_float32.npy"), gradient)
    package_dir = os.path.dirname(os.path.abspath(jax_ops.__file__))
    return {
        "jax_ffi_library": library_loader.find_library("my_bilinear_jax_ffi.so",
                                                       package_dir, ""),
        "jax_forward_is_tf": (resized.tobytes() ==
                              _half_pixel(_images(tf.float32)).numpy().tobytes()),
    }


if __name__ == "__main__":
    main(sys.argv[1])
