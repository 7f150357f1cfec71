"""Trains a small model containing MyBilinearLayer on several workers with
tf.distribute.MultiWorkerMirroredStrategy, in a custom training loop.

On one machine, `--workers N` starts N worker processes on free loopback ports
and restarts them all from the last checkpoint if one dies:

    python examples/multi_worker_train.py --workers 2 --model_dir /tmp/run

On real machines, run one worker per host with its own TF_CONFIG (same cluster,
its own task index) and a --model_dir that every host can read:

    TF_CONFIG='{"cluster": {"worker": ["host0:12345", "host1:12345"]},
                "task": {"type": "worker", "index": 0}}' \\
        python examples/multi_worker_train.py --model_dir /shared/run

Keras 3's Model.fit does not work under this strategy ("Attempt to convert a
value (PerReplica...)", keras-team/keras issue 20585), hence the custom loop:
each worker takes its fixed share of every global batch, `strategy.run` runs a
GradientTape step on it, and the gradients are summed across workers by
collective all-reduce. Worker 0 (the chief) writes the checkpoints; the others
write theirs to temporary folders, as the strategy requires, and every worker
restores from the chief's.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from typing import List, Optional

import numpy as np

_IMAGE_SHAPE = (6, 5, 2)
_TARGET_SIZE = (9, 8)
_DATASET_SIZE = 64


def _parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model_dir", required=True,
                        help="checkpoints (of the chief) and the final weights")
    parser.add_argument("--workers", type=int, default=0,
                        help="start this many local workers (0: be one worker, "
                             "configured by TF_CONFIG)")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--global_batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=240,
                        help="seconds each start of the workers may take")
    parser.add_argument("--max_restarts", type=int, default=2)
    parser.add_argument("--kill_worker_at_step", type=int, default=0,
                        help="for testing: the last worker kills itself at this "
                             "step of the first start (0: never)")
    # What the launcher passes to the worker that is to kill itself.
    parser.add_argument("--exit_at_step", type=int, default=-1, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# ---------------------------------------------------------------- one worker


def _data(seed: int):
    """The whole data set, the same in every worker."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    rng = np.random.default_rng(seed)
    images = rng.random((_DATASET_SIZE, *_IMAGE_SHAPE)).astype(np.float32)
    targets = tf.image.resize(images.sum(axis=-1, keepdims=True), _TARGET_SIZE).numpy()
    return images, targets


def build_model(seed: int):
    """Convolutions around the layer, so the first one learns through its gradient."""
    import keras  # pylint: disable=import-outside-toplevel
    from tensorflow_ops.my_bilinear import MyBilinearLayer  # pylint: disable=import-outside-toplevel
    keras.utils.set_random_seed(seed)
    inputs = keras.Input(shape=_IMAGE_SHAPE)
    features = keras.layers.Conv2D(3, 3, padding="same")(inputs)
    resized = MyBilinearLayer(_TARGET_SIZE, align_corners=False,
                              half_pixel_centers=True)(features)
    return keras.Model(inputs, keras.layers.Conv2D(1, 3, padding="same")(resized))


