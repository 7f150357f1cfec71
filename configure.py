#!/usr/bin/env python3
"""Prepares this machine to build and test the ops, in one step.

    python3 configure.py                       # .venv from requirements.txt
    python3 configure.py --python /path/python # an interpreter that has TensorFlow
    python3 configure.py --cuda                # also build the GPU kernels (nvcc)

It (1) creates `.venv` and installs requirements.txt into it, unless --python
names an interpreter that already has TensorFlow; (2) installs Bazel
(`bazel-bootstrap`, `bazel-rules-java`) and the headers the XLA kernels need
(`libhighwayhash-dev`, `libfarmhash-dev`) with apt if they are missing on Debian
or Ubuntu; (3) writes `.tf_configure.bazelrc`, which `.bazelrc` imports; and
(4) prints what it found. Running it again only redoes what changed.

CUDA is turned on as TensorFlow's own configure does: with --cuda or
TF_NEED_CUDA=1, or by default when the installed TensorFlow is a CUDA build and
nvcc is found (TF_NEED_CUDA=0 or --no-cuda turns it off). The toolkit is
$CUDA_TOOLKIT_PATH, else /usr/local/cuda, else the nvcc on PATH; the GPUs to
compile for are $TF_CUDA_COMPUTE_CAPABILITIES, else those of TensorFlow's build
that this nvcc supports, else DEFAULT_CAPABILITIES.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from typing import Dict, List, NamedTuple, Optional, Tuple

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV_DIR = os.path.join(ROOT, ".venv")
REQUIREMENTS = os.path.join(ROOT, "requirements.txt")
REQUIREMENTS_STAMP = os.path.join(VENV_DIR, ".requirements-sha256")
BAZELRC = os.path.join(ROOT, ".tf_configure.bazelrc")
FIND_TENSORFLOW = os.path.join(ROOT, "third_party", "tf", "find_tensorflow.py")
FIND_JAXLIB = os.path.join(ROOT, "third_party", "jax", "find_jaxlib.py")
# Debian's Bazel 4 needs its rules_java copy here (the generated rc points at it).
RULES_JAVA_DIR = "/usr/share/bazel/rules/java"
BAZEL_PACKAGES = ["bazel-bootstrap", "bazel-rules-java"]
# Keep in sync with third_party/gpus/cuda_configure.bzl: what CUDA 13 still
# compiles for (Turing and newer), with PTX for GPUs newer than Hopper.
DEFAULT_CAPABILITIES = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "compute_90"]
# tf2xla's headers include these, which the TensorFlow wheel does not ship;
# only the headers are used (third_party/tf/tf_configure.bzl looks for them).
XLA_HEADER_PACKAGES = {"highwayhash/sip_hash.h": "libhighwayhash-dev",
                       "farmhash.h": "libfarmhash-dev"}
SYSTEM_INCLUDE_ROOTS = ["/usr/include", "/usr/local/include"]


def log(message: str) -> None:
    print(f"configure.py: {message}", flush=True)


def fail(message: str) -> None:
    print(f"configure.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def run(command: List[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, **kwargs)


def apt_install(packages: List[str]) -> bool:
    """Installs Debian packages with apt-get; False where apt is not available."""
    if shutil.which("apt-get") is None:
        return False
    prefix: List[str] = []
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            fail(f"installing {' '.join(packages)} needs root; run as root or install sudo")
        prefix = ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    log(f"installing {' '.join(packages)} with apt-get")
    run(prefix + ["apt-get", "update", "-qq"], env=env)
    run(prefix + ["apt-get", "install", "-y", "-qq", *packages], env=env,
        stdout=subprocess.DEVNULL)
    return True


def requirements_digest(python: str) -> str:
    with open(REQUIREMENTS, "rb") as requirements:
        content = requirements.read()
    version = subprocess.run([python, "-c", "import sys; print(sys.version)"],
                             check=True, capture_output=True, text=True).stdout
    return hashlib.sha256(content + version.encode()).hexdigest()


def ensure_venv() -> str:
    """Creates .venv with requirements.txt installed; returns its interpreter."""
    python = os.path.join(VENV_DIR, "bin", "python")
    if not os.path.exists(python):
        log(f"creating {VENV_DIR}")
        if subprocess.run([sys.executable, "-m", "venv", VENV_DIR]).returncode != 0:
            shutil.rmtree(VENV_DIR, ignore_errors=True)
            # Debian ships venv's pip bootstrap separately.
            if not apt_install(["python3-venv"]):
                fail("`python3 -m venv` failed; install the venv module of your Python")
            run([sys.executable, "-m", "venv", VENV_DIR])
    digest = requirements_digest(python)
    try:
        with open(REQUIREMENTS_STAMP) as stamp:
            installed = stamp.read().strip()
    except FileNotFoundError:
        installed = ""
    if installed != digest:
        log("installing requirements.txt into .venv (about a minute the first time)")
        run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
             "-r", REQUIREMENTS])
        with open(REQUIREMENTS_STAMP, "w") as stamp:
            stamp.write(digest + "\n")
    return python


def describe_tensorflow(python: str) -> Dict:
    result = subprocess.run([python, FIND_TENSORFLOW], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{python} has no usable TensorFlow:\n{result.stderr.strip()}")
    return json.loads(result.stdout)


def describe_jaxlib(python: str) -> Dict:
    """Where the interpreter's jaxlib keeps XLA's FFI headers (as the
    jax_configure repository rule finds them), or why there are none."""
    result = subprocess.run([python, FIND_JAXLIB], capture_output=True, text=True)
    if result.returncode != 0:
        return {"found": False, "reason": result.stderr.strip() or "find_jaxlib.py failed"}
    return json.loads(result.stdout)


def ensure_bazel() -> str:
    """Returns a description of the Bazel in use, installing Debian's if needed."""
    missing = shutil.which("bazel") is None or not os.path.isdir(RULES_JAVA_DIR)
    if missing and not apt_install(BAZEL_PACKAGES):
        fail("Bazel was not found and this is not a Debian/Ubuntu system with apt. "
             "Install Bazel 4.2.3 and rules_java, and change RULES_JAVA_DIR in "
             "configure.py to where rules_java lives.")
    bazel = shutil.which("bazel")
    if bazel is None:
        fail(f"apt-get installed {' '.join(BAZEL_PACKAGES)} but `bazel` is not on PATH")
    package = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "bazel-bootstrap"],
        capture_output=True, text=True) if shutil.which("dpkg-query") else None
    if package is not None and package.returncode == 0:
        return f"{bazel} (bazel-bootstrap {package.stdout.strip()})"
    version = subprocess.run([bazel, "--version"], capture_output=True, text=True)
    return f"{bazel} ({version.stdout.strip()})"


