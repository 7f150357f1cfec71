"""Rewrites of copied source files for their place in a TensorFlow tree.

C++: `#include "tensorflow_ops/<op>/..."` becomes `#include "<dest>/..."`.
Python: imports of `tensorflow_ops.<op>` become imports of the destination
package; the workspace's `library_loader.load_op_library(...)` becomes the
in-tree idiom `load_library.load_op_library(resource_loader.get_path_to_datafile(...))`
(as tensorflow/examples/custom_ops_doc does); workspace helpers such as
`tensorflow_ops.test_util` are imported from their vendored copy, and named by
it where a string or comment names them (`python -m tensorflow_ops.saved_call_probe`).
"""

import ast
import json
import os
import re
import sys
from typing import Dict, Iterable, List, Set, Tuple

SOURCE_PACKAGE = "tensorflow_ops"
LOADER_MODULE = "library_loader"

# Third-party Python imports and the in-tree targets that provide them.
IMPORT_DEPS: Dict[str, str] = {
    "tensorflow": "//tensorflow:tensorflow_py",
    "numpy": "//third_party/py/numpy",
    "keras": "//third_party/py/keras",
    "absl.testing.parameterized": "@absl_py//absl/testing:parameterized",
    "absl.testing.absltest": "@absl_py//absl/testing:absltest",
    "absl.flags": "@absl_py//absl/flags",
    "absl.app": "@absl_py//absl:app",
    "absl.logging": "@absl_py//absl/logging",
    # The property tests; TensorFlow's pip repositories are named pypi_<package>.
    "hypothesis": "@pypi_hypothesis//:pkg",
    # jax_ops (JAX through the op's FFI library, which the tree does not build).
    "jax": "@pypi_jax//:pkg",
}

_INCLUDE = re.compile(r'^(\s*#\s*include\s+")(%s/[^"]*)(")' % SOURCE_PACKAGE, re.M)


class VendorError(Exception):
    """A source that the tool cannot carry into the tree as it is."""


def _guard(path: str) -> str:
    return re.sub(r"[^A-Z0-9]", "_", path.upper()) + "_"


def rewrite_cc(text: str, path: str, op_dir: str, dest: str) -> str:
    """Points includes (and header guards, and paths in comments) at the destination."""
    for match in _INCLUDE.finditer(text):
        if not match.group(2).startswith(op_dir + "/"):
            raise VendorError(f"{path}: includes {match.group(2)}, outside {op_dir}; "
                              "vendor that code into the tree first")
    return text.replace(op_dir + "/", dest + "/").replace(_guard(op_dir), _guard(dest))


def own_includes(text: str, op_dir: str) -> List[str]:
    """The files of the op folder that a C++ source includes, as paths in the folder."""
    prefix = op_dir + "/"
    return [m.group(2)[len(prefix):] for m in _INCLUDE.finditer(text)
            if m.group(2).startswith(prefix)]


