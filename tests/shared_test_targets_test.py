"""Every test target that runs several test files in one process
(docs/testing.md#one-process-per-target) runs exactly the files its BUILD
file lists: its main file hands unittest the modules it names in
`load_tests = test_util.load_tests_of(...)`, and a file listed in `srcs` but
not named there would never run while the target passed. The main file holds
no tests of its own (they would be `__main__`'s, out of reach of
`--test_filter=<module>`).
"""

import ast
import os
import tempfile
import unittest
from typing import List, Optional, Tuple

from tools import build_file_reader

# The workspace as it is on disk (the test is tagged "external": never cached),
# so that a new shared target is checked without listing it anywhere.
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_SKIPPED_DIRS = {".git", ".venv", "stand_ins"}


def _build_files(root: str):
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("bazel-")]
        if "BUILD" in files:
            yield os.path.join(folder, "BUILD")


def _loaded_modules(main_source: str) -> Optional[List[str]]:
    """The names given to test_util.load_tests_of in `main_source`, or None
    where it has no such `load_tests`."""
    for node in ast.parse(main_source).body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr == "load_tests_of"):
            return [arg.id for arg in node.value.args if isinstance(arg, ast.Name)]
    return None


def shared_target_problems(build_path: str) -> Tuple[List[str], int]:
    """What is wrong with the shared test targets of one BUILD file, and how
    many it has."""
    problems, checked = [], 0
    folder = os.path.dirname(build_path)
    for call in build_file_reader.read_build_file(build_path).calls:
        if call.kind != "py_test":
            continue
        srcs = build_file_reader.files_of(call.kwargs.get("srcs", []))
        main = call.kwargs.get("main") or build_file_reader.default_py_main(call.name, srcs)
        if main is None:
            continue
        with open(os.path.join(folder, main), encoding="utf-8") as source:
            main_source = source.read()
        modules = _loaded_modules(main_source)
        if modules is None:
            continue
        checked += 1
        listed = sorted(os.path.basename(src)[:-len(".py")] for src in srcs if src != main)
        if sorted(modules) != listed:
            problems.append(f"{call.name}: srcs list {listed}, {main} loads {sorted(modules)}")
        if any(isinstance(node, ast.ClassDef) for node in ast.parse(main_source).body):
            problems.append(f"{call.name}: {main} defines classes; keep its tests in a "
                            "file it loads")
    return problems, checked


class SharedTestTargetsTest(unittest.TestCase):

    def test_each_shared_target_runs_exactly_its_files(self):
        problems, checked = [], 0
        for path in _build_files(WORKSPACE):
            found, count = shared_target_problems(path)
            problems += [f"{os.path.relpath(path, WORKSPACE)}: {p}" for p in found]
            checked += count
        self.assertEqual(problems, [])
        # my_bilinear_test, cookbook_test, op_template_test, serve_cpp_test and
        # //tests:workspace_test at least.
        self.assertGreaterEqual(checked, 5)

    def test_a_file_missing_from_the_runner_is_caught(self):
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "BUILD"), "w", encoding="utf-8") as build:
            build.write('py_test(name = "toy_test", srcs = ["a_test.py", "b_test.py", '
                        '"toy_test.py"])\n')
        with open(os.path.join(folder, "toy_test.py"), "w", encoding="utf-8") as main:
            main.write("from tensorflow_ops import test_util\nimport a_test\n"
                       "load_tests = test_util.load_tests_of(a_test)\n"
                       "class Stray(object):\n    pass\n")
        self.assertEqual(shared_target_problems(os.path.join(folder, "BUILD")), ([
            "toy_test: srcs list ['a_test', 'b_test'], toy_test.py loads ['a_test']",
            "toy_test: toy_test.py defines classes; keep its tests in a file it loads"], 1))


if __name__ == "__main__":
    unittest.main()
