"""Turns the template op folder into a new op: drops the parts not asked for,
renames, and formats.

The template, tensorflow_ops/op_template, is a real op (OpTemplate and its
gradient op OpTemplateGrad) with every optional part present. Its files mark
the optional parts with comment lines of their own, in each language's comment
syntax:

    // --grad: begin          # --gpu: begin          <!-- template only: begin -->
    ...                       ...                     ...
    // --grad: end            # --gpu: end            <!-- template only: end -->

A part is kept where its flag was given (`template only` never is), and the
marker lines always go. A file whose name says `grad` or `gpu` after the op's
name (op_template_grad_op.cc, op_template_gpu_test.py) is written only with
that flag. The names are then replaced (package, op, function, file, header
guard and namespace), and the C++ is formatted with clang-format in Google
style, as the template is, since a new name's length moves line breaks.
"""

import os
import re
import subprocess
import tempfile
from typing import Dict, FrozenSet, List

from tools import new_op_names

TEMPLATE_PACKAGE = "op_template"
TEMPLATE_FOLDER = f"tensorflow_ops/{TEMPLATE_PACKAGE}"
TEMPLATE_OP = new_op_names.camel_case(TEMPLATE_PACKAGE)
# What is never copied: caches a test run leaves in the template's folder.
_SKIPPED = re.compile(r"(^|/)(__pycache__|\.[^/]*)(/|$)|\.pyc$")
_MARKER = re.compile(
    r"[ \t]*(?://|#|<!--)[ \t]*(?P<part>--grad|--gpu|template only): "
    r"(?P<edge>begin|end)[ \t]*(?:-->)?[ \t]*")
# The words after the op's name in a file name that make the file optional.
_FILE_PARTS = {"grad": "--grad", "gpu": "--gpu"}
_CC_SUFFIXES = (".h", ".cc")
# Stand-ins for the package while the op's names are replaced.
_PACKAGE, _UPPER_PACKAGE = "\0package\0", "\0PACKAGE\0"
# Names with nothing of the template's in them, to look for leftovers with.
_PROBE = new_op_names.OpNames("zqpackage", "zqname", gpu=True, grad=True)
# Anything left of the template's names after renaming, in any spelling.
LEFTOVER = re.compile(r"op_?template", re.IGNORECASE)


class TemplateError(Exception):
    """The template's markers do not pair up, or a tool it needs is missing."""


def flags(names: new_op_names.OpNames) -> FrozenSet[str]:
    """The parts to keep for `names`."""
    return frozenset(flag for flag, wanted in (("--grad", names.grad),
                                               ("--gpu", names.gpu)) if wanted)


def template_files(workspace: str) -> List[str]:
    """The template's files, relative to its folder, sorted."""
    root = os.path.join(workspace, TEMPLATE_FOLDER)
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for file_name in sorted(files):
            relative = os.path.relpath(os.path.join(folder, file_name), root)
            if not _SKIPPED.search(relative):
                found.append(relative)
    if not found:
        raise TemplateError(f"{TEMPLATE_FOLDER} is missing: the template op is part of "
                            "the workspace")
    return found


def file_flags(relative: str) -> FrozenSet[str]:
    """The flags without which the template file `relative` is not written."""
    base = os.path.basename(relative)
    if not base.startswith(TEMPLATE_PACKAGE + "_"):
        return frozenset()
    words = re.split(r"[_.]", base[len(TEMPLATE_PACKAGE) + 1:])
    return frozenset(flag for word, flag in _FILE_PARTS.items() if word in words)


def keep_parts(text: str, kept: FrozenSet[str], path: str) -> str:
    """`text` without its marker lines and without the parts not in `kept`."""
    open_parts: List[str] = []
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        marker = _MARKER.fullmatch(line.rstrip("\n"))
        if not marker:
            if all(part in kept for part in open_parts):
                out.append(line)
            continue
        part, edge = marker.group("part"), marker.group("edge")
        if edge == "begin":
            open_parts.append(part)
        elif not open_parts or open_parts.pop() != part:
            raise TemplateError(f"{path}:{number}: '{part}: end' closes no '{part}: begin'")
    if open_parts:
        raise TemplateError(f"{path}: '{open_parts[-1]}: begin' is never closed")
    return "".join(out)


