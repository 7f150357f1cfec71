"""Build macro for XLA FFI libraries: C++ (and CUDA) handlers that JAX calls
through `jax.ffi`, built from the same TensorFlow-free math as the op libraries.

An FFI library links nothing of TensorFlow: its handlers include jaxlib's
header-only FFI API (`@local_config_jax//:ffi_headers`) and the math headers.
It is compiled with the op libraries' flags (third_party/tf/library_copts.bzl),
so the math it instantiates computes the same bits as the op library's.
"""

load("@local_config_cuda//cuda:build_defs.bzl", "if_cuda")
load("//third_party/tf:build_flags.bzl", "JAX_FFI_LINKOPTS", "TF_LINKOPTS")
load("//third_party/tf:library_copts.bzl", "host_copts", "nvcc_copts")
load("//third_party/gpus:nvcc_compile.bzl", "cuda_objects_library")

_FFI_HEADERS = "@local_config_jax//:ffi_headers"

def _version_script_impl(ctx):
    ctx.actions.write(ctx.outputs.out, "\n".join(
        ["{", "  global:"] +
        ["    %s;" % symbol for symbol in ctx.attr.symbols] +
        ["  local:", "    *;", "};", ""],
    ))

# A linker version script that exports only `symbols` (the handlers), so that
# the math linked into the library cannot interpose on, or be interposed by,
# the same functions of an op library loaded into the same process.
_version_script = rule(
    implementation = _version_script_impl,
    attrs = {
        "symbols": attr.string_list(mandatory = True),
        "out": attr.output(mandatory = True),
    },
)

def jax_ffi_library(name, srcs, handlers, gpu_srcs = [], gpu_handlers = [], deps = [], copts = [], linkopts = [], **kwargs):
    """A shared library of XLA FFI handlers for `jax.ffi.register_ffi_target`.

    Args:
      name: the library file name, ending in `.so`.
      srcs: C++ sources and headers of the CPU handlers (and what they compile).
      handlers: the handler symbols of `srcs` (XLA_FFI_DEFINE_HANDLER_SYMBOL),
        the only symbols the library exports.
      gpu_srcs: CUDA sources (`*.cu.cc`), host sources (`*.cc`, which nvcc
        compiles as C++) and headers of the CUDA handlers, compiled under
        --config=cuda and left out otherwise.
      gpu_handlers: their handler symbols, exported under --config=cuda.
      deps: cc_library targets (for example TensorFlow-free math headers).
      copts: extra compiler flags, added after the shared ones.
      linkopts: extra linker flags.
      **kwargs: passed to cc_binary (visibility, tags, testonly, ...).
    """
    base = name.split(".so")[0]
    gpu_deps = []
    if gpu_srcs:
        cuda_objects_library(
            name = base + "_gpu",
            srcs = [s for s in gpu_srcs if s.endswith(".cc")],
            hdrs = [s for s in gpu_srcs if not s.endswith(".cc")],
            deps = deps + [_FFI_HEADERS],
            copts = nvcc_copts() + ["-Xcompiler=" + flag for flag in copts],
        )
        gpu_deps = [":" + base + "_gpu"]
    script = base + "_exports"
    _version_script(
        name = script,
        symbols = handlers + if_cuda(gpu_handlers, []),
        out = base + "_exports.lds",
        visibility = ["//visibility:private"],
    )
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + gpu_deps + [_FFI_HEADERS],
        additional_linker_inputs = [":" + script + ".lds"],
        copts = host_copts() + copts,
        linkopts = linkopts + TF_LINKOPTS + JAX_FFI_LINKOPTS + [
            "-Wl,--version-script=$(location :%s.lds)" % script,
        ],
        linkshared = 1,
        **kwargs
    )
