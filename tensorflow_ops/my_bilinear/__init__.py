"""MyBilinear: a batched bilinear resize op with a C++ CPU kernel.

    from tensorflow_ops.my_bilinear import my_bilinear, MyBilinearLayer
    resized = my_bilinear(images, (64, 64), align_corners=False, half_pixel_centers=True)
    layer = MyBilinearLayer((64, 64), align_corners=False, half_pixel_centers=True)

`ops` holds the generated op functions of the loaded library (`ops.my_bilinear`).
`SUPPORTS_JIT_COMPILE` says whether the ops compile under jit_compile=True.

From JAX, without TensorFlow (docs/jax.md):

    from tensorflow_ops.my_bilinear.jax_ops import my_bilinear

Importing the package loads the TensorFlow op library and registers the layer
with Keras, as before, except where the import is that of `jax_ops` (the
TensorFlow names then load on first use) or Keras runs on another backend (the
layer then needs no TensorFlow op library: see my_bilinear_layer.py).
"""

import importlib
import os
import sys
from typing import Any

_TF_NAMES = {
    "my_bilinear": "tensorflow_ops.my_bilinear.python.my_bilinear_ops",
    "ops": "tensorflow_ops.my_bilinear.python.my_bilinear_ops",
    "SUPPORTS_JIT_COMPILE": "tensorflow_ops.my_bilinear.python.my_bilinear_ops",
    "MyBilinearLayer": "tensorflow_ops.my_bilinear.python.my_bilinear_layer",
}

# Submodules that import no TensorFlow: importing one must not load it here.
_TF_FREE_SUBMODULES = ("jax_ops",)

__all__ = ["MyBilinearLayer", "SUPPORTS_JIT_COMPILE", "my_bilinear", "ops"]


def _importing_tf_free_submodule() -> bool:
    """Whether this package runs as the parent of a TF-free submodule's import.

    Python imports a package before its submodule and tells the package
    nothing; the import machinery's frame for the submodule still holds its
    name. Where that frame is not found (another Python, another loader), the
    answer is False and the package loads TensorFlow as it always did.
    """
    wanted = tuple(f"{__name__}.{name}" for name in _TF_FREE_SUBMODULES)
    frame = sys._getframe(1)  # pylint: disable=protected-access
    while frame is not None:
        if (frame.f_code.co_filename.startswith("<frozen importlib")
                and frame.f_code.co_name == "_find_and_load_unlocked"):
            name = frame.f_locals.get("name")
            if isinstance(name, str) and name.startswith(wanted):
                return True
        frame = frame.f_back
    return False


def _keras_backend_is_tensorflow() -> bool:
    """Keras's backend as Keras will choose it: $KERAS_BACKEND, else TensorFlow
    unless keras.json says otherwise (read by Keras itself, if imported)."""
    keras = sys.modules.get("keras")
    if keras is not None:
        return keras.backend.backend() == "tensorflow"
    return os.environ.get("KERAS_BACKEND", "tensorflow") == "tensorflow"


def __getattr__(name: str) -> Any:
    """The TensorFlow names, loaded on first use where the import did not."""
    if name in _TF_NAMES:
        value = getattr(importlib.import_module(_TF_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if not _importing_tf_free_submodule():
    # The layer registers itself with Keras here, so that .keras files load
    # after `import tensorflow_ops.my_bilinear`.
    from tensorflow_ops.my_bilinear.python.my_bilinear_layer import MyBilinearLayer
    if _keras_backend_is_tensorflow():
        from tensorflow_ops.my_bilinear.python.my_bilinear_ops import SUPPORTS_JIT_COMPILE
        from tensorflow_ops.my_bilinear.python.my_bilinear_ops import my_bilinear
        from tensorflow_ops.my_bilinear.python.my_bilinear_ops import ops
