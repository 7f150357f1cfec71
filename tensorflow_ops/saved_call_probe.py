"""Loads a SavedModel in a fresh process, calls it and differentiates it.

    python -m tensorflow_ops.saved_call_probe DIR [MODULE ...]

Loads DIR/model and calls it on DIR/input.npy under a GradientTape. When
MODULEs are given (for example an op package, which loads its library and
registers its gradients), it does so twice: once before importing them, once
after. The last line of stdout is a JSON object with "before_import" (the error
of the first try, or null; absent without MODULEs), "error" (of loading or
calling after the imports, or null), "output" and "gradient" (lists, or null
where there is none).
"""

import importlib
import json
import os
import sys
from typing import Optional

import numpy as np
import tensorflow as tf


def _error_text(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"


def _load_and_call(folder: str) -> dict:
    result: dict = {"error": None, "output": None, "gradient": None}
    try:
        model = tf.saved_model.load(os.path.join(folder, "model"))
        inputs = tf.constant(np.load(os.path.join(folder, "input.npy")))
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            output = model(inputs)
        gradient: Optional[tf.Tensor] = tape.gradient(output, inputs)
        result["output"] = output.numpy().tolist()
        result["gradient"] = None if gradient is None else gradient.numpy().tolist()
    except Exception as error:  # pylint: disable=broad-except
        result["error"] = _error_text(error)
    return result


def main() -> None:
    folder, modules = sys.argv[1], sys.argv[2:]
    before_import = _load_and_call(folder)["error"] if modules else None
    for module in modules:
        importlib.import_module(module)
    result = _load_and_call(folder)
    if modules:
        result["before_import"] = before_import
    print(json.dumps(result))


if __name__ == "__main__":
    main()
