"""A model with MyBilinearLayer trains with model.fit like the same model with
TensorFlow's own bilinear resize, on one CPU and under MirroredStrategy over two
logical CPUs."""

from typing import List

import keras
import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import MyBilinearLayer

_EPOCHS = 6
_BATCH = 8
# Float32 training of the two models differs only in the summation order of the
# resize gradients; the losses agree far below this.
_RTOL = 1e-5


class TensorFlowResize(keras.layers.Layer):
    """The reference: tf.image.resize's bilinear mode, which aligns half-pixel
    centres (align_corners=False, half_pixel_centers=True)."""

    def __init__(self, target_size, **kwargs):
        super().__init__(**kwargs)
        self.target_size = tuple(target_size)

    def call(self, inputs):
        return tf.image.resize(inputs, self.target_size, method="bilinear")


def _model(resize_layer: keras.layers.Layer) -> keras.Model:
    """Convolutions on both sides of the resize, so the first one learns only
    through the resize's gradient."""
    keras.utils.set_random_seed(11)
    inputs = keras.Input(shape=(6, 5, 2))
    features = keras.layers.Conv2D(3, 3, padding="same", name="before")(inputs)
    resized = resize_layer(features)
    outputs = keras.layers.Conv2D(1, 3, padding="same", name="after")(resized)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse",
                  jit_compile=False)
    return model


def _my_bilinear_model() -> keras.Model:
    return _model(MyBilinearLayer((9, 8), align_corners=False, half_pixel_centers=True))


def _data():
    rng = np.random.default_rng(5)
    images = rng.random((32, 6, 5, 2)).astype(np.float32)
    # A target that the model can approach: a smooth function of the input.
    targets = tf.image.resize(images.sum(axis=-1, keepdims=True), (9, 8)).numpy()
    return images, targets


def _fit(model: keras.Model) -> List[float]:
    images, targets = _data()
    history = model.fit(images, targets, batch_size=_BATCH, epochs=_EPOCHS,
                        shuffle=False, verbose=0)
    return history.history["loss"]


class TrainingTest(test_util.TestCase):

    def test_loss_falls_and_matches_tensorflow_resize(self):
        model = _my_bilinear_model()
        reference = _model(TensorFlowResize((9, 8)))
        reference.set_weights(model.get_weights())
        losses = _fit(model)
        self.assertLess(losses[-1], 0.5 * losses[0])
        self.assertAllClose(losses, _fit(reference), rtol=_RTOL, atol=0)
        self.assertAllClose(model.get_weights(), reference.get_weights(),
                            rtol=_RTOL, atol=1e-6)

    def test_gradient_reaches_the_layer_before_the_resize(self):
        model = _my_bilinear_model()
        reference = _model(TensorFlowResize((9, 8)))
        reference.set_weights(model.get_weights())
        images, targets = _data()

        def kernel_gradient(m: keras.Model) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = keras.losses.mean_squared_error(targets, m(images))
            return tape.gradient(loss, m.get_layer("before").kernel)

        gradient = kernel_gradient(model)
        self.assertIsNotNone(gradient)
        self.assertGreater(float(tf.reduce_max(tf.abs(gradient))), 0.0)
        self.assertAllClose(gradient, kernel_gradient(reference), rtol=_RTOL, atol=1e-7)

    def test_mirrored_strategy_on_two_cpus_matches_one_device(self):
        single = _my_bilinear_model()
        initial_weights = single.get_weights()
        single_losses = _fit(single)

        cpus = [device.name for device in tf.config.list_logical_devices("CPU")]
        strategy = tf.distribute.MirroredStrategy(cpus[:2])
        self.assertEqual(strategy.num_replicas_in_sync, 2)
        with strategy.scope():
            mirrored = _my_bilinear_model()
        mirrored.set_weights(initial_weights)
        mirrored_losses = _fit(mirrored)

        self.assertLess(mirrored_losses[-1], 0.5 * mirrored_losses[0])
        self.assertAllClose(mirrored_losses, single_losses, rtol=_RTOL, atol=0)
        self.assertAllClose(mirrored.get_weights(), single.get_weights(),
                            rtol=_RTOL, atol=1e-6)


def _split_cpu_in_two() -> None:
    """MirroredStrategy needs two devices; this must run before TensorFlow
    initializes its devices."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * 2)


if __name__ == "__main__":
    _split_cpu_in_two()
    tf.test.main()
