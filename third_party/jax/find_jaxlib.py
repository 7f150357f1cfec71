"""Prints, as JSON, where the running Python's jaxlib keeps XLA's FFI headers.

Run by the `jax_configure` repository rule with the configured interpreter.
jaxlib ships the header-only FFI API (`xla/ffi/api/ffi.h`) for libraries that
JAX calls through `jax.ffi`; `jax.ffi.include_dir()` names its folder. An
interpreter without jaxlib prints `{"found": false, ...}` with the reason, so
that only the FFI targets fail to build, with that reason.
"""

import importlib.util
import json
import os
import sys
from typing import Dict, Union


def describe_jaxlib() -> Dict[str, Union[bool, str]]:
    """The facts the FFI build needs about the importable jax and jaxlib."""
    if importlib.util.find_spec("jax") is None or importlib.util.find_spec("jaxlib") is None:
        return {"found": False,
                "reason": f"{sys.executable} cannot import jax and jaxlib"}
    import jax  # pylint: disable=g-import-not-at-top
    import jaxlib  # pylint: disable=g-import-not-at-top

    include_dir = jax.ffi.include_dir()
    header = os.path.join(include_dir, "xla", "ffi", "api", "ffi.h")
    if not os.path.isfile(header):
        return {"found": False, "reason": f"jaxlib {jaxlib.__version__} has no {header}"}
    return {"found": True, "include_dir": include_dir, "jax_version": jax.__version__,
            "jaxlib_version": jaxlib.__version__}


if __name__ == "__main__":
    print(json.dumps(describe_jaxlib()))
