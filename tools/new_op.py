#!/usr/bin/env python3
"""Generates a new op folder, copied from the template op, that builds and
passes its tests as it is.

    python3 tools/new_op.py scale_rows                # ScaleRows: CPU kernel
    python3 tools/new_op.py scale_rows --grad         # and the gradient op ScaleRowsGrad
    python3 tools/new_op.py scale_rows --gpu --grad   # and GPU kernels of both
    bazel test //tensorflow_ops/scale_rows/...

The template, tensorflow_ops/op_template, is a real op that //... builds and
tests: an element-wise scaled copy y = scale * x, laid out like MyBilinear.
This tool copies it, keeps the --grad and --gpu parts only where asked, and
renames everything (tools/new_op_template.py). `TODO(you)` marks where your
op's math, shapes and checks go. The package is added to
tensorflow_ops/op_packages.bzl, so the wheel, the fuzzer and `bazel test //...`
pick it up with nothing edited by hand.

It refuses (exit status 2, writing nothing) a name that is not snake_case or
would break the generated code (keywords, builtins, names the code uses), a
folder or module that exists, and an op name that TensorFlow (as an op or a
gradient) or this workspace already registers; it never overwrites a file.
"""

import argparse
import bisect
import builtins
import importlib.util
import io
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import tokenize
from typing import Dict, List, Optional, Set

if __package__ in (None, ""):  # run as a script: make `tools` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools import new_op_names  # pylint: disable=wrong-import-position
from tools import new_op_template  # pylint: disable=wrong-import-position

