"""Prints, as JSON, where the running Python's TensorFlow lives and how it was built.

Run by the `tf_configure` repository rule with the configured interpreter. It asks
TensorFlow itself (`tf.sysconfig`) rather than guessing, because the C++11 ABI flag,
the C++ standard and Eigen's alignment must match the TensorFlow build exactly.

Run as a program, it imports only the module behind `tf.sysconfig`
(tensorflow/python/platform/sysconfig.py), not the package's public API: 0.7 s
instead of 3.5 s, which a clean build spends before its first compile
(docs/building.md#compile-times). Where that fails (another TensorFlow's
layout), it says why on stderr and runs again with `--import-tensorflow`,
which imports the package as a user would; `--no-fallback` fails instead.
tests/find_tensorflow_test.py checks that both give the same facts.
"""

import argparse
import importlib.machinery
import importlib.util
import json
import os
import sys
import types
from typing import Any, Dict

_IMPORT_TENSORFLOW = "--import-tensorflow"


def _fail(message: str) -> None:
    print(message, file=sys.stderr)
    sys.exit(1)


def _check_importable() -> importlib.machinery.ModuleSpec:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None:
        _fail(f"{sys.executable} cannot import tensorflow. Run `python3 configure.py` "
              "or pass --python with an interpreter that has TensorFlow.")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return spec


def _describe_without_the_api() -> Dict[str, Any]:
    """The facts from tensorflow.python.platform.sysconfig, with the
    `tensorflow` package as a bare namespace, so that its __init__ (the public
    API, Keras, ...) never runs. Only for a process of its own: the bare
    package stays in sys.modules."""
    spec = _check_importable()
    package = types.ModuleType("tensorflow")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["tensorflow"] = package
    # pylint: disable=g-import-not-at-top
    from tensorflow.python.framework import versions
    from tensorflow.python.platform import sysconfig
    return describe_sysconfig(sysconfig, versions.VERSION)


def describe_tensorflow() -> Dict[str, Any]:
    """Returns the facts the build needs about the importable TensorFlow,
    imported as a user imports it (or as this process already has)."""
    if "tensorflow" not in sys.modules:
        _check_importable()
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    return describe_sysconfig(tf.sysconfig, tf.__version__)


def describe_sysconfig(sysconfig: Any, version: str) -> Dict[str, Any]:
    """The facts, from TensorFlow's sysconfig module (tf.sysconfig) and its
    version."""
    compile_flags = sysconfig.get_compile_flags()
    link_flags = sysconfig.get_link_flags()
    include_dirs = [f[2:] for f in compile_flags if f.startswith("-I")]
    defines = [f for f in compile_flags if f.startswith("-D")]
    standards = [f.split("=", 1)[1] for f in compile_flags if "-std=" in f]
    lib_dirs = [f[2:] for f in link_flags if f.startswith("-L")]
    libs = [f[3:] for f in link_flags if f.startswith("-l:")]
    build_info = sysconfig.get_build_info()
    abi = [d.split("=", 1)[1] for d in defines if d.startswith("-D_GLIBCXX_USE_CXX11_ABI=")]
    if len(include_dirs) != 1 or len(lib_dirs) != 1 or len(libs) != 1:
        _fail(f"Unexpected tf.sysconfig flags: {compile_flags} {link_flags}")
    # libtensorflow_cc holds tf2xla (XlaOpRegistry, the XLA builder), which
    # only op libraries with XLA kernels link; tf.sysconfig does not name it.
    cc_libs = sorted(name for name in os.listdir(lib_dirs[0])
                     if name.startswith("libtensorflow_cc.so"))
    return {
        "version": version,
        "include_dir": include_dirs[0],
        "lib_dir": lib_dirs[0],
        "framework_lib": libs[0],
        "cc_lib": cc_libs[0] if cc_libs else "",
        "defines": defines,
        "cxx_standard": standards[0] if standards else "c++17",
        "cxx11_abi": abi[0] if abi else "unknown",
        "is_cuda_build": bool(build_info.get("is_cuda_build")),
        # A CUDA build's toolkit version ("12.5.1") and target GPUs ("sm_60", ...).
        "cuda_version": build_info.get("cuda_version", ""),
        "cuda_compute_capabilities": list(build_info.get("cuda_compute_capabilities", [])),
        "python": sys.executable,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(_IMPORT_TENSORFLOW, action="store_true",
                        help="import the package as a user would")
    parser.add_argument("--no-fallback", action="store_true",
                        help="fail where the sysconfig module alone fails")
    args = parser.parse_args()
    # Where TensorFlow is imported already (never, run as a program), the
    # bare package must not replace it.
    if args.import_tensorflow or "tensorflow" in sys.modules:
        facts = describe_tensorflow()
    else:
        try:
            facts = _describe_without_the_api()
        except Exception as error:  # pylint: disable=broad-except
            print(f"find_tensorflow.py: TensorFlow's sysconfig module alone failed "
                  f"({type(error).__name__}: {error})"
                  f"{'' if args.no_fallback else '; importing the package'}",
                  file=sys.stderr)
            if args.no_fallback:
                sys.exit(1)
            os.execv(sys.executable, [sys.executable, __file__, _IMPORT_TENSORFLOW])
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
