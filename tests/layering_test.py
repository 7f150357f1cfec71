"""The op folders' layers include each other in one direction only.

MyBilinear's C++ is layered by folder (tensorflow_ops/my_bilinear/README.md
says why):

    cc/kernels  TensorFlow-bound OpKernels and XLA kernels
    cc/jax      XLA FFI handlers for JAX: math, cpu and xla/ffi/api only
    cc/math     TensorFlow-free math, every device
    cc/cpu      TensorFlow-free CPU machinery

Each layer includes only the layers below it, the TensorFlow-free ones include
nothing of TensorFlow, Abseil, XLA or Eigen, and no product file (C++ or
Python) includes or imports a test. The template op that tools/new_op.py
copies (tensorflow_ops/op_template) has the same layers but cc/cpu, and keeps
to them too, so that every generated op starts layered. Bazel does not check this by itself: a
header sees every header of its target's dependencies, so a stray include
would build. This test reads the sources as they are on disk.
"""

import os
import re
import unittest
from typing import Dict, List, Tuple

_OP = "tensorflow_ops/my_bilinear"
_TEMPLATE_OP = "tensorflow_ops/op_template"
# Folder -> the folders of this op (and outside libraries) it may not include.
_FORBIDDEN: Dict[str, Tuple[str, ...]] = {
    "cc/cpu": ("cc/math/", "cc/kernels/", "cc/ops/", "cc/tests/", "cc/jax/",
               "tensorflow/", "absl/", "xla/", "Eigen/", "unsupported/Eigen"),
    "cc/math": ("cc/kernels/", "cc/ops/", "cc/tests/", "cc/jax/",
                "tensorflow/", "absl/", "xla/", "Eigen/", "unsupported/Eigen"),
    "cc/kernels": ("cc/tests/", "cc/jax/"),
    "cc/ops": ("cc/tests/", "cc/math/", "cc/cpu/", "cc/jax/"),
    # The FFI library links nothing of TensorFlow: only XLA's FFI headers,
    # which jaxlib ships, beside the math and the CPU machinery.
    "cc/jax": ("cc/kernels/", "cc/ops/", "cc/tests/",
               "tensorflow/", "absl/", "xla/", "Eigen/", "unsupported/Eigen"),
}
# Includes a folder may make although a prefix of _FORBIDDEN matches them.
_ALLOWED: Dict[str, Tuple[str, ...]] = {"cc/jax": ("xla/ffi/api/",)}
# Python product modules that must import no TensorFlow (JAX users have none).
_TF_FREE_MODULES = ("jax_ops.py", "python/jax_ops.py")
_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', re.MULTILINE)
_PY_IMPORT = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.MULTILINE)


def repository_root() -> str:
    """The source tree: this file is tests/layering_test.py in it (under Bazel,
    its runfile is a link to that file)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def include_violations(folder: str, source: str, name: str, op: str = _OP) -> List[str]:
    """The includes of `source` (the text of file `name` in `folder` of op
    folder `op`, a key of _FORBIDDEN) that reach a layer it may not include."""
    found = []
    for include in _INCLUDE.findall(source):
        local = include[len(op) + 1:] if include.startswith(op + "/") else include
        if include.startswith("tensorflow_ops/") and not include.startswith(op + "/"):
            found.append(f"{name} includes another op's {include}")
            continue
        if local.startswith(_ALLOWED.get(folder, ())):
            continue
        for prefix in _FORBIDDEN[folder]:
            if local.startswith(prefix):
                found.append(f"{name} ({folder}) includes {include}")
    return found


def import_violations(source: str, name: str) -> List[str]:
    """The imports of Python product file `name` that reach a test module."""
    return [f"{name} imports {module}" for module in _PY_IMPORT.findall(source)
            if ".tests" in module or module.endswith("_test")]


class LayeringTest(unittest.TestCase):
    """Every source of MyBilinear keeps to its layer."""

    def setUp(self) -> None:
        self.root = os.path.join(repository_root(), _OP)
        self.assertTrue(os.path.isdir(os.path.join(self.root, "cc", "math")), self.root)

    def _files(self, folder: str, endings: Tuple[str, ...],
               nested: bool = False) -> List[str]:
        """The files of `folder` with these endings; with `nested`, those of
        its subfolders too (cc/math/instances belongs to cc/math)."""
        path = os.path.join(self.root, folder)
        if not nested:
            return sorted(os.path.join(folder, name) for name in os.listdir(path)
                          if name.endswith(endings))
        return sorted(os.path.relpath(os.path.join(parent, name), self.root)
                      for parent, _, names in os.walk(path)
                      for name in names if name.endswith(endings))

    def test_cpp_layers_include_downwards_only(self) -> None:
        violations = []
        checked = 0
        for folder in _FORBIDDEN:
            for name in self._files(folder, (".h", ".cc"), nested=True):
                with open(os.path.join(self.root, name)) as handle:
                    violations += include_violations(folder, handle.read(), name)
                checked += 1
        self.assertGreater(checked, 40)  # the instances' sources among them
        self.assertEqual(violations, [])

    def test_the_template_op_includes_downwards_only(self) -> None:
        root = os.path.join(repository_root(), _TEMPLATE_OP)
        violations = []
        checked = 0
        for folder in _FORBIDDEN:
            path = os.path.join(root, folder)
            for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
                with open(os.path.join(path, name)) as handle:
                    violations += include_violations(folder, handle.read(),
                                                     f"{folder}/{name}", _TEMPLATE_OP)
                checked += 1
        self.assertGreater(checked, 10)
        self.assertEqual(violations, [])

    def test_python_product_code_imports_no_test(self) -> None:
        violations = []
        for name in self._files("python", (".py",)):
            with open(os.path.join(self.root, name)) as handle:
                violations += import_violations(handle.read(), name)
        self.assertEqual(violations, [])

    def test_jax_modules_import_no_tensorflow(self) -> None:
        for name in _TF_FREE_MODULES:
            with open(os.path.join(self.root, name)) as handle:
                modules = _PY_IMPORT.findall(handle.read())
            self.assertTrue(modules, name)
            self.assertEqual([m for m in modules if m.split(".")[0] in
                              ("tensorflow", "keras")], [], name)

    def test_a_stray_include_or_import_is_reported(self) -> None:
        # The checks can fail: upward includes, TensorFlow in the math, and a
        # product module importing a test are each caught.
        self.assertEqual(
            include_violations("cc/cpu", '#include "tensorflow_ops/my_bilinear/cc/math/'
                               'bilinear_weights.h"\n', "x.h"),
            ["x.h (cc/cpu) includes tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"])
        self.assertEqual(len(include_violations(
            "cc/math", '#include "tensorflow/core/framework/tensor.h"\n', "y.h")), 1)
        self.assertEqual(include_violations(
            "cc/math", '#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_prefetch.h"\n'
            "#include <cstdint>\n", "z.h"), [])
        self.assertEqual(include_violations(
            "cc/jax", '#include "xla/ffi/api/ffi.h"\n#include "xla/shape.h"\n'
            '#include "absl/status/status.h"\n', "j.cc"),
            ["j.cc (cc/jax) includes xla/shape.h", "j.cc (cc/jax) includes absl/status/status.h"])
        self.assertEqual(import_violations(
            "from tensorflow_ops.my_bilinear.python.tests import test_cases\n", "w.py"),
            ["w.py imports tensorflow_ops.my_bilinear.python.tests"])


if __name__ == "__main__":
    unittest.main()
