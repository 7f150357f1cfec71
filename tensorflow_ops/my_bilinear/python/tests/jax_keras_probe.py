"""Runs MyBilinearLayer under KERAS_BACKEND=jax and prints what it saw as one
JSON line. my_bilinear_jax_keras_test calls `train` in its own process where
Keras is not imported yet (Keras fixes its backend on import), and starts
this module in child processes for the rest.

    python -m tensorflow_ops.my_bilinear.python.tests.jax_keras_probe train DIR
    python -m tensorflow_ops.my_bilinear.python.tests.jax_keras_probe load DIR

`load` runs on whichever backend KERAS_BACKEND names.
"""

import json
import os
import sys
from typing import Any, Callable, Dict, List

import keras
import numpy as np

from tensorflow_ops.my_bilinear import MyBilinearLayer

_IN, _OUT = (8, 8, 3), (16, 12)


def _model(make_resize: Callable[[], keras.layers.Layer],
           policy: str = "float32") -> keras.Model:
    """A convolution before and after the resize, so that training needs the
    resize's gradient; the same weights for every resize layer."""
    keras.config.set_dtype_policy(policy)
    keras.utils.set_random_seed(3)
    inputs = keras.Input(shape=_IN)
    features = keras.layers.Conv2D(4, 3, padding="same")(inputs)
    resized = make_resize()(features)
    outputs = keras.layers.Conv2D(2, 1, dtype="float32")(resized)
    model = keras.Model(inputs, outputs)
    keras.config.set_dtype_policy("float32")
    return model


def _data():
    rng = np.random.default_rng(0)
    return (rng.random((16, *_IN), np.float32),
            rng.random((16, *_OUT, 2), np.float32))


def _losses(model: keras.Model, jit_compile: bool) -> List[float]:
    images, targets = _data()
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse",
                  jit_compile=jit_compile)
    history = model.fit(images, targets, batch_size=4, epochs=4, shuffle=False, verbose=0)
    return [float(loss) for loss in history.history["loss"]]


def train(folder: str) -> Dict[str, Any]:
    ours = lambda: MyBilinearLayer(_OUT, align_corners=False,  # noqa: E731
                                   half_pixel_centers=True)
    facts: Dict[str, Any] = {"backend": keras.backend.backend()}
    layer = ours()
    facts["output_shape"] = list(layer.compute_output_shape((None, *_IN[:2], 4)))
    # The model trained under jit_compile is the one saved below.
    model = _model(ours)
    facts["losses_jit_True"] = _losses(model, True)
    facts["losses_jit_False"] = _losses(_model(ours), False)
    facts["resizing_losses"] = _losses(
        _model(lambda: keras.layers.Resizing(*_OUT, interpolation="bilinear")), True)
    mixed = _model(ours, policy="mixed_float16")
    facts["mixed_dtype"] = str(mixed.layers[2].compute_dtype)
    facts["mixed_output_dtype"] = str(mixed.layers[2](np.ones((1, *_IN[:2], 4))).dtype)
    facts["mixed_losses"] = _losses(mixed, True)
    images, _ = _data()
    np.save(os.path.join(folder, "images.npy"), images)
    np.save(os.path.join(folder, "predicted.npy"), np.asarray(model(images)))
    model.save(os.path.join(folder, "model.keras"))
    return facts


def load(folder: str) -> Dict[str, Any]:
    model = keras.models.load_model(os.path.join(folder, "model.keras"))
    images = np.load(os.path.join(folder, "images.npy"))
    expected = np.load(os.path.join(folder, "predicted.npy"))
    layer = next(l for l in model.layers if isinstance(l, MyBilinearLayer))
    return {"backend": keras.backend.backend(),
            "layer_config": {k: layer.get_config()[k] for k in
                             ("target_size", "align_corners", "half_pixel_centers")},
            "same_bits": np.asarray(model(images)).tobytes() == expected.tobytes(),
            "max_difference": float(np.max(np.abs(np.asarray(model(images)) - expected)))}


def op_library_mapped() -> bool:
    """Whether this process has mapped the TensorFlow op library."""
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        return "my_bilinear_op.so" in maps.read()


def main() -> None:
    mode, folder = sys.argv[1:3]
    facts = train(folder) if mode == "train" else load(folder)
    facts["op_library_mapped"] = op_library_mapped()
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
