"""Build macros with the names and arguments of TensorFlow's in-tree ones.

A BUILD file that loads these moves into a TensorFlow source tree by changing its
load() line to `//tensorflow:tensorflow.bzl`. These macros are the only place that
knows the compiler flags: they come from the installed TensorFlow (tf.sysconfig), via
the generated `@local_config_tf//:build_defs.bzl`, never from a hard-coded list.
"""

load(
    "@local_config_cuda//cuda:build_defs.bzl",
    "CUDA_COMPUTE_CAPABILITIES",
    "NVCC_PATH",
    "if_cuda",
)
load("//third_party/tf:build_flags.bzl", "TF_LINKOPTS", "XLA_SUFFIX")
load("//third_party/tf:library_copts.bzl", "host_copts", "nvcc_copts")
load("//third_party/gpus:nvcc_compile.bzl", "cuda_objects_library", "gencode_flags", "nvcc_objects")

_TF_DEPS = [
    "@local_config_tf//:tf_header_lib",
    "@local_config_tf//:libtensorflow_framework",
]

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
        copts = host_copts() + extra_copts,
        linkopts = linkopts + TF_LINKOPTS,
        **kwargs
    )

def tf_cc_binary(name, srcs = [], deps = [], data = [], linkopts = [], **kwargs):
    """A C++ program built against the installed TensorFlow's C and C++ APIs.

    It compiles with the op libraries' flags and links libtensorflow_framework
    and libtensorflow_cc (which holds the C API, the session runtime and
    TensorFlow's own kernels), as TensorFlow's tf_cc_binary links the framework.
    TensorFlow's copts, kernels, per_os_targets and default_copts are not
    supported: the flags must stay the installed TensorFlow's.

    Args:
      name: the program's name.
      srcs: its sources and headers.
      deps: cc_library targets it uses.
      data: files it reads at run time.
      linkopts: extra linker flags.
      **kwargs: passed to cc_binary (visibility, tags, testonly, ...).
    """
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + _TF_DEPS + ["@local_config_tf//:libtensorflow_cc"],
        data = data,
        copts = host_copts(),
        linkopts = linkopts + ["-lm"],
        **kwargs
    )

def tf_kernel_library(
        name,
        prefix = None,
        srcs = None,
        gpu_srcs = None,
        hdrs = None,
        deps = None,
        gpu_deps = None,
        alwayslink = 1,
        copts = None,
        gpu_copts = None,
        is_external = False,
        compatible_with = None,
        **kwargs):
    """A library of kernel code compiled with the op libraries' flags.

    Here it holds code that several libraries link, compiled once: MyBilinear's
    CPU math and its CUDA launchers, which its op library and its JAX FFI
    library share. It adds no TensorFlow dependency of its own, so a
    TensorFlow-free library can link it. TensorFlow's `prefix`, `gpu_deps`,
    `gpu_copts` and `is_external` are not supported.

    Args:
      name: the library's name.
      prefix: not supported.
      srcs: C++ sources.
      gpu_srcs: CUDA sources (`*.cu.cc`) and the headers only they include.
        As in TensorFlow, they go to a library of their own, `<name>_gpu`,
        linked under --config=cuda only; here nvcc compiles them without
        TensorFlow's headers, so a library that links nothing of TensorFlow
        can link them too.
      hdrs: headers of this library.
      deps: cc_library targets the sources include.
      gpu_deps: not supported.
      alwayslink: link every object, whether or not a symbol of it is used.
      copts: extra compiler flags, added after the shared ones.
      gpu_copts: not supported.
      is_external: not supported.
      compatible_with: passed to cc_library.
      **kwargs: passed to cc_library (visibility, tags, ...).
    """
    unsupported = [
        argument
        for argument, value in [
            ("prefix", prefix),
            ("gpu_deps", gpu_deps),
            ("gpu_copts", gpu_copts),
            ("is_external", is_external),
        ]
        if value
    ]
    if unsupported:
        fail("tf_kernel_library %s: %s not supported in this workspace" %
             (name, ", ".join(unsupported)))
    gpu_library = []
    if gpu_srcs:
        gpu_library = [":" + _kernel_gpu_library(
            name,
            gpu_srcs,
            deps or [],
            # Passed on as TensorFlow passes **kwargs to its <name>_gpu.
            testonly = kwargs.get("testonly", 0),
            tags = kwargs.get("tags", []),
            compatible_with = compatible_with,
        )]
    native.cc_library(
        name = name,
        srcs = srcs or [],
        hdrs = hdrs or [],
        deps = (deps or []) + gpu_library,
        copts = host_copts() + (copts or []),
        alwayslink = alwayslink,
        compatible_with = compatible_with,
        **kwargs
    )

_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".inc")

