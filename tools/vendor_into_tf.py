#!/usr/bin/env python3
"""Copies an op folder of this workspace into a TensorFlow source tree.

    tools/vendor_into_tf.py --tf-source ~/tensorflow                 # MyBilinear
    tools/vendor_into_tf.py --tf-source ~/tensorflow --op tensorflow_ops/zero_out
    tools/vendor_into_tf.py --tf-source ~/tensorflow --dry-run       # only print

It copies the op's C++ and CUDA sources, its TensorFlow-free headers, its Python
wrapper and tests (and the workspace helpers they import), rewrites include paths
and Python imports for the destination package, and writes a BUILD file that uses
TensorFlow's in-tree macros (tools/vendor_build.py says which). What it writes is
listed in VENDOR_MANIFEST.json in the destination: running it again updates only
those files, and it refuses to overwrite a file it did not write or that was
edited since.
"""

import argparse
import dataclasses
import hashlib
import json
import os
import sys
from typing import Dict, List, Optional

if __package__ in (None, ""):  # run as a script: make `tools` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import build_file_reader  # pylint: disable=wrong-import-position
from tools import vendor_build  # pylint: disable=wrong-import-position
from tools import vendor_python  # pylint: disable=wrong-import-position
from tools.vendor_python import VendorError  # pylint: disable=wrong-import-position

