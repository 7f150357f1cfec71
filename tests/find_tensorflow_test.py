"""third_party/tf/find_tensorflow.py, as the tf_configure repository rule runs
it (a program of its own, which imports only TensorFlow's sysconfig module),
reports what TensorFlow imported as a user imports it reports; and where that
lighter import fails, it runs itself again with --import-tensorflow."""

import importlib.util
import json
import os
import subprocess
import sys

import tensorflow as tf

from tensorflow_ops import test_util

_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "third_party", "tf", "find_tensorflow.py")
_spec = importlib.util.spec_from_file_location("find_tensorflow", _SCRIPT)
find_tensorflow = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(find_tensorflow)

# Makes the lighter import fail, and prints what main() then executes
# instead of executing it.
_FAILING_LIGHT_IMPORT = """
import importlib.util, json, os, sys
spec = importlib.util.spec_from_file_location("find_tensorflow", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
def fail():
    raise ImportError("no sysconfig here")
def show(path, argv):
    print(json.dumps([path, argv]))
    sys.exit(0)
module._describe_without_the_api = fail
os.execv = show
sys.argv = [sys.argv[1]]  # as the program itself, without arguments
module.main()
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


class FindTensorflowTest(test_util.TestCase):

    def test_program_reports_what_the_imported_package_reports(self):
        # --no-fallback: the facts must come from the sysconfig module alone.
        result = _run(_SCRIPT, "--no-fallback")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(json.loads(result.stdout), find_tensorflow.describe_tensorflow())
        self.assertEqual(json.loads(result.stdout)["version"], tf.__version__)

    def test_failed_light_import_runs_the_program_again_importing_tensorflow(self):
        result = _run("-c", _FAILING_LIGHT_IMPORT, _SCRIPT)
        self.assertEqual(result.returncode, 0, result.stderr)
        path, argv = json.loads(result.stdout)
        self.assertEqual(path, sys.executable)
        self.assertEqual(argv, [sys.executable, _SCRIPT, "--import-tensorflow"])
        self.assertIn("ImportError: no sysconfig here", result.stderr)


if __name__ == "__main__":
    tf.test.main()
