"""Reads a BUILD file into a list of calls, without Bazel.

BUILD files are Starlark, whose syntax is a subset of Python's. Running one with
Python, where every rule and macro is a function that only records its
arguments, gives the exact list of targets the file declares (list
comprehensions, concatenations and constants included), which is what the
vendoring tool and the macro-argument check need. `glob()` is evaluated against
the package folder; `select()` is kept as an opaque value. A symbol loaded from a
.bzl file of the workspace that loads nothing and declares no rule (a list of
constants, such as tensorflow_ops/op_packages.bzl) is evaluated; any other loaded
symbol is a macro, whose calls are recorded.
"""

import ast
import dataclasses
import glob as _glob
import os
from typing import Any, Dict, List, Optional


@dataclasses.dataclass
class Select:
    """A `select()` value: its branches, uninterpreted."""
    branches: Dict[str, Any]


@dataclasses.dataclass
class Call:
    """One top-level rule or macro call of a BUILD file."""
    kind: str            # the function name as the BUILD file spells it
    kwargs: Dict[str, Any]
    positional: List[Any]
    loaded_from: Optional[str]  # the .bzl label it was loaded from; None if native
    line: int

    @property
    def name(self) -> str:
        return self.kwargs.get("name", "")


@dataclasses.dataclass
class BuildFile:
    path: str
    calls: List[Call]
    loads: Dict[str, str]  # local symbol -> .bzl label


# Functions evaluated rather than recorded.
_EVALUATED = {"load", "glob", "select"}

# What Starlark code evaluated with Python may use.
_BUILTINS = {"len": len, "sorted": sorted, "range": range, "dict": dict, "list": list,
             "str": str}


def _workspace_root(folder: str) -> Optional[str]:
    """The nearest folder at or above `folder` that holds a WORKSPACE file."""
    while True:
        if os.path.isfile(os.path.join(folder, "WORKSPACE")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _bzl_path(label: str, package_dir: str) -> Optional[str]:
    """The file a load() label names, for labels of this workspace."""
    if label.startswith(":"):
        return os.path.join(package_dir, label[1:])
    if not label.startswith("//"):
        return None  # another repository
    root = _workspace_root(package_dir)
    if root is None:
        return None
    package, _, name = label[2:].partition(":")
    return os.path.join(root, package, name)


def _plain_definitions(path: Optional[str]) -> Dict[str, Any]:
    """The top-level definitions of a .bzl file that loads nothing and declares
    no rule (no `native.`), so that plain Python evaluates it as Bazel would;
    empty for any other file, whose symbols are then macros."""
    if path is None or not os.path.isfile(path):
        return {}
    with open(path) as bzl:
        tree = ast.parse(bzl.read(), filename=path)
    if any(isinstance(node, ast.Name) and node.id in ("load", "native")
           for node in ast.walk(tree)):
        return {}
    scope: Dict[str, Any] = {"__builtins__": dict(_BUILTINS)}
    exec(compile(tree, path, "exec"), scope)  # pylint: disable=exec-used
    return scope


def read_plain_bzl(path: str) -> Dict[str, Any]:
    """The public top-level definitions of a .bzl file of plain values and
    functions (such as third_party/tf/build_flags.bzl), evaluated with Python.

    Raises:
      ValueError: the file is missing, loads something or declares a rule.
    """
    scope = _plain_definitions(path)
    if not scope:
        raise ValueError(f"{path} is not a plain .bzl file (missing, or it uses "
                         "load() or native)")
    return {name: value for name, value in scope.items() if not name.startswith("_")}


def read_build_file(path: str) -> BuildFile:
    """Evaluates the BUILD file at `path` and returns the calls it makes."""
    with open(path) as build_file:
        return read_build_file_text(build_file.read(), path)


def read_build_file_text(source: str, path: str = "BUILD") -> BuildFile:
    """Evaluates BUILD file text; `glob()` looks in the folder of `path`."""
    package_dir = os.path.dirname(os.path.abspath(path))
    tree = ast.parse(source, filename=path)
    calls: List[Call] = []
    loads: Dict[str, str] = {}
    current_line = [0]

    def recorder(kind: str):
        def record(*positional, **kwargs):
            # Bazel reads an attribute given None as not given at all.
            kwargs = {key: value for key, value in kwargs.items() if value is not None}
            if kind not in _EVALUATED:
                calls.append(Call(kind, kwargs, list(positional), loads.get(kind),
                                  current_line[0]))
            return None
        return record

    def load(label: str, *symbols: str, **aliases: str) -> None:
        definitions = _plain_definitions(_bzl_path(label, package_dir))
        for local, symbol in [(s, s) for s in symbols] + list(aliases.items()):
            loads[local] = label
            scope[local] = definitions.get(symbol, recorder(local))

    def glob(include: List[str], exclude: List[str] = (), **_unused) -> List[str]:
        found = set()
        for pattern in include:
            found.update(_glob.glob(pattern, root_dir=package_dir, recursive=True))
        for pattern in exclude:
            found.difference_update(
                _glob.glob(pattern, root_dir=package_dir, recursive=True))
        return sorted(f for f in found if os.path.isfile(os.path.join(package_dir, f))
                      and not _in_subpackage(package_dir, f))

    scope: Dict[str, Any] = {"__builtins__": dict(_BUILTINS)}
    # Any name called but never defined is a native rule (cc_library, py_test, ...).
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            scope.setdefault(node.func.id, recorder(node.func.id))
    scope.update(load=load, glob=glob, select=lambda branches, **_: Select(branches))
    for statement in tree.body:
        current_line[0] = statement.lineno
        module = ast.Module(body=[statement], type_ignores=[])
        exec(compile(module, path, "exec"), scope)  # pylint: disable=exec-used
    return BuildFile(path, calls, loads)


def _in_subpackage(package_dir: str, relative: str) -> bool:
    """Whether a file lies under a folder of the package that has a BUILD file
    of its own: Bazel's glob does not cross into another package."""
    folder = os.path.dirname(relative)
    while folder:
        if any(os.path.isfile(os.path.join(package_dir, folder, name))
               for name in ("BUILD", "BUILD.bazel")):
            return True
        folder = os.path.dirname(folder)
    return False


def default_py_main(name: str, srcs: List[str]) -> Optional[str]:
    """The file of `srcs` that Bazel runs for a py_test or py_binary `name`
    without `main`: the one named <name>.py, in any folder; None if none is."""
    return next((src for src in srcs if os.path.basename(src) == name + ".py"), None)


def files_of(value: Any) -> List[str]:
    """The plain file names (not labels) in a srcs/hdrs/data value."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        return []
    return [v for v in value if isinstance(v, str) and not v.startswith((":", "//", "@"))]