def ensure_xla_headers() -> str:
    """Installs the XLA kernels' third-party headers with apt if missing."""
    def missing() -> List[str]:
        return [package for header, package in XLA_HEADER_PACKAGES.items()
                if not any(os.path.exists(os.path.join(root, header))
                           for root in SYSTEM_INCLUDE_ROOTS)]
    packages = missing()
    if packages and not apt_install(packages):
        fail(f"the XLA kernels need the headers of {' '.join(packages)}; install "
             f"them (highwayhash/ and farmhash.h) under {SYSTEM_INCLUDE_ROOTS[0]}")
    if missing():
        fail(f"apt-get installed {' '.join(packages)} but their headers are missing")
    return " and ".join(XLA_HEADER_PACKAGES.values()) + " headers found"


class Nvcc(NamedTuple):
    """The CUDA compiler the cuda_configure rule will use."""
    path: str
    toolkit: str
    release: str  # "13.0"; "" where `nvcc --version` does not say
    targets: List[str]  # sm_XY and compute_XY it can compile for


def find_nvcc() -> Optional[Nvcc]:
    """The nvcc the cuda_configure rule will see (same search order), or None."""
    nvcc = None
    for toolkit in (os.environ.get("CUDA_TOOLKIT_PATH"), "/usr/local/cuda"):
        if toolkit and os.access(os.path.join(toolkit, "bin", "nvcc"), os.X_OK):
            nvcc = os.path.join(toolkit, "bin", "nvcc")
            break
    nvcc = nvcc or shutil.which("nvcc")
    if nvcc is None:
        return None
    toolkit = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))

    def ask(flag: str) -> str:
        return subprocess.run([nvcc, flag], capture_output=True, text=True).stdout

    release = [line.split("release ")[1].split(",")[0]
               for line in ask("--version").splitlines() if "release " in line]
    targets = ask("--list-gpu-code").split() + ask("--list-gpu-arch").split()
    return Nvcc(nvcc, toolkit, release[0] if release else "", targets)