# `bazel run` starts the tool in its runfiles; it reads the op from the workspace.
WORKSPACE_ROOT = (os.environ.get("BUILD_WORKSPACE_DIRECTORY") or
                  os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST = "VENDOR_MANIFEST.json"
DEFAULT_DEST_PARENT = "tensorflow/examples/custom_ops_doc"
_PACKAGE = vendor_python.SOURCE_PACKAGE
_LOADER_LABEL = f"//{_PACKAGE}:{vendor_python.LOADER_MODULE}"
_CC_SUFFIXES = (".cc", ".h", ".cu.cc", ".cu.h")


@dataclasses.dataclass
class Plan:
    """The files to write, by path relative to the destination package."""
    files: Dict[str, str]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _helpers(calls: List[build_file_reader.Call], workspace: str) -> Dict[str, List[str]]:
    """Workspace-level py_library targets the op uses: label -> their .py files."""
    wanted = {dep for call in calls for dep in call.kwargs.get("deps", []) or []
              if isinstance(dep, str) and dep.startswith(f"//{_PACKAGE}:")
              and dep != _LOADER_LABEL}
    if not wanted:
        return {}
    shared = build_file_reader.read_build_file(os.path.join(workspace, _PACKAGE, "BUILD"))
    helpers = {}
    for call in shared.calls:
        label = f"//{_PACKAGE}:{call.name}"
        if label in wanted and call.kind == "py_library":
            helpers[label] = [f for f in build_file_reader.files_of(call.kwargs["srcs"])
                              if f != "__init__.py"]
    missing = wanted - set(helpers)
    if missing:
        raise VendorError(f"{sorted(missing)} are not py_library targets of "
                          f"{_PACKAGE}/BUILD; only those can be vendored beside an op")
    return helpers


# Targets tagged so stay in this workspace: MyBilinear's JAX side (the FFI
# library and jax_ops, docs/jax.md) needs jaxlib, which a TensorFlow tree has not.
WORKSPACE_ONLY_TAG = "workspace_only"


def _workspace_only(call: build_file_reader.Call) -> bool:
    tags = call.kwargs.get("tags") or []
    return isinstance(tags, list) and WORKSPACE_ONLY_TAG in tags


def _referenced_files(calls: List[build_file_reader.Call], op_path: str) -> List[str]:
    files = set()
    for call in calls:
        for value in call.kwargs.values():
            files.update(f for f in build_file_reader.files_of(value)
                         if os.path.isfile(os.path.join(op_path, f)))
    return sorted(files)


def make_plan(op_dir: str, dest: str, workspace: Optional[str] = None) -> Plan:
    """Everything the destination package will hold, computed without writing."""
    workspace = workspace or WORKSPACE_ROOT
    op_dir = op_dir.strip("/")
    op_path = os.path.join(workspace, op_dir)
    build = build_file_reader.read_build_file(os.path.join(op_path, "BUILD"))
    # Left out, with their labels in the deps and data of the others.
    dropped = {":" + call.name for call in build.calls if _workspace_only(call)}
    build.calls = [call for call in build.calls if not _workspace_only(call)]
    helpers = _helpers(build.calls, workspace)
    helper_targets = {label: label.split(":")[1] for label in helpers}
    op_module = op_dir.replace("/", ".")
    dest_module = dest.replace("/", ".")
    # Every module of the vendored helpers (fresh_process also has saved_call_probe).
    helper_modules = [os.path.splitext(src)[0].replace("/", ".")
                      for srcs in helpers.values() for src in srcs]

    library_dir = ""
    files: Dict[str, str] = {}
    python_deps: Dict[str, List[str]] = {}
    includes: Dict[str, List[str]] = {}
    sources = [(f, os.path.join(op_path, f)) for f in _referenced_files(build.calls, op_path)]
    helper_files = {}
    for label, srcs in helpers.items():
        for src in srcs:
            helper_files[src] = label
            sources.append((src, os.path.join(workspace, _PACKAGE, src)))
    for relative, source in sources:
        with open(source) as handle:
            text = handle.read()
        if relative.endswith(".py"):
            text, deps = vendor_python.rewrite_python(
                text, relative, op_module, dest_module, helper_modules, library_dir)
            python_deps[relative] = sorted(deps)
        elif relative.endswith(_CC_SUFFIXES):
            includes[relative] = vendor_python.own_includes(text, op_dir)
            text = vendor_python.rewrite_cc(text, relative, op_dir, dest)
        if relative in files:
            raise VendorError(f"{relative} exists both in {op_dir} and {_PACKAGE}/")
        files[relative] = text

    ctx = vendor_build.Context(op_dir, helper_targets, _LOADER_LABEL, python_deps,
                               includes=includes, dropped=dropped)
    out = vendor_build.translate(build.calls, ctx)
    for label, srcs in helpers.items():
        out.append(vendor_build.OutCall("py_strict_library", {
            "name": helper_targets[label], "srcs": srcs, "testonly": 1,
            "deps": sorted({d for s in srcs for d in python_deps[s]})},
            f"Copied from {label}."))
    problems = vendor_build.check(out, f"{dest}/BUILD")
    if problems:
        raise VendorError("the BUILD file would not suit TensorFlow's macros:\n  " +
                          "\n  ".join(problems))
    header = (f"# Vendored from {op_dir} of the tensorflow_ops workspace by\n"
              "# tools/vendor_into_tf.py. Change the op there and run the tool again;\n"
              f"# it rewrites the files listed in {MANIFEST}.\n")
    files["BUILD"] = vendor_build.render(out, header)
    return Plan(files)


def _read_manifest(dest_path: str) -> Dict[str, str]:
    try:
        with open(os.path.join(dest_path, MANIFEST)) as manifest:
            return json.load(manifest)["files"]
    except FileNotFoundError:
        return {}


def _current_sha(path: str) -> Optional[str]:
    try:
        with open(path) as handle:
            return _sha256(handle.read())
    except FileNotFoundError:
        return None


def apply_plan(plan: Plan, dest_path: str, dry_run: bool) -> List[str]:
    """Writes the plan into dest_path; returns one line per file saying what happened."""
    written = _read_manifest(dest_path)
    refused, actions = [], []
    for relative in sorted(set(plan.files) | set(written)):
        path = os.path.join(dest_path, relative)
        current = _current_sha(path)
        if current is not None and relative not in written:
            refused.append(f"{path} exists and was not written by this tool")
        elif current is not None and current != written[relative]:
            refused.append(f"{path} was changed since this tool wrote it")
        elif relative not in plan.files:
            actions.append(("remove", relative))
        elif current == _sha256(plan.files[relative]):
            actions.append(("unchanged", relative))
        else:
            actions.append(("update" if current else "write", relative))
    if refused:
        raise VendorError("refusing to overwrite files:\n  " + "\n  ".join(refused) +
                          "\nMove them away or choose another --dest.")
    report = [f"{'would ' if dry_run else ''}{action} {os.path.join(dest_path, rel)}"
              for action, rel in actions]
    if dry_run:
        return report
    for action, relative in actions:
        path = os.path.join(dest_path, relative)
        if action == "remove":
            if os.path.exists(path):
                os.remove(path)
        elif action in ("write", "update"):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(plan.files[relative])
    with open(os.path.join(dest_path, MANIFEST), "w") as manifest:
        json.dump({"tool": "tools/vendor_into_tf.py",
                   "files": {rel: _sha256(text) for rel, text in sorted(plan.files.items())}},
                  manifest, indent=2)
        manifest.write("\n")
    return report


def check_tf_source(tf_source: str) -> None:
    marker = os.path.join(tf_source, "tensorflow", "tensorflow.bzl")
    if not os.path.isfile(marker):
        raise VendorError(f"{tf_source} is not a TensorFlow source tree: {marker} "
                          "does not exist. Pass the root of a TensorFlow checkout "
                          "(the folder holding WORKSPACE and tensorflow/).")


def _is_package_path(path: str) -> bool:
    """A/b/c with Python identifiers only: the path is also a module name."""
    return all(part.isidentifier() for part in path.split("/"))


def op_folder(value: str) -> str:
    """--op as a path in the workspace; raises ValueError saying what is wrong."""
    path = value
    if os.path.isabs(path):
        path = os.path.relpath(os.path.realpath(path), os.path.realpath(WORKSPACE_ROOT))
    path = os.path.normpath(path).strip("/")
    if path.startswith("..") or not path.startswith(_PACKAGE + "/"):
        raise ValueError(f"{value} is not an op folder of this workspace; pass "
                         f"{_PACKAGE}/<op>, e.g. {_PACKAGE}/zero_out")
    if not _is_package_path(path):
        raise ValueError(f"{value}: each folder name must be a Python identifier")
    if not os.path.isfile(os.path.join(WORKSPACE_ROOT, path, "BUILD")):
        raise ValueError(f"{value} has no BUILD file in {WORKSPACE_ROOT}")
    return path


def dest_package(value: str) -> str:
    """--dest as a package path; raises ValueError saying what is wrong."""
    dest = value.strip("/")
    if not dest.startswith("tensorflow/") or not _is_package_path(dest):
        raise ValueError(f"{value!r} must be a package under tensorflow/ whose folder "
                         "names are Python identifiers (no '..', spaces or dashes), "
                         "e.g. tensorflow/examples/custom_ops_doc/my_op")
    return dest


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tf-source", required=True, metavar="PATH",
                        help="root of the TensorFlow source tree")
    parser.add_argument("--op", default=f"{_PACKAGE}/my_bilinear",
                        help="op folder of this workspace (default: %(default)s)")
    parser.add_argument("--dest", help="package path inside the tree "
                        f"(default: {DEFAULT_DEST_PARENT}/<op folder name>)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would be written, write nothing")
    args = parser.parse_args(argv)
    try:
        op_dir = op_folder(args.op)
        dest = dest_package(args.dest or
                            f"{DEFAULT_DEST_PARENT}/{os.path.basename(op_dir)}")
    except ValueError as error:
        parser.error(str(error))  # exits with status 2
    try:
        check_tf_source(args.tf_source)
        plan = make_plan(op_dir, dest)
        report = apply_plan(plan, os.path.join(args.tf_source, dest), args.dry_run)
    except (VendorError, OSError) as error:
        print(f"vendor_into_tf.py: error: {error}", file=sys.stderr)
        return 1
    print("\n".join(report))
    print(f"vendor_into_tf.py: {'would vendor' if args.dry_run else 'vendored'} "
          f"{op_dir} into //{dest} ({len(plan.files)} files)")
    if not args.dry_run:
        print(f"Next: cd {args.tf_source} && bazel test //{dest}:all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
