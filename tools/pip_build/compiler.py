"""Runs the compile commands of the pip build in parallel, timing each one.

Each object keeps its command line (<object>.cmd) and the headers it read
(<object>.d, from -MD, which nvcc takes too: TensorFlow's own headers, which
are -isystem ones, included), so that a build folder kept
between builds ($TENSORFLOW_OPS_BUILD_DIR) recompiles only the objects whose
command, source or headers changed, as Bazel would. A fresh folder (the
default) compiles everything.
"""

import concurrent.futures
import dataclasses
import os
import re
import shlex
import subprocess
import sys
import time
from typing import List, Optional, Sequence


class CompileError(Exception):
    """A compiler or linker command failed; the message holds its output."""


@dataclasses.dataclass
class Step:
    """One command that writes one file."""
    label: str            # what the log says, e.g. the source path
    command: List[str]
    output: str
    depfile: bool = True  # add -MD -MF: the compiler's header list


def log(message: str) -> None:
    """Prints a line of the build log at once (pip shows it with -v)."""
    print(f"[pip_build] {message}", flush=True)


def _depfile(step: Step) -> str:
    return step.output + ".d"


def _command_file(step: Step) -> str:
    return step.output + ".cmd"


def _full_command(step: Step) -> List[str]:
    if step.depfile:
        # -MD, not -MMD: -MMD leaves out the headers found through -isystem
        # (TensorFlow's), so that a TensorFlow upgraded in place, whose include
        # folder and flags are the same, would leave every object stale.
        return step.command + ["-MD", "-MF", _depfile(step)]
    return step.command


def _dependencies(depfile: str) -> Optional[List[str]]:
    """The files a make-style .d file names; None if it cannot be read."""
    try:
        with open(depfile) as dep:
            text = dep.read().replace("\\\n", " ")
    except OSError:
        return None
    # The first unescaped ':' ends the target; gcc writes a space in a path as
    # '\\ ', '#' as '\\#' and '$' as '$$'.
    match = re.search(r"(?<!\\):(\s|$)", text)
    if match is None:
        return None
    files = re.findall(r"(?:\\.|[^\s\\])+", text[match.end():])
    return [re.sub(r"\\(.)", r"\1", f).replace("$$", "$") for f in files]


def up_to_date(step: Step) -> bool:
    """Whether the output exists, was made by this very command, and is newer
    than every file it was made from."""
    try:
        built = os.path.getmtime(step.output)
        with open(_command_file(step)) as recorded:
            if recorded.read() != shlex.join(_full_command(step)):
                return False
    except OSError:
        return False
    if not step.depfile:
        return False  # a link: no header list, so always redone
    inputs = _dependencies(_depfile(step))
    if inputs is None:
        return False
    try:
        return all(os.path.getmtime(path) <= built for path in inputs)
    except OSError:
        return False  # a header is gone


def _run(step: Step) -> float:
    """Runs one step; returns its seconds."""
    os.makedirs(os.path.dirname(step.output), exist_ok=True)
    # A compile killed half way may leave a newer object: without its command
    # recorded, a kept build dir never takes it for up to date.
    if os.path.exists(_command_file(step)):
        os.remove(_command_file(step))
    command = _full_command(step)
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        status = (f"killed by signal {-result.returncode}" if result.returncode < 0
                  else f"exit status {result.returncode}")
        raise CompileError(f"{step.label} failed ({status}, {seconds:.1f} s):\n"
                           f"{shlex.join(command)}\n{result.stdout}{result.stderr}")
    with open(_command_file(step), "w") as recorded:
        recorded.write(shlex.join(command))
    return seconds


def run_steps(steps: Sequence[Step], jobs: int, what: str) -> float:
    """Runs the steps that are out of date, `jobs` at a time, in the given order
    (put the longest first); returns the sum of their seconds."""
    pending = [s for s in steps if not up_to_date(s)]
    reused = len(steps) - len(pending)
    log(f"{what}: {len(pending)} to run, {reused} up to date, {jobs} at a time")
    if pending:
        log(f"first command: {shlex.join(_full_command(pending[0]))}")
    total = 0.0
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_run, step): step for step in pending}
        done = 0
        try:
            for future in concurrent.futures.as_completed(futures):
                seconds = future.result()
                done += 1
                total += seconds
                log(f"[{done}/{len(pending)}] {futures[future].label}: {seconds:.1f} s")
        except BaseException:
            # Any failure (a compile, a compiler that is not there, a full disk)
            # stops the build at once rather than after the queue drains.
            for future in futures:
                future.cancel()
            raise
    log(f"{what}: {time.monotonic() - start:.1f} s elapsed, {total:.1f} s of "
        "compiler time")
    return total


def default_jobs() -> int:
    """$TENSORFLOW_OPS_JOBS, else one job per CPU this process may use."""
    requested = os.environ.get("TENSORFLOW_OPS_JOBS", "")
    if requested:
        if not requested.isdigit() or int(requested) < 1:
            sys.exit(f"TENSORFLOW_OPS_JOBS={requested!r}: expected a positive number")
        return int(requested)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1