def bazel_release() -> Tuple[int, ...]:
    """The major.minor of the Bazel on PATH; Debian's build says `no_version` (4.2)."""
    output = subprocess.run(["bazel", "--version"], capture_output=True,
                            text=True).stdout.split()
    numbers = output[-1].split(".")[:2] if output else []
    if len(numbers) == 2 and all(n.isdigit() for n in numbers):
        return tuple(int(n) for n in numbers)
    return (4, 2)


def version_flags(release: Tuple[int, ...]) -> List[str]:
    """Flags whose spelling depends on the Bazel release (docs/building.md#bazel-7)."""
    if release < (7, 0):
        # Bazel 4's built-in WORKSPACE suffix and `bazel test` name these
        # repositories; local copies keep it from downloading them.
        overrides = [f"--override_repository={name}={path}" for name, path in (
            ("rules_java", RULES_JAVA_DIR),
            ("rules_cc", os.path.join(ROOT, "third_party", "stand_ins", "rules_cc")),
            ("remote_coverage_tools",
             os.path.join(ROOT, "third_party", "stand_ins", "remote_coverage_tools")))]
        return (["build --experimental_repository_disable_download"] +
                [f"{command} {flag}" for command in ("build", "fetch", "query")
                 for flag in overrides])
    flags = [
        # The workspace is WORKSPACE-based and offline: Bzlmod would fetch the
        # modules Bazel 7 itself depends on from the Bazel Central Registry.
        "common --noenable_bzlmod",
        "build --repository_disable_download",  # renamed in Bazel 7
    ]
    if release >= (7, 1):  # the flag exists from 7.1; Bazel 8 turns WORKSPACE off by default
        flags.insert(1, "common --enable_workspace")
    return flags


def normalize_capability(capability: str) -> str:
    """"7.5" (TensorFlow's spelling) -> "sm_75"; "sm_75" and "compute_90" stay."""
    capability = capability.strip()
    if capability.replace(".", "").isdigit():
        return "sm_" + capability.replace(".", "")
    return capability


def compute_capabilities(tensorflow: Dict, nvcc: Nvcc) -> Tuple[List[str], str]:
    """The GPUs to compile for, and where that list came from."""
    requested = os.environ.get("TF_CUDA_COMPUTE_CAPABILITIES", "")
    if requested:
        return ([normalize_capability(c) for c in requested.split(",") if c.strip()],
                "TF_CUDA_COMPUTE_CAPABILITIES")
    supported = [c for c in tensorflow.get("cuda_compute_capabilities", [])
                 if c in nvcc.targets]
    if supported:
        return supported, f"TensorFlow's build, those nvcc {nvcc.release} supports"
    return DEFAULT_CAPABILITIES, "default"


def want_cuda(flag: Optional[bool], tensorflow: Dict, nvcc: Optional[Nvcc]) -> bool:
    """--cuda/--no-cuda, else TF_NEED_CUDA, else: a CUDA build of TF and nvcc found."""
    if flag is not None:
        return flag
    need = os.environ.get("TF_NEED_CUDA", "")
    if need in ("0", "1"):
        return need == "1"
    return bool(tensorflow["is_cuda_build"]) and nvcc is not None


def version_warning(tensorflow_cuda: str, nvcc_release: str) -> Optional[str]:
    """One sentence when nvcc and TensorFlow's CUDA differ in major version."""
    if not tensorflow_cuda or not nvcc_release:
        return None
    nvcc_major = nvcc_release.split(".")[0]
    if tensorflow_cuda.split(".")[0] == nvcc_major:
        return None
    return (f"nvcc is CUDA {nvcc_release} but TensorFlow was built with CUDA "
            f"{tensorflow_cuda}, so the GPU kernels need a driver that supports "
            f"CUDA {nvcc_major}.")


