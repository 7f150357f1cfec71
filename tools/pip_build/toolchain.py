"""The compiler command lines of the pip build: the Bazel macros' flags, without Bazel.

Flags come from the places the Bazel build reads them:
  - the installed TensorFlow, through third_party/tf/find_tensorflow.py (the
    script the tf_configure repository rule runs; it asks tf.sysconfig for the
    include and library folders, the defines and the C++ standard);
  - third_party/tf/build_flags.bzl, the flags themselves;
  - third_party/tf/library_copts.bzl, whose host_copts() and nvcc_copts() put
    them in order for the macros, run here as Python with the same values.
The one flag set here is Bazel's --compilation_mode=opt (.bazelrc), which Bazel's
C++ toolchain turns into -DNDEBUG (and -O2, which the macros' flags repeat).
"""

import copy
import dataclasses
import importlib.util
import os
import shlex
import shutil
from types import ModuleType
from typing import Any, Dict, List, Optional

from tools import build_file_reader
from tools.pip_build.targets import OpLibrary, TargetError

BUILD_FLAGS_BZL = os.path.join("third_party", "tf", "build_flags.bzl")
LIBRARY_COPTS_BZL = os.path.join("third_party", "tf", "library_copts.bzl")
_FIND_TENSORFLOW = os.path.join("third_party", "tf", "find_tensorflow.py")
_FIND_JAXLIB = os.path.join("third_party", "jax", "find_jaxlib.py")
_NVCC_COMPILE_BZL = os.path.join("third_party", "gpus", "nvcc_compile.bzl")

# What .bazelrc's --compilation_mode=opt gives every compile (see module doc).
COMPILATION_MODE_OPT = ["-DNDEBUG"]
# Bazel compiles the objects of a shared library position-independent.
PIC = ["-fPIC"]
# The names of @local_config_tf//:build_defs.bzl, which tf_configure.bzl writes
# from find_tensorflow.py's description: name -> that description's key.
_BUILD_DEFS = {
    "TF_VERSION": "version",
    "TF_DEFINES": "defines",
    "TF_CXX_STANDARD": "cxx_standard",
    "TF_CXX11_ABI": "cxx11_abi",
    "TF_IS_CUDA_BUILD": "is_cuda_build",
    "PYTHON_BIN_PATH": "python",
}


def load_module(root: str, relative_path: str) -> ModuleType:
    """Imports a script of the workspace (find_tensorflow.py, configure.py) by path."""
    path = os.path.join(root, relative_path)
    name = "_pip_build_" + os.path.basename(path)[:-len(".py")]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bzl_function(root: str, relative_path: str, name: str,
                  loaded: Optional[Dict[str, Any]] = None):
    """A plain function of a .bzl file that also declares rules or loads
    (nvcc_compile.bzl's gencode_flags, library_copts.bzl's host_copts), run as
    Python, as tests/configure_cuda_test.py runs it; `loaded` gives the names
    that the file's load() statements would."""
    import ast  # pylint: disable=g-import-not-at-top
    path = os.path.join(root, relative_path)
    with open(path) as bzl:
        tree = ast.parse(bzl.read(), filename=path)
    nodes = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(nodes) != 1:
        raise TargetError(f"{path}: expected one function {name}(), found {len(nodes)}")
    (node,) = nodes

    def fail(message: str):
        raise TargetError(message)

    scope: Dict[str, Any] = dict(loaded or {}, fail=fail)
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"),  # pylint: disable=exec-used
         scope)
    return scope[name]


@dataclasses.dataclass
class Cuda:
    """The nvcc the build uses and what it compiles for."""
    nvcc: str
    toolkit: str
    gencode: List[str]
    capabilities: List[str]


