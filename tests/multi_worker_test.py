"""examples/multi_worker_train.py on two loopback workers: the loss falls, the
weights equal one worker's on the same global batches, a worker killed mid-run
is restarted from the checkpoint and the run ends with the same weights, and no
worker process outlives a run."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import List, Tuple

import numpy as np
import tensorflow as tf

from tensorflow_ops import test_util

_EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "multi_worker_train.py")
_STEPS = 8
# Two workers sum their gradients in another order than one worker does; the
# weights differ by float32 rounding only (about 3e-8 seen here).
_RTOL, _ATOL = 1e-5, 1e-6
# Seconds for a whole launcher run; each start of the workers has its own limit.
_RUN_SECONDS = 280


def _launch(model_dir: str, *flags: str, seconds: float) -> Tuple[int, str, bool]:
    """Runs the launcher in its own process group. Returns its exit code, its
    output, and whether any process of the group was still alive when it ended
    (those are then killed)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TF_CPP_MIN_LOG_LEVEL="2")
    launcher = subprocess.Popen([sys.executable, _EXAMPLE, "--model_dir", model_dir,
                                 *flags],
                                env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
    try:
        output, _ = launcher.communicate(timeout=seconds)
    finally:
        survivors = not _group_is_empty(launcher.pid)
        _end_group(launcher.pid)
    return launcher.returncode, output, survivors


def _end_group(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _group_is_empty(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


def _weights(model_dir: str) -> List[np.ndarray]:
    with np.load(os.path.join(model_dir, "final_weights.npz")) as weights:
        return [weights[f"arr_{index}"] for index in range(len(weights.files))]


class MultiWorkerTest(test_util.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.work_dir = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work_dir)
        super().tearDownClass()

    def _run(self, name: str, *flags: str) -> Tuple[str, str]:
        """Trains into work_dir/name unless done already; returns (model_dir, output)."""
        model_dir = os.path.join(self.work_dir, name)
        log = model_dir + ".log"
        if not os.path.exists(log):
            code, output, survivors = _launch(
                model_dir, "--steps", str(_STEPS), "--timeout", "200", *flags,
                seconds=_RUN_SECONDS)
            with open(log, "w") as log_file:
                log_file.write(output)
            self.assertEqual(code, 0, output)
            self.assertFalse(survivors, "a worker outlived the launcher")
        with open(log) as log_file:
            return model_dir, log_file.read()

    def test_two_workers_lower_the_loss_and_match_one_worker(self):
        one_dir, _ = self._run("one_worker", "--workers", "1")
        two_dir, output = self._run("two_workers", "--workers", "2")
        self.assertIn("[worker 1] done", output)
        data_loss = {int(step): float(loss) for step, loss in
                     re.findall(r"\[worker 0\] data loss at step (\d+): (\S+)", output)}
        self.assertLess(data_loss[_STEPS], 0.5 * data_loss[0])
        self.assertAllClose(_weights(two_dir), _weights(one_dir), rtol=_RTOL, atol=_ATOL)

    def test_killed_worker_resumes_from_the_checkpoint_with_the_same_result(self):
        two_dir, _ = self._run("two_workers", "--workers", "2")
        killed_dir, output = self._run("killed", "--workers", "2",
                                       "--kill_worker_at_step", "4")
        self.assertIn("[worker 1] killing itself at step 4", output)
        self.assertIn("[launcher] worker 1 exited with -9", output)
        self.assertIn("[launcher] restart 1", output)
        restored = [int(step) for step in
                    re.findall(r"\[worker 0\] restored step (\d+)", output)]
        self.assertLen(restored, 1)
        self.assertBetween(restored[0], 1, 4)
        self.assertAllClose(_weights(killed_dir), _weights(two_dir),
                            rtol=_RTOL, atol=_ATOL)

    def test_workers_past_their_time_are_ended(self):
        model_dir = os.path.join(self.work_dir, "too_slow")
        code, output, survivors = _launch(model_dir, "--workers", "2", "--timeout", "1",
                                          "--max_restarts", "0", seconds=60)
        self.assertEqual(code, 1, output)
        self.assertIn("[launcher] workers still running after 1.0 s", output)
        self.assertFalse(survivors, "a worker outlived the launcher")
        self.assertFalse(os.path.exists(os.path.join(model_dir, "final_weights.npz")))

if __name__ == "__main__":
    tf.test.main()
