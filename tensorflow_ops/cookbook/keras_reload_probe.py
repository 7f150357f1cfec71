"""Loads `.keras` files in a fresh process, the way a user reloads a model.

    python -m tensorflow_ops.cookbook.keras_reload_probe DIR NAME [NAME ...]

For each NAME it loads DIR/NAME.keras and, on success, saves the model's output
on DIR/input.npy to DIR/NAME.out.npy. Before importing the module that
registers the cookbook's functions it first tries DIR/<first NAME>.keras once
(recorded as "<NAME>_before_import"), to show that the import is needed. The
last line of stdout is a JSON object {key: error message or null}.
"""

import json
import os
import sys
from typing import Dict, Optional

import keras
import numpy as np


def _load(folder: str, name: str, save_output: bool) -> Optional[str]:
    """Loads and runs one model; returns the error message, or None."""
    try:
        model = keras.models.load_model(os.path.join(folder, name + ".keras"))
    except Exception as error:  # pylint: disable=broad-except
        return f"{type(error).__name__}: {error}"
    if save_output:
        inputs = np.load(os.path.join(folder, "input.npy"))
        np.save(os.path.join(folder, name + ".out.npy"), np.asarray(model(inputs)))
    return None


def main() -> None:
    folder, names = sys.argv[1], sys.argv[2:]
    errors: Dict[str, Optional[str]] = {
        names[0] + "_before_import": _load(folder, names[0], save_output=False)}
    # pylint: disable-next=g-import-not-at-top,unused-import
    import tensorflow_ops.cookbook.swish
    for name in names:
        errors[name] = _load(folder, name, save_output=True)
    print(json.dumps(errors))


if __name__ == "__main__":
    main()
