"""Compiles MyBilinear and MyBilinearGrad under an address-space limit.

Run by my_bilinear_xla_compile_bounds_test in a child process, since the
limit (RLIMIT_AS) cannot be lifted again. After a first compile has mapped
what XLA needs, the address space is capped at what is mapped plus LIMIT_BYTES;
then each case is compiled and run, and its outcome printed as one JSON line:
"ok", or the error's class and message. Past the limit an allocation inside
XLA kills the process, so the kernels must refuse tables that cannot fit.
"""

import json
import os
import resource

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # pylint: disable=g-import-not-at-top

from tensorflow_ops.my_bilinear import ops  # pylint: disable=g-import-not-at-top

LIMIT_BYTES = 1 << 30
# Output rows: 2^16 fits the limit; 2^25 needs tables of about 4 GB (with
# their copies), which crashed the process before the kernels counted the limit.
CASES = {"fits": 1 << 16, "tables_past_limit": 1 << 25}


def _mapped_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def _compiled(rows: int):
    """Forward and gradient functions resizing 2x2 to rows x 2, under XLA."""

    @tf.function(jit_compile=True)
    def forward(images):
        return ops.my_bilinear(images, [rows, 2], align_corners=False,
                               half_pixel_centers=True)

    @tf.function(jit_compile=True)
    def gradient(grads):
        return ops.my_bilinear_grad(grads, tf.zeros([1, 2, 2, 1]), align_corners=False,
                                    half_pixel_centers=True)

    return forward, gradient


def _outcome(run) -> str:
    try:
        run()
        return "ok"
    except tf.errors.OpError as error:
        return f"{type(error).__name__}: {error.message.splitlines()[0]}"


def main() -> None:
    forward, gradient = _compiled(4)
    forward(tf.ones([1, 2, 2, 1]))
    gradient(tf.ones([1, 4, 2, 1]))
    limit = _mapped_bytes() + LIMIT_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for name, rows in CASES.items():
        forward, gradient = _compiled(rows)
        print(json.dumps({
            "case": name,
            "forward": _outcome(lambda: forward(tf.ones([1, 2, 2, 1])).numpy()),
            "gradient": _outcome(lambda: gradient(tf.ones([1, rows, 2, 1])).numpy()),
        }), flush=True)


if __name__ == "__main__":
    main()
