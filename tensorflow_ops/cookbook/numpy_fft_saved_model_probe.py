"""Calls a SavedModel that uses `tf.numpy_function` in a fresh process, which
has not created the Python callback the model's PyFunc op refers to.

    python -m tensorflow_ops.cookbook.numpy_fft_saved_model_probe DIR

DIR holds the SavedModel (DIR/model) and its input (DIR/input.npy). The model
is called twice: first as it is, then after this process has created an
unrelated numpy_function (one that doubles its input), which takes the first
callback slot. The last line of stdout is a JSON object with "first_error"
(the error of the first call, or null) and "second_output" (the second result
as a list of [real, imag], or the error message).
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf


def _call(model, inputs: np.ndarray):
    try:
        return model(tf.constant(inputs)).numpy(), None
    except tf.errors.OpError as error:
        return None, f"{type(error).__name__}: {error.message}"


def main() -> None:
    folder = sys.argv[1]
    model = tf.saved_model.load(os.path.join(folder, "model"))
    inputs = np.load(os.path.join(folder, "input.npy"))
    _, first_error = _call(model, inputs)
    # A traced function keeps its callback registered as long as it lives (an
    # eager numpy_function's callback is dropped right after the call).
    impostor = tf.function(
        lambda x: tf.numpy_function(lambda v: 2 * v, [x], Tout=tf.complex128))
    impostor.get_concrete_function(tf.TensorSpec(None, tf.complex128))
    second_output, second_error = _call(model, inputs)
    if second_output is not None:
        second_output = np.stack([second_output.real, second_output.imag], -1).tolist()
    print(json.dumps({"first_error": first_error,
                      "second_output": second_output if second_error is None
                                       else second_error}))


if __name__ == "__main__":
    main()
