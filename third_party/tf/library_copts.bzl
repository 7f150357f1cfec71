"""The compiler flags of every library source, for the macros that build them.

tensorflow.bzl (op libraries, GPU kernels, C++ tests) and jax.bzl (FFI
libraries) compile the same math, which must give the same bits in both, so
they take their command lines from here. The flags themselves are in
build_flags.bzl. The pip build (tools/pip_build/toolchain.py) runs these two
functions as Python, alone, so keep them plain: list and string operations
on the loaded names only, no top-level helpers or constants.
"""

load("@local_config_tf//:build_defs.bzl", "TF_CXX_STANDARD", "TF_DEFINES")
load(
    "//third_party/tf:build_flags.bzl",
    "NVCC_COPTS",
    "NVCC_HOST_COPTS",
    "TF_MATH_COPTS",
    "TF_OPT_COPTS",
)

def host_copts():
    """Flags of a C++ source.

    TensorFlow's defines (they fix the C++ ABI and Eigen's alignment, which
    every object sharing the math must agree on) and its -std, which wins over
    Bazel's default -std=c++0x, then the optimization and math flags.
    """
    return TF_DEFINES + ["-std=" + TF_CXX_STANDARD] + TF_OPT_COPTS + TF_MATH_COPTS

def nvcc_copts():
    """Flags of a CUDA source for nvcc.

    TensorFlow's flags for its own .cu.cc files, and the host compiler's flags
    for the sources' CPU part.
    """
    host = NVCC_HOST_COPTS + TF_MATH_COPTS
    return ["-std=" + TF_CXX_STANDARD] + NVCC_COPTS + TF_DEFINES + [
        "-Xcompiler=" + flag
        for flag in host
    ]