def run_worker(args: argparse.Namespace) -> None:
    """One worker of the cluster that TF_CONFIG describes."""
    import keras  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    task = strategy.cluster_resolver.task_id
    is_chief = task == 0

    def say(text: str) -> None:
        print(f"[worker {task}] {text}", flush=True)

    images, targets = _data(args.seed)
    with strategy.scope():
        model = build_model(args.seed)
        optimizer = keras.optimizers.SGD(learning_rate=0.02, momentum=0.5)
        optimizer.build(model.trainable_variables)
        step = tf.Variable(0, dtype=tf.int64, trainable=False)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)

    chief_dir = os.path.join(args.model_dir, "checkpoints")
    write_dir = chief_dir if is_chief else os.path.join(
        args.model_dir, "worker_temp", str(task))
    manager = tf.train.CheckpointManager(checkpoint, write_dir, max_to_keep=2)
    latest = tf.train.latest_checkpoint(chief_dir)
    if latest:
        checkpoint.restore(latest).assert_consumed()
        say(f"restored step {int(step.numpy())} from {latest}")

    def report_data_loss() -> None:
        """The chief's mean squared error over the whole data set."""
        if is_chief:
            error = np.mean(np.square(targets - model(images).numpy()))
            say(f"data loss at step {int(step.numpy())}: {error:.8f}")

    def shard(context):
        """This replica's fixed rows of the current global batch."""
        per_replica = args.global_batch // context.num_replicas_in_sync
        start = (int(step.numpy()) * args.global_batch
                 + context.replica_id_in_sync_group * per_replica) % _DATASET_SIZE
        rows = np.arange(start, start + per_replica) % _DATASET_SIZE
        return images[rows], targets[rows]

    @tf.function
    def train_step(batch_images, batch_targets):
        def replica_step(replica_images, replica_targets):
            with tf.GradientTape() as tape:
                errors = tf.square(replica_targets - model(replica_images, training=True))
                loss = tf.nn.compute_average_loss(
                    tf.reduce_mean(errors, axis=[1, 2, 3]),
                    global_batch_size=args.global_batch)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss
        losses = strategy.run(replica_step, args=(batch_images, batch_targets))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)

    report_data_loss()
    while int(step.numpy()) < args.steps:
        if int(step.numpy()) == args.exit_at_step:
            say(f"killing itself at step {args.exit_at_step}")
            os.kill(os.getpid(), signal.SIGKILL)
        batch = strategy.experimental_distribute_values_from_function(shard)
        loss = train_step(*batch)
        step.assign_add(1)
        say(f"step {int(step.numpy())} loss {float(loss):.8f}")
        manager.save(checkpoint_number=step)
        if not is_chief:
            shutil.rmtree(write_dir, ignore_errors=True)

    report_data_loss()
    if is_chief:
        np.savez(os.path.join(args.model_dir, "final_weights.npz"), *model.get_weights())
    say("done")


# ------------------------------------------------------- local workers launcher


def free_ports(count: int) -> List[int]:
    """Ports the kernel calls free now (held open together so they differ)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _worker_command(args: argparse.Namespace, exit_at_step: int) -> List[str]:
    return [sys.executable, os.path.abspath(__file__), "--model_dir", args.model_dir,
            "--steps", str(args.steps), "--global_batch", str(args.global_batch),
            "--seed", str(args.seed), "--exit_at_step", str(exit_at_step)]


def _start_workers(args: argparse.Namespace, first_start: bool) -> List[subprocess.Popen]:
    cluster = {"worker": [f"127.0.0.1:{port}" for port in free_ports(args.workers)]}
    workers = []
    for index in range(args.workers):
        last = index == args.workers - 1
        killed = first_start and last and args.kill_worker_at_step > 0
        exit_at_step = args.kill_worker_at_step if killed else -1
        env = dict(os.environ, TF_CONFIG=json.dumps(
            {"cluster": cluster, "task": {"type": "worker", "index": index}}))
        workers.append(subprocess.Popen(_worker_command(args, exit_at_step), env=env))
    return workers


def _wait(workers: List[subprocess.Popen], timeout: float) -> bool:
    """True when every worker exits with 0; False as soon as one fails or time
    runs out. Either way no worker is left running."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            codes = [worker.poll() for worker in workers]
            failed = [(i, code) for i, code in enumerate(codes) if code not in (None, 0)]
            if failed:
                print(f"[launcher] worker {failed[0][0]} exited with {failed[0][1]}",
                      flush=True)
                return False
            if all(code == 0 for code in codes):
                return True
            time.sleep(0.2)
        print(f"[launcher] workers still running after {timeout} s", flush=True)
        return False
    finally:
        _end(workers)


def _end(workers: List[subprocess.Popen]) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def launch(args: argparse.Namespace) -> int:
    """Runs args.workers local workers; restarts them all (from the chief's last
    checkpoint) when one fails, as a cluster manager would."""
    for start in range(args.max_restarts + 1):
        if start:
            print(f"[launcher] restart {start}: every worker resumes from the "
                  "last checkpoint", flush=True)
        if _wait(_start_workers(args, first_start=start == 0), args.timeout):
            return 0
    return 1


def main() -> None:
    args = _parse_args()
    if args.workers:
        sys.exit(launch(args))
    run_worker(args)


if __name__ == "__main__":
    main()
