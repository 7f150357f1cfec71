"""Compiles and links every op library the wheel ships, as the Bazel macros do.

`build_libraries` is the whole build: the BUILD files give the libraries
(targets.py), the toolchain gives each command (toolchain.py), and the
compiler runs them in parallel (compiler.py). It writes only into `build_dir`.
"""

import os
import time
from typing import Dict, List

from tools.pip_build import compiler
from tools.pip_build import targets
from tools.pip_build import toolchain as toolchains


def _object(build_dir: str, library: targets.OpLibrary, source: str) -> str:
    if source in library.kernel_srcs or source in library.kernel_gpu_srcs:
        # Compiled with the macros' flags alone: one object for every library.
        return os.path.join(build_dir, "objs", "kernel_libraries", source + ".o")
    return os.path.join(build_dir, "objs", library.path, source + ".o")


def _compile_steps(tools: toolchains.Toolchain, build_dir: str,
                   libraries: List[targets.OpLibrary]) -> List[compiler.Step]:
    """Every compile, the XLA kernels (the longest single compiles) first so
    that they overlap the rest."""
    first, rest = [], []
    # A tf_kernel_library's sources have one object for every library
    # (_object), compiled for the first library that links them.
    compiled = set()
    for library in libraries:
        for source in library.xla_srcs + library.srcs + library.kernel_srcs:
            output = _object(build_dir, library, source)
            if output in compiled:
                continue
            compiled.add(output)
            step = compiler.Step(source, tools.compile_command(library, source, output),
                                 output)
            (first if source in library.xla_srcs else rest).append(step)
        # Without CUDA the gpu_srcs are left out: Bazel's CPU-only build
        # compiles a library's own to empty objects (their bodies are inside
        # `#if GOOGLE_CUDA`) and leaves a tf_kernel_library's out.
        if tools.cuda is not None:
            for source in library.kernel_gpu_srcs + library.gpu_srcs:
                output = _object(build_dir, library, source)
                if output in compiled:
                    continue
                compiled.add(output)
                first.append(compiler.Step(
                    "nvcc " + source, tools.nvcc_command(library, source, output), output))
    return first + rest


def _objects(tools: toolchains.Toolchain, build_dir: str,
             library: targets.OpLibrary) -> List[str]:
    sources = library.srcs + library.xla_srcs + library.kernel_srcs
    if tools.cuda is not None:
        sources += library.kernel_gpu_srcs + library.gpu_srcs
    return [_object(build_dir, library, s) for s in sources]


def _write_version_script(library: targets.OpLibrary, cuda: bool, path: str) -> None:
    """jax_ffi_library's version script: only the handlers are exported."""
    symbols = library.handlers + (library.gpu_handlers if cuda else [])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as script:
        script.write("{\n  global:\n" + "".join(f"    {s};\n" for s in symbols) +
                     "  local:\n    *;\n};\n")


def _build_info_step(tools: toolchains.Toolchain, build_dir: str) -> compiler.Step:
    """@local_config_tf//:build_info, generated from the same function as
    tf_configure.bzl's (build_flags.bzl); rewritten only when it changes, so
    that a kept build folder does not recompile it."""
    source = os.path.join(build_dir, "build_info", "build_info.cc")
    os.makedirs(os.path.dirname(source), exist_ok=True)
    text = tools.build_info_source()
    if not os.path.isfile(source) or open(source).read() != text:
        with open(source, "w") as generated:
            generated.write(text)
    output = source[:-len(".cc")] + ".o"
    return compiler.Step("build_info.cc", tools.build_info_command(source, output), output)


def build_libraries(root: str, build_dir: str, cuda: bool, jobs: int) -> Dict[str, str]:
    """Builds the op libraries of the workspace at `root` into `build_dir`.

    Returns:
      Each library's path in the wheel (tensorflow_ops/<op>/<name>.so) -> the
      built file.
    """
    start = time.monotonic()
    tools = toolchains.find(root, build_dir, cuda)
    tf = tools.tensorflow
    libraries = targets.op_libraries(root, tools.constants["XLA_SUFFIX"])
    compiler.log(f"TensorFlow {tf['version']} ({tf['include_dir']}); compiler {' '.join(tools.cxx)}; "
                 f"CUDA {'on: ' + ', '.join(tools.cuda.capabilities) if tools.cuda else 'off'}")
    for library in libraries:
        compiler.log(f"{library.path}: {len(library.srcs)} sources, "
                     f"{len(library.kernel_srcs)} shared, {len(library.xla_srcs)} XLA, "
                     f"{len(library.gpu_srcs)} CUDA, "
                     f"{len(library.kernel_gpu_srcs)} shared CUDA")
    build_info = _build_info_step(tools, build_dir)
    steps = _compile_steps(tools, build_dir, libraries) + [build_info]
    compiler.run_steps(steps, jobs, "compile")
    links = []
    built = {}
    for library in libraries:
        output = os.path.join(build_dir, "lib", library.path)
        objects = _objects(tools, build_dir, library)
        if library.is_jax_ffi:
            _write_version_script(library, tools.cuda is not None, output + ".lds")
        else:
            objects.append(build_info.output)
        links.append(compiler.Step("link " + library.path,
                                   tools.link_command(library, objects, output), output,
                                   depfile=False))
        built[library.path] = output
    compiler.run_steps(links, jobs, "link")
    compiler.log(f"op libraries built in {time.monotonic() - start:.1f} s")
    return built