@dataclasses.dataclass
class Toolchain:
    """Everything a command line needs; built once per build by `find`."""
    root: str
    cxx: List[str]                   # $CXX split, or g++
    tensorflow: Dict[str, Any]       # find_tensorflow.describe_tensorflow()
    constants: Dict[str, Any]        # build_flags.bzl
    xla_include_dir: Optional[str]   # the xla_third_party folder, once made
    cuda: Optional[Cuda]
    jaxlib: Dict[str, Any]           # find_jaxlib.describe_jaxlib()
    # What each library_copts.bzl function returned: the file is read and run
    # once per build, not once per command.
    _library_copts_results: Dict[str, List[str]] = dataclasses.field(
        default_factory=dict, init=False, repr=False)

    def _library_copts(self, function: str) -> List[str]:
        """library_copts.bzl's `function`, given what its load()s give Bazel:
        build_flags.bzl's constants and @local_config_tf//:build_defs.bzl's
        facts, as copies (Bazel's loaded values are frozen, so nothing the
        function does may change them)."""
        if function not in self._library_copts_results:
            loaded = copy.deepcopy(self.constants)
            loaded.update({name: copy.deepcopy(self.tensorflow[key])
                           for name, key in _BUILD_DEFS.items() if key in self.tensorflow})
            try:
                self._library_copts_results[function] = _bzl_function(
                    self.root, LIBRARY_COPTS_BZL, function, loaded)()
            except NameError as error:
                raise TargetError(
                    f"{LIBRARY_COPTS_BZL}: {function}() {error}: the pip build runs only "
                    "that function, with the names of build_flags.bzl and build_defs.bzl "
                    "(tools/pip_build/toolchain.py)") from error
        return list(self._library_copts_results[function])

    def tf_copts(self) -> List[str]:
        """The macros' flags of a C++ source (host_copts())."""
        return self._library_copts("host_copts")

    def _system_includes(self, library: OpLibrary) -> List[str]:
        """TensorFlow's headers (tf_header_lib's `includes`); for a JAX FFI
        library jaxlib's FFI headers instead (@local_config_jax//:ffi_headers),
        which TensorFlow's must not shadow: TensorFlow ships another
        xla/ffi/api."""
        if not library.is_jax_ffi:
            return ["-isystem", self.tensorflow["include_dir"]]
        if not self.jaxlib.get("found"):
            raise TargetError(f"{library.path}: {self.jaxlib.get('reason')}; install "
                              "requirements.txt (jax and jaxlib)")
        return ["-isystem", self.jaxlib["include_dir"]]

    def _includes(self, library: OpLibrary) -> List[str]:
        # Bazel's -iquote of the execution root (sources include workspace paths).
        return ["-iquote", self.root] + library.dep_flags + self._system_includes(library)

    def compile_command(self, library: OpLibrary, source: str, output: str) -> List[str]:
        """A C++ source of an op library, as tf_custom_op_library (or, for its
        kernel_srcs, tf_kernel_library) compiles it; XLA sources also see
        tf2xla's third-party headers (tf_xla_header_lib)."""
        # A tf_kernel_library's sources get the macros' flags, not the copts
        # of the library that links them.
        copts = [] if source in library.kernel_srcs else library.copts
        command = (self.cxx + COMPILATION_MODE_OPT + PIC + self.tf_copts() + copts +
                   self._includes(library))
        if source in library.xla_srcs:
            if self.xla_include_dir is None:
                raise TargetError(f"{source}: XLA kernels need the headers "
                                  f"{self.constants['XLA_THIRD_PARTY_HEADERS']}")
            command += ["-isystem", self.xla_include_dir]
        return command + ["-c", os.path.join(self.root, source), "-o", output]

    def nvcc_command(self, library: OpLibrary, source: str, output: str) -> List[str]:
        """A source of gpu_srcs, as tf_gpu_kernel_library's nvcc_objects compiles
        it: a .cu.cc as CUDA for the chosen GPUs, a host .cc as C++; those of a
        tf_kernel_library (kernel_gpu_srcs) without the library's copts."""
        assert self.cuda is not None
        library_copts = [] if source in library.kernel_gpu_srcs else library.copts
        copts = (self._library_copts("nvcc_copts") +
                 ["-Xcompiler=" + f for f in library_copts])
        includes = (["-I", self.root] + library.dep_flags + self._system_includes(library) +
                    ["-isystem", os.path.join(self.cuda.toolkit, "include")])
        language = (["-x", "cu"] + self.cuda.gencode if source.endswith((".cu.cc", ".cu"))
                    else ["-x", "c++"])
        return ([self.cuda.nvcc] + language + ["-c"] + copts + includes +
                [os.path.join(self.root, source), "-o", output])

    def build_info_command(self, source: str, output: str) -> List[str]:
        # @local_config_tf//:build_info is a plain cc_library: Bazel's flags only.
        return (self.cxx + COMPILATION_MODE_OPT + PIC +
                ["-std=" + self.tensorflow["cxx_standard"], "-c", source, "-o", output])

    def link_command(self, library: OpLibrary, objects: List[str], output: str) -> List[str]:
        """The cc_binary(linkshared = 1) of tf_custom_op_library or of
        jax_ffi_library (which links no TensorFlow and exports only its
        handlers, through the version script `output`.lds)."""
        tf = self.tensorflow
        # //third_party/gpus:cudart_static and its linkopts, which the
        # library's own gpu_srcs and its tf_kernel_library deps' <name>_gpu link.
        cudart = []
        if self.cuda is not None and (library.gpu_srcs or library.kernel_gpu_srcs):
            cudart = [os.path.join(self.cuda.toolkit, "lib64", "libcudart_static.a"),
                      "-ldl", "-lpthread", "-lrt"]
        if library.is_jax_ffi:
            libs = ["-Wl,--version-script=" + output + ".lds"] + cudart
            return (self.cxx + ["-shared", "-o", output] + objects + libs +
                    library.linkopts + self.constants["TF_LINKOPTS"] +
                    self.constants["JAX_FFI_LINKOPTS"])
        libs = ["-L" + tf["lib_dir"]]
        if library.links_xla:
            if not tf["cc_lib"]:
                raise TargetError(f"{library.path} has XLA kernels, but this TensorFlow "
                                  "has no libtensorflow_cc")
            libs.append("-l:" + tf["cc_lib"])
        libs.append("-l:" + tf["framework_lib"])
        libs += cudart
        return (self.cxx + ["-shared", "-o", output] + objects + libs +
                library.linkopts + self.constants["TF_LINKOPTS"])

    def build_info_source(self) -> str:
        return self.constants["build_info_source"](self.tensorflow["version"])


