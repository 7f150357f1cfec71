"""Builds the pip wheel of every op package: `bazel run //:build_pip_pkg -- OUT_DIR`.

The wheel holds the `tensorflow_ops` Python package with each op's compiled
library, exactly as Bazel's runfiles of //tensorflow_ops:all_ops have them. Its
platform tag is the manylinux tag that `auditwheel show` reports for those
libraries, with libtensorflow_framework (which the installed TensorFlow provides)
as the only external library allowed. It does not require TensorFlow, so that
installing it never brings a second TensorFlow distribution next to the one
installed (`tensorflow` and `tensorflow-cpu` are two distributions of one
module); extras name the matching release for a fresh environment.
"""

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Collection, Dict, List, Optional, Tuple

from elftools.elf.elffile import ELFFile

import tensorflow_ops
from tensorflow_ops import library_loader

DISTRIBUTION = "tensorflow-ops-bazel"
VERSION = "0.1.0"

# Libraries the wheel may need without shipping them: the installed TensorFlow
# provides them, and loading a second copy would break TensorFlow.
TENSORFLOW_LIBRARIES = frozenset(["libtensorflow_framework.so.2", "libtensorflow_cc.so.2"])

# Tests are no part of the wheel (test-only libraries are not in the runfiles).
_TEST_ONLY = re.compile(r"_test\.py$")

# How an op library is declared in a BUILD file.
_OP_LIBRARY_RULE = re.compile(
    r"(?:tf_custom_op_library|jax_ffi_library)\(\s*name\s*=\s*\"([^\"]+)\"")


def stage_package(staging_dir: str, package_dir: Optional[str] = None,
                  python_files: Optional[Collection[str]] = None) -> List[str]:
    """Copies the tensorflow_ops package (sources and op libraries, no tests) into
    `staging_dir`; returns the op libraries as paths relative to it.

    Args:
      staging_dir: the wheel's root folder.
      package_dir: the tensorflow_ops folder to copy; by default the imported one
        (Bazel's runfiles of //tensorflow_ops:all_ops, with the op libraries).
      python_files: when given, only these .py files (paths like
        tensorflow_ops/my_bilinear/__init__.py) and no library: the pip build,
        which copies from the source tree what those runfiles would hold and
        adds the libraries it compiled.
    """
    package_dir = package_dir or os.path.dirname(os.path.abspath(tensorflow_ops.__file__))
    libraries = []
    for folder, _, files in os.walk(package_dir):
        relative_folder = os.path.relpath(folder, os.path.dirname(package_dir))
        for name in files:
            is_library = name.endswith(".so")
            if python_files is not None and (
                    is_library or os.path.join(relative_folder, name) not in python_files):
                continue
            if not (is_library or name.endswith(".py")) or _TEST_ONLY.search(name):
                continue
            target = os.path.join(staging_dir, relative_folder, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(folder, name), target)
            if is_library:
                os.chmod(target, 0o755)
                libraries.append(os.path.join(relative_folder, name))
    return sorted(libraries)


# Op folders that build an op library the wheel leaves out: the template op
# that tools/new_op.py copies (built and tested by //..., never shipped).
NOT_SHIPPED = ("tensorflow_ops/op_template",)


def declared_op_libraries(workspace: str) -> List[str]:
    """Every tf_custom_op_library and jax_ffi_library under tensorflow_ops/ of
    the source tree that the wheel ships, as paths like
    tensorflow_ops/my_bilinear/my_bilinear_op.so."""
    declared = []
    for folder, _, files in os.walk(os.path.join(workspace, "tensorflow_ops")):
        if "BUILD" not in files or os.path.relpath(folder, workspace) in NOT_SHIPPED:
            continue
        with open(os.path.join(folder, "BUILD")) as build_file:
            names = _OP_LIBRARY_RULE.findall(build_file.read())
        relative_folder = os.path.relpath(folder, workspace)
        declared.extend(os.path.join(relative_folder, name) for name in names)
    return sorted(declared)


def links_tensorflow(library_path: str) -> bool:
    """Whether the library needs libtensorflow_framework (an op library does;
    a JAX FFI library, which links nothing of TensorFlow, does not)."""
    with open(library_path, "rb") as library_file:
        dynamic = ELFFile(library_file).get_section_by_name(".dynamic")
        needed = [tag.needed for tag in dynamic.iter_tags()
                  if tag.entry.d_tag == "DT_NEEDED"] if dynamic else []
    return any(name.startswith("libtensorflow_framework.so") for name in needed)


def built_against(staging_dir: str, libraries: List[str]) -> str:
    """The TensorFlow version that every op library records; they must agree.
    Libraries that link nothing of TensorFlow (JAX FFI libraries) record none."""
    versions = {path: library_loader.built_against(os.path.join(staging_dir, path))
                for path in libraries
                if links_tensorflow(os.path.join(staging_dir, path))}
    if len(set(versions.values())) != 1 or None in versions.values():
        raise SystemExit(f"Op libraries disagree on their TensorFlow version: {versions}")
    return next(iter(versions.values()))


