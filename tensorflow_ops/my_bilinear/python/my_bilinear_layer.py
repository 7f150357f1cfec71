"""MyBilinearLayer: the MyBilinear resize as a Keras 3 layer.

It is registered with Keras, so a model saved with `model.save("m.keras")` loads
with `keras.models.load_model("m.keras")` once `tensorflow_ops.my_bilinear` is
imported, without `custom_objects`.
"""

from typing import Any, Dict, Sequence, Tuple

import keras
import tensorflow as tf

from tensorflow_ops.my_bilinear.python.my_bilinear_ops import SUPPORTS_JIT_COMPILE
from tensorflow_ops.my_bilinear.python.my_bilinear_ops import my_bilinear

def my_bilinear_supports_jit() -> bool:
    """Whether XLA can compile MyBilinear: the layer's `supports_jit`.

    Keras's default `compile(jit_compile="auto")` turns XLA on when TensorFlow
    sees a GPU and every layer reports `supports_jit`, and an op without an XLA
    kernel then fails inside `fit`. The answer is the op package's own
    `SUPPORTS_JIT_COMPILE`, which my_bilinear_xla_test and this layer's test
    check against an actual jit compilation.
    """
    return SUPPORTS_JIT_COMPILE


def _checked_target_size(target_size: Sequence[int]) -> Tuple[int, int]:
    """Returns `target_size` as (height, width) of positive Python ints."""
    try:
        height, width = target_size
    except (TypeError, ValueError):
        raise ValueError(
            f"target_size must be (height, width), got {target_size!r}") from None
    size = []
    for value in (height, width):
        # bool is an int subclass, but True is no size.
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise ValueError(
                f"target_size must hold two integers, got {target_size!r}")
        if int(value) <= 0:
            raise ValueError(f"target_size must be positive, got {target_size!r}")
        size.append(int(value))
    return size[0], size[1]


def _check_rank(input_shape: Sequence[Any]) -> None:
    if len(input_shape) != 4:
        raise ValueError(
            "MyBilinearLayer needs [batch, height, width, channels] inputs, got "
            f"shape {tuple(input_shape)}")


@keras.saving.register_keras_serializable(package="tensorflow_ops")
class MyBilinearLayer(keras.layers.Layer):
    """Resizes [batch, height, width, channels] images to `target_size` with the
    MyBilinear op; the output has `target_size` as height and width.

    The input is cast to the layer's compute dtype first (float16 under the
    "mixed_float16" policy), so the resize runs in that dtype.

    Args:
      target_size: (height, width) of the output, positive integers.
      align_corners: if True, the corner pixels of input and output are aligned.
      half_pixel_centers: if True, pixel centres are at +0.5 (as in
        `tf.image.resize`); needs align_corners=False.
      **kwargs: standard layer arguments (name, dtype, trainable, ...).

    Raises:
      RuntimeError: the Keras backend is not TensorFlow.
      ValueError: `target_size` is not two positive integers, or both
        `align_corners` and `half_pixel_centers` are set.
    """

    def __init__(self,
                 target_size: Sequence[int],
                 align_corners: bool = True,
                 half_pixel_centers: bool = False,
                 **kwargs: Any) -> None:
        if keras.backend.backend() != "tensorflow":
            raise RuntimeError(
                "MyBilinearLayer runs a TensorFlow custom op and needs the "
                f"TensorFlow Keras backend, but the backend is "
                f"'{keras.backend.backend()}'. Set KERAS_BACKEND=tensorflow before "
                "importing keras.")
        super().__init__(**kwargs)
        self.target_size = _checked_target_size(target_size)
        if align_corners and half_pixel_centers:
            raise ValueError(
                "half_pixel_centers=True needs align_corners=False, got both True")
        self.align_corners = bool(align_corners)
        self.half_pixel_centers = bool(half_pixel_centers)
        self.supports_jit = my_bilinear_supports_jit()
        self.input_spec = keras.layers.InputSpec(ndim=4)

    def build(self, input_shape: Sequence[Any]) -> None:
        _check_rank(input_shape)
        super().build(input_shape)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        images = tf.cast(inputs, self.compute_dtype)
        return my_bilinear(images, self.target_size,
                           align_corners=self.align_corners,
                           half_pixel_centers=self.half_pixel_centers)

    def compute_output_shape(self, input_shape: Sequence[Any]) -> Tuple[Any, ...]:
        _check_rank(input_shape)
        return (input_shape[0], *self.target_size, input_shape[3])

    def get_config(self) -> Dict[str, Any]:
        config = super().get_config()
        config.update(target_size=list(self.target_size),
                      align_corners=self.align_corners,
                      half_pixel_centers=self.half_pixel_centers)
        return config