# `bazel run` starts the tool in its runfiles; it writes into the workspace.
WORKSPACE_ROOT = (os.environ.get("BUILD_WORKSPACE_DIRECTORY") or
                  os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = "tensorflow_ops/op_packages.bzl"
_REGISTRY_LIST = re.compile(r"^OP_PACKAGES = \[\n(?P<entries>.*?)^\]", re.M | re.S)
_REGISTRY_ENTRY = re.compile(r'    "(?P<package>[a-z0-9_]+)",\n')
_REGISTER_OP = re.compile(r'REGISTER_OP\(\s*"(\w+)"\s*\)')

# Run by the Python that has TensorFlow: prints which of the names in argv
# TensorFlow's op registry knows.
_TENSORFLOW_CHECK = """
import json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow
from tensorflow.python.framework import op_def_registry
from tensorflow.python.framework import ops
gradients = set(ops._gradient_registry.list())  # pylint: disable=protected-access
print(json.dumps([name for name in sys.argv[1:]
                  if op_def_registry.get(name) or name in gradients]))
"""
# Names C++ or the generated code's namespaces and macros already own: a
# namespace or function of one of these names does not compile.
_CC_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr
    constinit const_cast continue co_await co_return co_yield decltype default
    delete do double dynamic_cast else enum explicit export extern false float
    for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register reinterpret_cast
    requires return short signed sizeof static static_assert static_cast struct
    switch template this thread_local throw true try typedef typeid typename
    union unsigned using virtual void volatile wchar_t while xor xor_eq
    std absl tensorflow tensorflow_ops eigen errno assert linux unix
    """.split())


class Refusal(Exception):
    """A reason not to generate the op; nothing has been written."""


def listed_packages(text: str) -> List[str]:
    """The packages that op_packages.bzl's text lists."""
    match = _REGISTRY_LIST.search(text)
    return _REGISTRY_ENTRY.findall(match.group("entries")) if match else []


def add_to_registry(text: str, package: str) -> str:
    """The text of op_packages.bzl with `package` inserted in sorted order."""
    match = _REGISTRY_LIST.search(text)
    lines = match.group("entries").splitlines(keepends=True) if match else []
    entries = [_REGISTRY_ENTRY.fullmatch(line) for line in lines]
    if not match or not all(entries):
        raise Refusal(f"{REGISTRY} does not hold the list this tool edits "
                      '(OP_PACKAGES = [ with one `    "package",` per line ])')
    packages = [entry.group("package") for entry in entries]
    if package in packages:
        raise Refusal(f"{package} is already listed in {REGISTRY}")
    position = bisect.bisect(packages, package)
    lines.insert(position, f'    "{package}",\n')
    start, end = match.span("entries")
    return text[:start] + "".join(lines) + text[end:]


def workspace_ops(workspace: str) -> Dict[str, str]:
    """Op name -> the file that registers it, for every REGISTER_OP under
    tensorflow_ops/."""
    found = {}
    for folder, dirs, files in os.walk(os.path.join(workspace, "tensorflow_ops")):
        dirs.sort()
        for file_name in sorted(files):
            if not file_name.endswith(".cc"):
                continue
            path = os.path.join(folder, file_name)
            with open(path, encoding="utf-8") as source:
                for op_name in _REGISTER_OP.findall(source.read()):
                    found.setdefault(op_name, os.path.relpath(path, workspace))
    return found


def _configured_python(workspace: str) -> Optional[str]:
    """The Python configure.py chose (.tf_configure.bazelrc), if any."""
    try:
        with open(os.path.join(workspace, ".tf_configure.bazelrc")) as rc:
            match = re.search(r"--repo_env=PYTHON_BIN_PATH=(\S+)", rc.read())
    except FileNotFoundError:
        return None
    return match.group(1) if match else None


def tensorflow_python(workspace: str) -> Optional[str]:
    """A Python that can import TensorFlow: this one, the configured one, or
    the workspace's .venv."""
    if importlib.util.find_spec("tensorflow") is not None:
        return sys.executable
    for candidate in (_configured_python(workspace),
                      os.path.join(workspace, ".venv", "bin", "python")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def tensorflow_ops_registered(names: List[str], workspace: str) -> List[str]:
    """Which of `names` TensorFlow itself registers as an op (tf.raw_ops and the
    rest) or as the name of a gradient function."""
    python = tensorflow_python(workspace)
    if python is None:
        raise Refusal("no Python with TensorFlow to check the op name against; run "
                      "`python3 configure.py` first")
    result = subprocess.run([python, "-c", _TENSORFLOW_CHECK, *names],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise Refusal(f"{python} could not check the op name against TensorFlow:\n"
                      f"{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _code_identifiers(path: str, text: str) -> Set[str]:
    """The identifiers of generated code, outside comments and strings."""
    if path.endswith(".md"):
        return set()  # prose, not code
    if path.endswith(".py") or os.path.basename(path) == "BUILD":  # Starlark too
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return {token.string for token in tokens if token.type == tokenize.NAME}
    code = re.sub(r'//[^\n]*|/\*.*?\*/|R"doc\(.*?\)doc"|"(?:\\.|[^"\\\n])*"', " ",
                  text, flags=re.S)
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))


def template_identifiers(workspace: str) -> Set[str]:
    """The names the template's code uses whatever the op is called (modules,
    locals, attrs, C++ types): an op named like one of them would shadow it."""
    used = set()
    for relative in new_op_template.template_files(workspace):
        path = os.path.join(workspace, new_op_template.TEMPLATE_FOLDER, relative)
        with open(path, encoding="utf-8") as source:
            used |= _code_identifiers(relative, source.read())
    return {name for name in used if not new_op_template.LEFTOVER.search(name)}


def clang_format_path(workspace: str) -> str:
    """The clang-format of requirements.txt: beside the Python with TensorFlow
    (the workspace's .venv), else the one on PATH."""
    python = tensorflow_python(workspace)
    candidates = [os.path.join(os.path.dirname(python), "clang-format")] if python else []
    candidates.append(shutil.which("clang-format") or "")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise Refusal("no clang-format to format the generated C++ with (requirements.txt "
                  "pins it); run `python3 configure.py` first")


def shadowing_problem(name: str, workspace: str) -> str:
    """Why `name` would break the generated code; empty if it would not."""
    if name in _CC_KEYWORDS:
        return (f"{name!r} is a C++ keyword or a namespace or macro the generated "
                "C++ uses")
    if name in dir(builtins):
        return f"{name!r} is a Python builtin that the generated code may use"
    used = template_identifiers(workspace)
    if name in used:
        return f"{name!r} is a name the generated code already uses for something else"
    camel = new_op_names.camel_case(name)
    for spelling in (camel, camel + "Grad"):
        if spelling in used:
            return (f"{name!r} gives {spelling}, a name the generated C++ already uses "
                    "for something else")
    return ""


def check(names: new_op_names.OpNames, workspace: str) -> None:
    """Raises Refusal if the op cannot be generated as asked."""
    problem = shadowing_problem(names.name, workspace)
    if problem:
        raise Refusal(problem + "; choose another name")
    folder = os.path.join(workspace, names.folder)
    if os.path.lexists(folder):
        raise Refusal(f"{names.folder} exists")
    if os.path.lexists(folder + ".py"):
        raise Refusal(f"{names.folder}.py is a module of the workspace; a package of "
                      "that name would hide it")
    with open(os.path.join(workspace, REGISTRY)) as registry:
        add_to_registry(registry.read(), names.package)
    op_names = [names.op] + ([names.grad_op] if names.grad else [])
    registered = workspace_ops(workspace)
    for op_name in op_names:
        if op_name in registered:
            raise Refusal(f"op {op_name} is already registered by {registered[op_name]}")
    for op_name in tensorflow_ops_registered(op_names, workspace):
        raise Refusal(f"TensorFlow already has an op or a gradient named {op_name}; "
                      "choose another name")


def op_files(names: new_op_names.OpNames, workspace: str) -> Dict[str, str]:
    """Every file of the op folder, by path in it, copied from the template."""
    try:
        return new_op_template.op_files(names, workspace, clang_format_path(workspace))
    except new_op_template.TemplateError as error:
        raise Refusal(str(error)) from error


def generate(names: new_op_names.OpNames, workspace: str) -> List[str]:
    """Writes the op folder and registers the package; returns the files
    written, relative to the workspace. Call check() first."""
    files = op_files(names, workspace)
    folder = os.path.join(workspace, names.folder)
    os.makedirs(folder)  # fails if it appeared since check()
    written = []
    for relative, text in sorted(files.items()):
        path = os.path.join(folder, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "x", encoding="utf-8") as out:  # "x": never overwrite
            out.write(text)
        written.append(os.path.join(names.folder, relative))
    registry_path = os.path.join(workspace, REGISTRY)
    with open(registry_path) as registry:
        text = add_to_registry(registry.read(), names.package)
    with open(registry_path, "w") as registry:
        registry.write(text)
    written.append(REGISTRY)
    return written


def package_of(dest: str) -> str:
    """The op package named by --dest, which must be tensorflow_ops/<package>:
    the loader, the wheel and the fuzzer find op packages there."""
    parts = os.path.normpath(dest).split(os.sep)
    if len(parts) != 2 or parts[0] != "tensorflow_ops":
        raise Refusal(f"--dest must be tensorflow_ops/<package>, got {dest!r}")
    if not new_op_names.SNAKE_CASE.fullmatch(parts[1]):
        raise Refusal(f"--dest: {parts[1]!r} is not a snake_case package name")
    if keyword.iskeyword(parts[1]):
        raise Refusal(f"--dest: {parts[1]!r} is a Python keyword, which cannot be "
                      "imported as a package")
    return parts[1]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="the op in snake_case; the op is its CamelCase "
                                     "form (my_op -> MyOp)")
    parser.add_argument("--gpu", action="store_true",
                        help="also write GPU kernels (built with --config=cuda)")
    parser.add_argument("--grad", action="store_true",
                        help="also write the gradient op <Op>Grad and register it")
    parser.add_argument("--dest", help="the op folder (default: tensorflow_ops/NAME)")
    parser.add_argument("--workspace", default=WORKSPACE_ROOT,
                        help="the workspace to write into (default: this one)")
    args = parser.parse_args(argv)
    try:
        problem = new_op_names.name_problem(args.name)
        if problem:
            raise Refusal(problem)
        package = package_of(args.dest or f"tensorflow_ops/{args.name}")
        names = new_op_names.OpNames(package, args.name, gpu=args.gpu, grad=args.grad)
        check(names, args.workspace)
        written = generate(names, args.workspace)
    except Refusal as refusal:
        print(f"new_op.py: {refusal}; nothing was written.", file=sys.stderr)
        return 2
    ops = names.op + (f" and {names.grad_op}" if names.grad else "")
    print(f"Wrote op {ops}{' with GPU kernels' if names.gpu else ''}:")
    for path in written[:-1]:
        print(f"  {path}")
    print(f'Added "{names.package}" to {REGISTRY} (the wheel, the fuzzer and '
          "//... pick it up from there).")
    print(f"Next:\n  bazel test //{names.folder}/..."
          + ("\n  bazel test --config=cuda //{names.folder}/...   # GPU kernels, "
             "where nvcc exists".format(names=names) if names.gpu else "")
          + f'\n  grep -rn "TODO(you)" {names.folder}   # where your op goes'
          + f"\n{names.folder}/README.md walks through the files.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
