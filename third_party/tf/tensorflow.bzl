"""Build macros with the names and arguments of TensorFlow's in-tree ones.

A BUILD file that loads these moves into a TensorFlow source tree by changing its
load() line to `//tensorflow:tensorflow.bzl`. These macros are the only place that
knows the compiler flags: they come from the installed TensorFlow (tf.sysconfig), via
the generated `@local_config_tf//:build_defs.bzl`, never from a hard-coded list.
"""

load(
    "@local_config_tf//:build_defs.bzl",
    "TF_CXX_STANDARD",
    "TF_DEFINES",
)

_TF_DEPS = [
    "@local_config_tf//:tf_header_lib",
    "@local_config_tf//:libtensorflow_framework",
]

# Flags for code that must compute exactly what TensorFlow's kernels compute.
# GCC's default for C++ (-ffp-contract=fast) fuses `a + (b - a) * t` into one
# multiply-add wherever FMA instructions are enabled (-mfma, -march=native, a
# target("avx2,fma") function, any aarch64 build), which rounds once instead of
# twice and so changes the results.
_TF_MATH_COPTS = ["-ffp-contract=off"]

def _tf_copts():
    # A later -std wins over Bazel's default -std=c++0x.
    # -O3 (over -c opt's -O2) lets GCC vectorize loops whose trip count is known
    # only at run time, such as the channel loops of the kernels.
    return TF_DEFINES + ["-std=" + TF_CXX_STANDARD, "-O3", "-fvisibility-inlines-hidden"] + _TF_MATH_COPTS

def tf_cc_test(name, srcs, deps, data = [], extra_copts = [], linkopts = [], **kwargs):
    """A C++ test compiled with the op libraries' flags.

    Args:
      name: the test's name.
      srcs: its sources.
      deps: cc_library targets it uses (required, as in TensorFlow: pass [] for none).
      data: files it reads at run time.
      extra_copts: compiler flags added after the shared ones.
      linkopts: extra linker flags.
      **kwargs: passed to cc_test (size, tags, ...).
    """
    native.cc_test(
        name = name,
        srcs = srcs,
        deps = deps,
        data = data,
        copts = _tf_copts() + extra_copts,
        linkopts = linkopts + ["-lm"],
        **kwargs
    )

def tf_gpu_kernel_library(name, srcs, hdrs = [], deps = [], copts = [], **kwargs):
    """A library of GPU kernels (`*.cu.cc`), linked into a tf_custom_op_library.

    Until CUDA compilation is wired in, the sources are compiled by the host compiler
    without GOOGLE_CUDA, exactly as TensorFlow does in a CPU-only build: their bodies
    sit inside `#if GOOGLE_CUDA` and compile to nothing.
    """
    native.cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["@local_config_tf//:tf_header_lib"],
        copts = _tf_copts() + copts,
        alwayslink = 1,
        **kwargs
    )

def tf_custom_op_library(name, srcs = [], gpu_srcs = [], deps = [], copts = [], linkopts = [], **kwargs):
    """A shared library of ops and kernels for `tf.load_op_library`.

    Args:
      name: the library file name, ending in `.so`.
      srcs: C++ sources and headers: op registrations and CPU kernels.
      gpu_srcs: CUDA sources (`*.cu.cc`) and headers for the GPU kernels.
      deps: other cc_library targets (for example TensorFlow-free math headers).
      copts: extra compiler flags, added after TensorFlow's.
      linkopts: extra linker flags.
      **kwargs: passed to cc_binary (visibility, tags, testonly, ...).
    """
    gpu_deps = []
    if gpu_srcs:
        gpu_library = name.split(".so")[0] + "_gpu"
        tf_gpu_kernel_library(
            name = gpu_library,
            srcs = gpu_srcs,
            deps = deps,
            copts = copts,
            visibility = ["//visibility:private"],
        )
        gpu_deps = [":" + gpu_library]
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + gpu_deps + _TF_DEPS + ["@local_config_tf//:build_info"],
        copts = _tf_copts() + copts,
        linkopts = linkopts + ["-lm"],
        linkshared = 1,
        **kwargs
    )