def write_bazelrc(python: str, tensorflow: Dict, jaxlib: Dict, release: Tuple[int, ...],
                  cuda_lines: List[str]) -> bool:
    """Writes .tf_configure.bazelrc; returns whether its content changed."""
    content = "\n".join([
        "# Generated by configure.py. Do not edit; run configure.py again instead.",
        f"build --repo_env=PYTHON_BIN_PATH={python}",
        # A new TensorFlow re-runs the tf_configure repository rule.
        f"build --repo_env=TF_CONFIGURE_STAMP={tensorflow['version']}",
        # A new jaxlib re-runs the jax_configure repository rule.
        f"build --repo_env=JAX_CONFIGURE_STAMP={jaxlib.get('jaxlib_version', 'none')}",
        # Everything comes from this machine: fail fast instead of downloading.
        f"# Bazel {'.'.join(map(str, release))}:",
        *version_flags(release),
        *cuda_lines,
        "",
    ])
    if os.path.exists(BAZELRC):
        with open(BAZELRC) as existing:
            if existing.read() == content:
                return False
    with open(BAZELRC, "w") as bazelrc:
        bazelrc.write(content)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", help="an interpreter that already has TensorFlow; "
                        "no .venv is created")
    parser.add_argument("--cuda", action=argparse.BooleanOptionalAction, default=None,
                        help="build the GPU kernels with nvcc (default: when TensorFlow "
                        "is a CUDA build and nvcc is found, or TF_NEED_CUDA=1)")
    args = parser.parse_args()

    if args.python:
        # Not realpath: a virtual environment's python is a link that must stay one.
        python = os.path.abspath(shutil.which(args.python) or args.python)
        if not os.access(python, os.X_OK):
            fail(f"--python {args.python} is not an executable")
    else:
        python = ensure_venv()
    tensorflow = describe_tensorflow(python)
    jaxlib = describe_jaxlib(python)
    bazel = ensure_bazel()
    xla_headers = ensure_xla_headers()
    nvcc = find_nvcc()
    cuda = want_cuda(args.cuda, tensorflow, nvcc)
    cuda_lines: List[str] = []
    cuda_row = "off (CPU kernels only; --cuda turns the GPU kernels on)"
    if cuda:
        if nvcc is None:
            fail("CUDA was asked for but no nvcc was found: set CUDA_TOOLKIT_PATH to "
                 "the CUDA toolkit, or put nvcc on PATH")
        capabilities, source = compute_capabilities(tensorflow, nvcc)
        cuda_lines = [
            "build --config=cuda",
            f"build --repo_env=CUDA_TOOLKIT_PATH={nvcc.toolkit}",
            f"build --repo_env=TF_CUDA_COMPUTE_CAPABILITIES={','.join(capabilities)}",
        ]
        cuda_row = f"on, for {','.join(capabilities)} ({source})"
    changed = write_bazelrc(python, tensorflow, jaxlib, bazel_release(), cuda_lines)

    build = "CUDA build" if tensorflow["is_cuda_build"] else "CPU build"
    rows = [
        ("Python", python),
        ("TensorFlow", f"{tensorflow['version']} ({build}) at "
                       f"{os.path.dirname(tensorflow['include_dir'])}"),
        ("C++11 ABI", f"_GLIBCXX_USE_CXX11_ABI={tensorflow['cxx11_abi']}"),
        ("C++ standard", tensorflow["cxx_standard"]),
        ("Defines", " ".join(tensorflow["defines"])),
        ("jaxlib FFI headers", f"{jaxlib['include_dir']} (jaxlib {jaxlib['jaxlib_version']})"
                               if jaxlib["found"] else
                               f"none: {jaxlib['reason']} (building the JAX FFI library fails)"),
        ("Bazel", bazel),
        ("XLA kernel headers", xla_headers),
        ("nvcc", f"{nvcc.path} (CUDA {nvcc.release or 'unknown'})" if nvcc
                 else "not found (GPU kernels are not built)"),
        ("TensorFlow's CUDA", tensorflow.get("cuda_version") or "none (CPU build)"),
        ("GPU kernels", cuda_row),
        (".tf_configure.bazelrc", "written" if changed else "unchanged"),
    ]
    log("ready")
    for label, value in rows:
        print(f"  {label:<22} {value}")
    warning = version_warning(tensorflow.get("cuda_version", ""),
                              nvcc.release) if cuda else None
    if warning:
        log(f"warning: {warning}")
    print("Next: bazel build :my_bilinear_op.so    then: bazel test //...")


if __name__ == "__main__":
    main()