def _kernel_gpu_library(name, gpu_srcs, deps, testonly, tags, compatible_with):
    """tf_kernel_library's `<name>_gpu`: its CUDA sources compiled by nvcc
    under --config=cuda, nothing otherwise. Returns the library's name. As in
    TensorFlow, the library's copts are not passed (gpu_copts would be)."""
    cuda_srcs = [s for s in gpu_srcs if s.endswith(".cu.cc")]
    headers = [s for s in gpu_srcs if s.endswith(_HEADER_SUFFIXES)]
    for src in gpu_srcs:
        if src in cuda_srcs or src in headers:
            continue
        if src.endswith(".cc"):
            # TensorFlow's tf_kernel_library refuses these too.
            fail("%s not allowed in gpu_srcs of tf_kernel_library %s: .cc sources " %
                 (src, name) + "must end with .cu.cc")
        fail("%s in gpu_srcs of tf_kernel_library %s: only .cu.cc sources and " %
             (src, name) + "headers are built here")
    cuda_objects_library(
        name = name + "_gpu",
        srcs = cuda_srcs,
        hdrs = headers,
        deps = deps,
        copts = nvcc_copts(),
        testonly = testonly,
        tags = tags,
        compatible_with = compatible_with,
    )
    return name + "_gpu"

def tf_gpu_kernel_library(name, srcs, copts = [], cuda_copts = [], deps = [], hdrs = [], **kwargs):
    """A library of GPU kernels (`*.cu.cc`), linked into a tf_custom_op_library.

    Under --config=cuda, nvcc compiles each source (one action per file) with
    TensorFlow's CUDA flags and the compute capabilities configure.py chose,
    and the host sources (`*.cc`: the OpKernels' GPU functors and
    registrations, which launch the kernels) as C++, with the same defines and
    includes but no device pass. Otherwise the host compiler compiles them all
    without GOOGLE_CUDA, exactly as TensorFlow does in a CPU-only build: their
    bodies sit inside `#if GOOGLE_CUDA` and compile to nothing.

    Args:
      name: the library's name.
      srcs: CUDA sources (`*.cu.cc`), host sources (`*.cc`) and the headers
        only they include.
      copts: host-compiler flags, for both configurations (passed to nvcc
        through -Xcompiler).
      cuda_copts: nvcc flags, under --config=cuda only.
      deps: cc_library targets the sources include.
      hdrs: headers of this library.
      **kwargs: passed to cc_library (visibility, tags, ...).
    """
    all_deps = deps + ["@local_config_tf//:tf_header_lib"]
    objects = name + "_nvcc"
    compiled = [s for s in srcs if s.endswith(".cc")]
    nvcc_objects(
        name = objects,
        srcs = compiled,
        hdrs = hdrs + [s for s in srcs if s not in compiled],
        deps = all_deps + ["@local_config_cuda//cuda:cuda_headers"],
        copts = nvcc_copts() + ["-Xcompiler=" + flag for flag in copts] + cuda_copts,
        gencode_flags = gencode_flags(CUDA_COMPUTE_CAPABILITIES),
        nvcc = NVCC_PATH or "nvcc",
        # Built only as a dependency under --config=cuda, never by `//...`.
        tags = ["manual"],
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        srcs = if_cuda(
            [":" + objects] + [s for s in srcs if s not in compiled],
            srcs,
        ),
        hdrs = hdrs,
        deps = all_deps + if_cuda(["//third_party/gpus:cudart_static"]),
        copts = host_copts() + copts,
        alwayslink = 1,
        **kwargs
    )

# XLA kernel sources: build_flags.bzl.
_XLA_SUFFIX = XLA_SUFFIX

def _tf_xla_kernel_library(name, srcs, deps, copts):
    """The XLA kernels of an op library: compiled against tf2xla's headers,
    linking libtensorflow_cc (tf2xla and the XLA builder in the pip wheel).
    Only op libraries with XLA sources get it, so only they link that library."""
    native.cc_library(
        name = name,
        srcs = srcs,
        deps = deps + [
            "@local_config_tf//:tf_xla_header_lib",
            "@local_config_tf//:libtensorflow_cc",
        ],
        copts = host_copts() + copts,
        alwayslink = 1,
        # Built only as part of the op library: as a target of its own in
        # `bazel build //...` it would also build a static archive nothing
        # links (and, without .bazelrc's --force_pic, compile its sources a
        # second time for it).
        tags = ["manual"],
        visibility = ["//visibility:private"],
    )

def tf_custom_op_library(name, srcs = [], gpu_srcs = [], deps = [], copts = [], linkopts = [], **kwargs):
    """A shared library of ops and kernels for `tf.load_op_library`.

    Args:
      name: the library file name, ending in `.so`.
      srcs: C++ sources and headers: op registrations, CPU kernels, and XLA
        kernels (`*_xla.cc`), which are compiled apart against tf2xla's
        headers and make the library link libtensorflow_cc.
      gpu_srcs: CUDA sources (`*.cu.cc`) and headers for the GPU kernels, and
        the host sources (`*.cc`) of their OpKernels (tf_gpu_kernel_library).
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
    xla_srcs = [src for src in srcs if src.endswith(_XLA_SUFFIX)]
    if xla_srcs:
        xla_library = name.split(".so")[0] + "_xla"
        _tf_xla_kernel_library(
            name = xla_library,
            # The XLA kernels may include the library's headers too.
            srcs = xla_srcs + [src for src in srcs if src.endswith(".h")],
            deps = deps,
            copts = copts,
        )
        gpu_deps = gpu_deps + [":" + xla_library]
        srcs = [src for src in srcs if src not in xla_srcs]
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + gpu_deps + _TF_DEPS + ["@local_config_tf//:build_info"],
        copts = host_copts() + copts,
        linkopts = linkopts + TF_LINKOPTS,
        linkshared = 1,
        **kwargs
    )
