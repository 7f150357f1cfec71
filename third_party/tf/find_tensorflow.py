"""Prints, as JSON, where the running Python's TensorFlow lives and how it was built.

Run by the `tf_configure` repository rule with the configured interpreter. It asks
TensorFlow itself (`tf.sysconfig`) rather than guessing, because the C++11 ABI flag,
the C++ standard and Eigen's alignment must match the TensorFlow build exactly.
"""

import importlib.util
import json
import os
import sys


def _fail(message: str) -> None:
    print(message, file=sys.stderr)
    sys.exit(1)


def describe_tensorflow() -> dict:
    """Returns the facts the build needs about the importable TensorFlow."""
    if importlib.util.find_spec("tensorflow") is None:
        _fail(f"{sys.executable} cannot import tensorflow. Run `python3 configure.py` "
              "or pass --python with an interpreter that has TensorFlow.")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf  # pylint: disable=g-import-not-at-top

    compile_flags = tf.sysconfig.get_compile_flags()
    link_flags = tf.sysconfig.get_link_flags()
    include_dirs = [f[2:] for f in compile_flags if f.startswith("-I")]
    defines = [f for f in compile_flags if f.startswith("-D")]
    standards = [f.split("=", 1)[1] for f in compile_flags if "-std=" in f]
    lib_dirs = [f[2:] for f in link_flags if f.startswith("-L")]
    libs = [f[3:] for f in link_flags if f.startswith("-l:")]
    build_info = tf.sysconfig.get_build_info()
    abi = [d.split("=", 1)[1] for d in defines if d.startswith("-D_GLIBCXX_USE_CXX11_ABI=")]
    if len(include_dirs) != 1 or len(lib_dirs) != 1 or len(libs) != 1:
        _fail(f"Unexpected tf.sysconfig flags: {compile_flags} {link_flags}")
    # libtensorflow_cc holds tf2xla (XlaOpRegistry, the XLA builder), which
    # only op libraries with XLA kernels link; tf.sysconfig does not name it.
    cc_libs = sorted(name for name in os.listdir(lib_dirs[0])
                     if name.startswith("libtensorflow_cc.so"))
    return {
        "version": tf.__version__,
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


if __name__ == "__main__":
    print(json.dumps(describe_tensorflow()))
