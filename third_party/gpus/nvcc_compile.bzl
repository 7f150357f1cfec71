"""Rule `nvcc_objects`: compiles each CUDA source with nvcc into a PIC object.

Bazel 4's native C++ rules call only the host compiler, so this rule runs nvcc
itself, one action per source (an edit recompiles that file alone). A `.cc`
source (host code that launches the kernels) nvcc compiles as C++: one pass
of the host compiler, with the same defines and includes but no device pass,
so TensorFlow's headers there cost what they cost any C++ source. Its
outputs end in `.pic.o`, which a cc_library accepts in `srcs` and links like
any object of its own. Include paths, defines and headers come from the
CcInfo of `deps`, so a source sees exactly what the host-compiled sources see.

Macro `cuda_objects_library`: those objects as a cc_library that libraries
link under --config=cuda, with CUDA's static runtime.
"""

load("@local_config_cuda//cuda:build_defs.bzl", "CUDA_COMPUTE_CAPABILITIES", "NVCC_PATH", "if_cuda")

def _flags(prefix, values):
    return [prefix + v for v in values]

def _nvcc_objects_impl(ctx):
    contexts = [dep[CcInfo].compilation_context for dep in ctx.attr.deps]
    headers = depset(ctx.files.hdrs, transitive = [c.headers for c in contexts])
    includes = ["."]
    quote_includes = [ctx.bin_dir.path]
    system_includes = []
    defines = []
    for c in contexts:
        includes += c.includes.to_list()
        quote_includes += c.quote_includes.to_list()
        system_includes += c.system_includes.to_list()
        defines += c.defines.to_list()

    common = (
        ["-c"] +
        ctx.attr.copts +
        _flags("-D", defines) +
        _flags("-I", includes + quote_includes) +
        [flag for d in system_includes for flag in ["-isystem", d]]
    )
    objects = []
    for src in ctx.files.srcs:
        if src.basename.endswith((".cu.cc", ".cu")):
            language = ["-x", "cu"] + ctx.attr.gencode_flags
        else:
            language = ["-x", "c++"]
        # The whole file name, so that k.cu.cc and k.cc get objects of their own.
        obj = ctx.actions.declare_file("_nvcc/%s/%s.pic.o" % (ctx.label.name, src.basename))
        ctx.actions.run(
            executable = ctx.attr.nvcc,
            arguments = language + common + [src.path, "-o", obj.path],
            inputs = depset([src], transitive = [headers]),
            outputs = [obj],
            mnemonic = "NvccCompile",
            progress_message = "nvcc %s" % src.short_path,
            # nvcc finds the host compiler (gcc) on PATH.
            use_default_shell_env = True,
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

nvcc_objects = rule(
    implementation = _nvcc_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu.cc", ".cu", ".cc"]),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(providers = [CcInfo]),
        # Everything nvcc is told besides sources, includes and defines:
        # language, standard, host-compiler flags (-Xcompiler), optimization.
        "copts": attr.string_list(),
        # -gencode flags, one pair per compute capability.
        "gencode_flags": attr.string_list(),
        # An absolute path: nvcc needs its whole toolkit beside it, which stays
        # where it is installed rather than becoming an input of every action.
        "nvcc": attr.string(mandatory = True),
    },
)

def gencode_flags(capabilities):
    """nvcc -gencode flags: sm_XY -> SASS for XY, compute_XY -> PTX and SASS for XY.

    PTX alone would leave the newest GPU listed to JIT-compile every kernel at
    its first launch, so each PTX target gets machine code beside it.
    """
    flags = []
    for capability in capabilities:
        kind, version = capability.split("_")
        if kind == "sm":
            flags += ["-gencode", "arch=compute_%s,code=sm_%s" % (version, version)]
        elif kind == "compute":
            if "sm_" + version not in capabilities:
                flags += ["-gencode", "arch=compute_%s,code=sm_%s" % (version, version)]
            flags += ["-gencode", "arch=compute_%s,code=compute_%s" % (version, version)]
        else:
            fail("Unknown compute capability %r: expected sm_XY or compute_XY" % capability)
    return flags

def cuda_objects_library(name, srcs, deps, copts, hdrs = [], testonly = 0, tags = [], compatible_with = None):
    """A cc_library `name` of the nvcc objects of `srcs` (`<name>_nvcc`, for
    the configured compute capabilities) under --config=cuda, with CUDA's
    static runtime; without CUDA, or without `srcs`, it holds only `hdrs`.
    Statically linked, so that a test that links its dependencies as shared
    objects gets the runtime beside them."""
    objects = []
    if srcs:
        nvcc_objects(
            name = name + "_nvcc",
            srcs = srcs,
            hdrs = hdrs,
            deps = deps + ["@local_config_cuda//cuda:cuda_headers"],
            copts = copts,
            gencode_flags = gencode_flags(CUDA_COMPUTE_CAPABILITIES),
            nvcc = NVCC_PATH or "nvcc",
            testonly = testonly,
            compatible_with = compatible_with,
            # Built only as a dependency under --config=cuda, never by `//...`.
            tags = tags + ["manual"],
            visibility = ["//visibility:private"],
        )
        objects = [":" + name + "_nvcc"]
    native.cc_library(
        name = name,
        srcs = if_cuda(objects),
        hdrs = hdrs,
        deps = if_cuda(["//third_party/gpus:cudart_static"] if objects else []),
        alwayslink = 1,
        linkstatic = 1,
        testonly = testonly,
        tags = tags,
        compatible_with = compatible_with,
        visibility = ["//visibility:private"],
    )
