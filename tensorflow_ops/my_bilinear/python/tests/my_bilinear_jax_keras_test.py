"""MyBilinearLayer on Keras's JAX backend: it trains to keras.layers.Resizing's
loss curve, with and without jit_compile and under mixed precision, and a
.keras file of it loads in a fresh process with the same bits (and on the
TensorFlow backend). The TensorFlow op library is never loaded on the JAX
backend.

Keras fixes its backend on import, so the training runs in this process on
the JAX backend where this file is the program and Keras is not imported yet
(as Bazel runs it), else in a child process; each load runs in a child of its
own."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Any, Dict

import numpy as np


def _probe(mode: str, folder: str, backend: str = "jax") -> Dict[str, Any]:
    env = dict(os.environ, KERAS_BACKEND=backend, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run(
        [sys.executable, "-m", "tensorflow_ops.my_bilinear.python.tests.jax_keras_probe",
         mode, folder], env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise AssertionError(f"probe {mode} failed:\n{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _train(folder: str) -> Dict[str, Any]:
    """The probe's `train`, in this process where it is this file's own and
    Keras can still take the JAX backend (a child costs TensorFlow's, JAX's
    and Keras's imports); else in a child."""
    if __name__ != "__main__" or "keras" in sys.modules:
        return _probe("train", folder)
    # Read by Keras on import only: restored at once, so that nothing this
    # process starts later inherits it.
    before = os.environ.get("KERAS_BACKEND")
    os.environ["KERAS_BACKEND"] = "jax"
    try:
        # pylint: disable=g-import-not-at-top
        from tensorflow_ops.my_bilinear.python.tests import jax_keras_probe
    finally:
        if before is None:
            del os.environ["KERAS_BACKEND"]
        else:
            os.environ["KERAS_BACKEND"] = before
    facts = jax_keras_probe.train(folder)
    facts["op_library_mapped"] = jax_keras_probe.op_library_mapped()
    return facts


class JaxKerasTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.trained = _train(cls.folder)
        cls.loaded = _probe("load", cls.folder)
        cls.loaded_by_tensorflow = _probe("load", cls.folder, backend="tensorflow")

    def test_runs_on_jax_without_tensorflow(self):
        # Keras itself imports TensorFlow where it is installed (its
        # set_random_seed seeds it, its saving uses tf.io); the layer never
        # loads the op library.
        for facts in (self.trained, self.loaded):
            self.assertEqual(facts["backend"], "jax")
            self.assertFalse(facts["op_library_mapped"])

    def test_compute_output_shape(self):
        self.assertEqual(self.trained["output_shape"], [None, 16, 12, 4])

    def test_trains_to_the_loss_curve_of_resizing(self):
        # Resizing runs jax.image.resize, which agrees with the half-pixel
        # resize up to float rounding (docs/jax.md), not bit for bit.
        expected = self.trained["resizing_losses"]
        self.assertLess(expected[-1], expected[0])
        for key in ("losses_jit_True", "losses_jit_False"):
            np.testing.assert_allclose(self.trained[key], expected, rtol=1e-5, err_msg=key)

    def test_mixed_precision(self):
        self.assertEqual(self.trained["mixed_dtype"], "float16")
        self.assertEqual(self.trained["mixed_output_dtype"], "float16")
        losses = self.trained["mixed_losses"]
        self.assertTrue(np.all(np.isfinite(losses)))
        np.testing.assert_allclose(losses, self.trained["resizing_losses"], rtol=2e-2)

    def test_keras_file_loads_in_a_fresh_process(self):
        self.assertTrue(self.loaded["same_bits"])
        self.assertEqual(self.loaded["layer_config"], {
            "target_size": [16, 12], "align_corners": False, "half_pixel_centers": True})


    def test_keras_file_loads_on_the_tensorflow_backend(self):
        # The same layer, config and math; the convolutions around it are
        # TensorFlow's there, so only float rounding may differ.
        facts = self.loaded_by_tensorflow
        self.assertEqual(facts["backend"], "tensorflow")
        self.assertEqual(facts["layer_config"], self.loaded["layer_config"])
        self.assertLess(facts["max_difference"], 1e-5)


if __name__ == "__main__":
    unittest.main()