def _module_deps(module: str) -> Set[str]:
    """In-tree deps for an imported third-party module; raises if unknown."""
    top = module.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return set()
    for prefix in sorted(IMPORT_DEPS, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return {IMPORT_DEPS[prefix]}
    if top == "absl":  # `from absl.testing import parameterized`
        return set()
    raise VendorError(f"import of {module} has no in-tree target; add it to "
                      "IMPORT_DEPS in tools/vendor_python.py")


def rewrite_python(text: str, path: str, op_module: str, dest_module: str,
                   helpers: Iterable[str], library_dir: str) -> Tuple[str, Set[str]]:
    """Returns the rewritten source of `path` and the in-tree deps its imports need.

    Args:
      text: the Python source.
      path: its path inside the op folder (for messages and relative paths).
      op_module: the op's package in this workspace, `tensorflow_ops.<op>`.
      dest_module: the destination package, `tensorflow.examples....<op>`.
      helpers: modules of `tensorflow_ops` that are vendored beside the op.
      library_dir: the folder of the op library inside the op folder ("" = root).
    """
    tree = ast.parse(text, filename=path)
    lines = text.splitlines(keepends=True)
    edits: List[Tuple[int, int, int, int, str]] = []  # (line, col, end_line, end_col, new)
    deps: Set[str] = set()
    helpers = set(helpers)

    def edit(node: ast.AST, new: str) -> None:
        edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))

    def renamed(module: str) -> str:
        if module == op_module or module.startswith(op_module + "."):
            return dest_module + module[len(op_module):]
        raise VendorError(f"{path}: imports {module}, outside {op_module}; "
                          "vendor it into the tree first")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == SOURCE_PACKAGE:
                names = [alias.name for alias in node.names]
                unknown = set(names) - helpers - {LOADER_MODULE}
                if unknown:
                    raise VendorError(f"{path}: imports {sorted(unknown)} from "
                                      f"{SOURCE_PACKAGE}, which are not vendored")
                new = []
                if LOADER_MODULE in names:
                    new += ["from tensorflow.python.framework import load_library",
                            "from tensorflow.python.platform import resource_loader"]
                    deps.add(IMPORT_DEPS["tensorflow"])
                others = [n for n in names if n != LOADER_MODULE]
                if others:
                    new.append(f"from {dest_module} import {', '.join(others)}")
                edit(node, "\n".join(new))
            elif node.module.split(".")[0] == SOURCE_PACKAGE:
                edit(node, ast.unparse(ast.ImportFrom(
                    renamed(node.module), node.names, node.level)))
            elif node.level == 0:
                deps |= _module_deps(node.module + "." + node.names[0].name
                                     if node.module == "absl.testing" else node.module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == SOURCE_PACKAGE:
                    raise VendorError(f"{path}: `import {alias.name}`; use "
                                      "`from ... import ...` so it can be renamed")
                deps |= _module_deps(alias.name)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name)
              and node.func.value.id == LOADER_MODULE):
            if node.func.attr not in ("load_op_library", "find_library") or not node.args \
                    or not (isinstance(node.args[0], ast.Constant)
                            and isinstance(node.args[0].value, str)):
                raise VendorError(f"{path}:{node.lineno}: only "
                                  "library_loader.load_op_library(\"<name>.so\", ...) "
                                  "and find_library(\"<name>.so\", ...) have an in-tree "
                                  "equivalent")
            library = os.path.relpath(os.path.join(library_dir, node.args[0].value),
                                      os.path.dirname(path) or ".")
            found = f"resource_loader.get_path_to_datafile({json.dumps(library)})"
            # find_library gives the path of a library that is not an op library
            # (a JAX FFI library); load_op_library loads an op library.
            edit(node, found if node.func.attr == "find_library" else
                 f"load_library.load_op_library(\n    {found})")

    for line, col, end_line, end_col, new in sorted(edits, reverse=True):
        first, last = lines[line - 1], lines[end_line - 1]
        indent = first[:col]
        new = new.replace("\n", "\n" + indent) if indent.isspace() else new
        lines[line - 1:end_line] = [first[:col] + new + last[end_col:]]
    # Docstrings and comments that show the imports.
    result = re.sub(r"\b%s\b" % re.escape(op_module), dest_module, "".join(lines))
    # Bazel labels and paths of the op folder (a build command in a message).
    op_path, dest_path = op_module.replace(".", "/"), dest_module.replace(".", "/")
    result = re.sub(r"\b%s(?=[:/\"])" % re.escape(op_path), dest_path, result)
    # Helper modules named in strings (`python -m tensorflow_ops.saved_call_probe`)
    # and paths in comments (tensorflow_ops/test_util.py): their vendored copies.
    for helper in sorted(helpers):
        for separator, dest in ((".", dest_module), ("/", dest_module.replace(".", "/"))):
            name = helper.replace(".", separator)
            result = re.sub(r"\b%s%s%s\b" % (SOURCE_PACKAGE, re.escape(separator),
                                              re.escape(name)),
                            dest + separator + name, result)
    leftover = [n for n in ast.walk(ast.parse(result, filename=path))
                if isinstance(n, ast.Name) and n.id == LOADER_MODULE]
    if leftover:
        raise VendorError(f"{path}:{leftover[0].lineno}: {LOADER_MODULE} is used "
                          "in a way the tool cannot translate")
    return result, deps