def metadata(tensorflow_version: str) -> str:
    """Core metadata: no unconditional TensorFlow requirement (see module doc)."""
    release = ".".join(tensorflow_version.split(".")[:2])
    pin = f"~={release}.0"
    return "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {DISTRIBUTION}",
        f"Version: {VERSION}",
        f"Summary: TensorFlow custom ops (MyBilinear and more), built against "
        f"TensorFlow {release}",
        "Requires-Python: >=3.10",
        "Provides-Extra: tensorflow",
        f'Requires-Dist: tensorflow{pin}; extra == "tensorflow"',
        "Provides-Extra: tensorflow-cpu",
        f'Requires-Dist: tensorflow-cpu{pin}; extra == "tensorflow-cpu"',
        "",
        f"Op libraries compiled against TensorFlow {tensorflow_version}. Install it "
        f"next to TensorFlow {release} (or add the extra tensorflow or "
        f"tensorflow-cpu in a fresh environment).",
        "",
    ])


def write_build_info(staging_dir: str, tensorflow_version: str) -> None:
    release = ".".join(tensorflow_version.split(".")[:2])
    with open(os.path.join(staging_dir, "tensorflow_ops", "_build_info.py"), "w") as info:
        info.write('"""Written by tools/build_pip_pkg.py: the TensorFlow these op '
                   'libraries were built against."""\n\n'
                   f'TENSORFLOW_VERSION = "{tensorflow_version}"\n'
                   f'TENSORFLOW_RELEASE = "{release}"\n')


def write_dist_info(staging_dir: str, tensorflow_version: str) -> None:
    dist_info = os.path.join(
        staging_dir, f"{DISTRIBUTION.replace('-', '_')}-{VERSION}.dist-info")
    os.makedirs(dist_info)
    with open(os.path.join(dist_info, "METADATA"), "w") as metadata_file:
        metadata_file.write(metadata(tensorflow_version))
    # The op libraries do not link libpython: any Python 3 on this platform.
    with open(os.path.join(dist_info, "WHEEL"), "w") as wheel_file:
        wheel_file.write("Wheel-Version: 1.0\nGenerator: tools/build_pip_pkg.py\n"
                         f"Root-Is-Purelib: false\nTag: py3-none-linux_{platform.machine()}\n")


def run(*command: str) -> str:
    """Runs a tool; its output goes into the error if it fails."""
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return result.stdout


def manylinux_tag(wheel: str) -> str:
    """The tag `auditwheel show` gives the libraries, once TensorFlow's own
    libraries are set aside; any other external library is an error."""
    report: Dict = json.loads(run(sys.executable, "-m", "auditwheel", "show", "--json",
                                  wheel))
    others = sorted(set(report["external_libs"]) - TENSORFLOW_LIBRARIES)
    if others:
        raise SystemExit(f"The op libraries need {others}, which a wheel cannot "
                         "assume; link them statically.")
    return report["sym_tag"]


def check_complete(workspace: str, libraries: List[str]) -> None:
    """Refuses a wheel that would miss an op library of the source tree."""
    declared = declared_op_libraries(workspace)
    if not declared:
        raise SystemExit(f"No tf_custom_op_library under {workspace}/tensorflow_ops.")
    missing = sorted(set(declared) - set(libraries))
    if missing:
        raise SystemExit(
            f"The wheel would miss {missing}: add each op package to "
            "OP_PACKAGES in tensorflow_ops/op_packages.bzl (tools/new_op.py "
            "does it for the ops it generates).")


def pack_wheel(staging_dir: str, libraries: List[str], out_dir: str,
               work_dir: str) -> Tuple[str, str, str]:
    """Writes the version markers into a staged package, packs it and gives it
    auditwheel's platform tag; returns (wheel path in out_dir, the TensorFlow
    version the libraries were built against, the tag)."""
    tensorflow_version = built_against(staging_dir, libraries)
    write_build_info(staging_dir, tensorflow_version)
    write_dist_info(staging_dir, tensorflow_version)
    linux_dir = os.path.join(work_dir, "linux")
    os.makedirs(linux_dir)
    run(sys.executable, "-m", "wheel", "pack", staging_dir, "-d", linux_dir)
    linux_wheel = os.path.join(linux_dir, os.listdir(linux_dir)[0])
    tag = manylinux_tag(linux_wheel)
    run(sys.executable, "-m", "wheel", "tags", "--remove", "--platform-tag", tag,
        linux_wheel)
    (wheel_name,) = [name for name in os.listdir(linux_dir) if tag in name]
    os.makedirs(out_dir, exist_ok=True)
    shutil.move(os.path.join(linux_dir, wheel_name), os.path.join(out_dir, wheel_name))
    return os.path.join(out_dir, wheel_name), tensorflow_version, tag


def build_wheel(out_dir: str, workspace: Optional[str]) -> str:
    """Builds the wheel into `out_dir`; returns its path."""
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work_dir:
        staging_dir = os.path.join(work_dir, "staging")
        libraries = stage_package(staging_dir)
        if workspace:
            check_complete(workspace, libraries)
        wheel, tensorflow_version, tag = pack_wheel(staging_dir, libraries, out_dir,
                                                    work_dir)
    print(f"Built {wheel}")
    print(f"  op libraries: {', '.join(libraries)}")
    print(f"  TensorFlow:   built against {tensorflow_version}; platform tag {tag}")
    return wheel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", help="folder to write the wheel into")
    parser.add_argument(
        "--workspace", default=os.environ.get("BUILD_WORKSPACE_DIRECTORY"),
        help="source tree whose op libraries must all be in the wheel "
             "(default: the one `bazel run` was started in)")
    args = parser.parse_args()
    # `bazel run` starts in the runfiles; a relative OUT_DIR means the caller's folder.
    base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
    build_wheel(os.path.join(base, args.out_dir), args.workspace)


if __name__ == "__main__":
    main()