def make_xla_include_dir(constants: Dict[str, Any], build_dir: str) -> Optional[str]:
    """The xla_third_party folder of tf_configure.bzl: links to the system's
    highwayhash/ and farmhash.h only (not all of /usr/include, whose other
    headers would shadow TensorFlow's); None if one is missing."""
    folder = os.path.join(build_dir, "xla_third_party")
    os.makedirs(folder, exist_ok=True)
    for header in constants["XLA_THIRD_PARTY_HEADERS"]:
        found = [root for root in constants["SYSTEM_INCLUDE_ROOTS"]
                 if os.path.exists(os.path.join(root, header))]
        if not found:
            return None
        link = os.path.join(folder, header)
        if not os.path.lexists(link):
            os.symlink(os.path.join(found[0], header), link)
    return folder


def _find_cuda(root: str, tensorflow: Dict[str, Any]) -> Cuda:
    """configure.py's choice of nvcc and compute capabilities, and
    nvcc_compile.bzl's -gencode flags for them."""
    configure = load_module(root, "configure.py")
    nvcc = configure.find_nvcc()
    if nvcc is None:
        raise TargetError("CUDA was asked for but no nvcc was found "
                          "($CUDA_TOOLKIT_PATH/bin, /usr/local/cuda/bin, PATH)")
    capabilities, _ = configure.compute_capabilities(tensorflow, nvcc)
    gencode = _bzl_function(root, _NVCC_COMPILE_BZL, "gencode_flags")(capabilities)
    return Cuda(nvcc.path, nvcc.toolkit, gencode, capabilities)


def find(root: str, build_dir: str, cuda: bool) -> Toolchain:
    """The toolchain of this machine and its TensorFlow."""
    tensorflow = load_module(root, _FIND_TENSORFLOW).describe_tensorflow()
    constants = build_file_reader.read_plain_bzl(os.path.join(root, BUILD_FLAGS_BZL))
    cxx = shlex.split(os.environ.get("CXX", "")) or [shutil.which("g++") or "c++"]
    jaxlib = load_module(root, _FIND_JAXLIB).describe_jaxlib()
    return Toolchain(
        root=root,
        cxx=cxx,
        tensorflow=tensorflow,
        constants=constants,
        xla_include_dir=make_xla_include_dir(constants, build_dir),
        cuda=_find_cuda(root, tensorflow) if cuda else None,
        jaxlib=jaxlib,
    )
