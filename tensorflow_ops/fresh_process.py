"""Runs a module of this package in a fresh Python process (for tests of what
survives saving and loading, and of what TensorFlow or the kernels decide once
per process: thread counts, the CPU path)."""

import json
import os
import subprocess
import sys
from typing import Dict, List, Optional

# A fresh process imports TensorFlow (3-5 s on 2 cores). The limit allows for a
# busy machine, yet ends the child before Bazel's 60 s limit of a small test, so
# a hang is reported as this module's timeout, not as a killed test.
TIMEOUT_SECONDS = 45


def run_module(module: str, args: List[str],
               env_changes: Optional[Dict[str, Optional[str]]] = None) -> dict:
    """Runs `python -m module args` with this process's import path and returns
    the JSON object on the last line of its stdout. `env_changes` sets
    environment variables for the child (None: unsets one)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               TF_CPP_MIN_LOG_LEVEL="2")
    for name, value in (env_changes or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    result = subprocess.run([sys.executable, "-m", module, *args], env=env,
                            capture_output=True, text=True, timeout=TIMEOUT_SECONDS,
                            check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{module} failed with exit code {result.returncode}:\n"
                           f"{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