def rename(text: str, names: new_op_names.OpNames) -> str:
    """`text` with every spelling of the template's names replaced by the new
    op's: the package in paths, labels, modules and header guards first, then
    the op's own name in CamelCase, UPPER_CASE and snake_case."""
    # The package goes in as a stand-in first, so that the op's renames below
    # cannot touch a package whose name holds the template's (loop_templates).
    text = re.sub(r"\btensorflow_ops([/.])" + TEMPLATE_PACKAGE + r"\b",
                  lambda match: f"tensorflow_ops{match.group(1)}{_PACKAGE}", text)
    text = text.replace(f"TENSORFLOW_OPS_{TEMPLATE_PACKAGE.upper()}_",
                        f"TENSORFLOW_OPS_{_UPPER_PACKAGE}_")
    # The op package's py_library is <package>_py (tensorflow_ops/op_packages.bzl).
    text = re.sub(rf"\b{TEMPLATE_PACKAGE}_py\b", f"{_PACKAGE}_py", text)
    text = text.replace(TEMPLATE_OP, names.op)
    text = text.replace(TEMPLATE_PACKAGE.upper(), names.name.upper())
    text = text.replace(TEMPLATE_PACKAGE, names.name)
    return (text.replace(_UPPER_PACKAGE, names.package.upper())
            .replace(_PACKAGE, names.package))


def clang_format(executable: str, files: Dict[str, str]) -> Dict[str, str]:
    """`files`, texts by relative path, with the C++ ones (is_cc) formatted in
    Google style and the others as they are.

    One run of clang-format for them all: each run costs more to start (the
    pip wrapper is a Python program) than to format a file. The files go to a
    temporary folder, under their relative paths."""
    texts = {path: text for path, text in files.items() if is_cc(path)}
    if not texts:
        return dict(files)
    for path in texts:
        if os.path.isabs(path) or ".." in path.split("/"):
            raise TemplateError(f"{path}: not a path inside the op's folder")
    with tempfile.TemporaryDirectory() as folder:
        for path, text in texts.items():
            os.makedirs(os.path.join(folder, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(folder, path), "w", encoding="utf-8") as out:
                out.write(text)
        result = subprocess.run([executable, "--style=Google", "-i", "--", *sorted(texts)],
                                cwd=folder, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise TemplateError(f"clang-format failed on {sorted(texts)}: "
                                f"{result.stderr[-2000:]}")
        formatted = dict(files)
        for path in texts:
            with open(os.path.join(folder, path), encoding="utf-8") as source:
                formatted[path] = source.read()
        return formatted


def is_cc(path: str) -> bool:
    """Whether clang-format formats `path` (C++ and CUDA sources and headers)."""
    return path.endswith(_CC_SUFFIXES)


def op_files(names: new_op_names.OpNames, workspace: str,
             clang_format_path: str) -> Dict[str, str]:
    """Every file of the new op's folder, by path in it, with its text."""
    kept = flags(names)
    files = {}
    for relative in template_files(workspace):
        if not file_flags(relative) <= kept:
            continue
        with open(os.path.join(workspace, TEMPLATE_FOLDER, relative),
                  encoding="utf-8") as source:
            kept_text = keep_parts(source.read(), kept, relative)
        text = rename(kept_text, names)
        path = rename(relative, names)
        # Looked for with stand-in names: a new name may hold the template's.
        leftover = LEFTOVER.search(rename(kept_text, _PROBE))
        if leftover:
            raise TemplateError(f"{relative}: {leftover.group(0)!r} is left after "
                                "renaming; spell the template's name as "
                                f"{TEMPLATE_PACKAGE}, {TEMPLATE_OP} or "
                                f"{TEMPLATE_PACKAGE.upper()}")
        files[path] = text
    return clang_format(clang_format_path, files)
