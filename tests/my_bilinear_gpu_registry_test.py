"""The op library's GPU kernels, checked in TensorFlow's kernel registry.

Needs no GPU: CPU-only TensorFlow lists every kernel a loaded library
registers. Under --config=cuda the BUILD file passes `--gpu_kernels=expected`
and the library must register exactly the GPU kernels below, with `size` in
host memory; otherwise it passes `--gpu_kernels=absent`, and a CPU-only build
must register none.
"""

import sys
from typing import Dict, FrozenSet, Tuple

import tensorflow as tf
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import kernels

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import ops  # pylint: disable=unused-import

_FLOATING = ("DT_HALF", "DT_BFLOAT16", "DT_FLOAT", "DT_DOUBLE")
_INTEGER = ("DT_INT8", "DT_UINT8", "DT_INT16", "DT_UINT16", "DT_INT32", "DT_INT64")

# MyBilinear: (T, out_type) -> host-memory args. Floating images into their
# own type and into float; integer images into float.
_EXPECTED_FORWARD = {
    **{(t, t): ("size",) for t in _FLOATING},
    **{(t, "DT_FLOAT"): ("size",) for t in _FLOATING + _INTEGER},
}
# MyBilinearGrad: T -> host-memory args.
_EXPECTED_GRADIENT = {(t,): () for t in _FLOATING}


def _gpu_kernels(op_name: str, type_attrs: Tuple[str, ...]
                 ) -> Dict[Tuple[str, ...], FrozenSet[str]]:
    """The op's GPU kernels: their `type_attrs` values -> host-memory args."""
    found = {}
    for kernel in kernels.get_registered_kernels_for_op(op_name).kernel:
        if kernel.device_type != "GPU":
            continue
        allowed = {c.name: c.allowed_values.list.type for c in kernel.constraint}
        key = tuple(types_pb2.DataType.Name(t) for attr in type_attrs
                    for t in allowed[attr])
        found[key] = frozenset(kernel.host_memory_arg)
    return found


class MyBilinearGpuRegistryTest(test_util.TestCase):

    expect_gpu_kernels = True  # set from the command line in __main__

    def test_cpu_kernels_for_every_pair(self):
        cpu = [k for k in kernels.get_registered_kernels_for_op("MyBilinear").kernel
               if k.device_type == "CPU"]
        self.assertLen(cpu, 40)

    def test_my_bilinear_gpu_kernels(self):
        expected = ({key: frozenset(args) for key, args in _EXPECTED_FORWARD.items()}
                    if self.expect_gpu_kernels else {})
        self.assertEqual(_gpu_kernels("MyBilinear", ("T", "out_type")), expected)

    def test_my_bilinear_grad_gpu_kernels(self):
        expected = ({key: frozenset(args) for key, args in _EXPECTED_GRADIENT.items()}
                    if self.expect_gpu_kernels else {})
        self.assertEqual(_gpu_kernels("MyBilinearGrad", ("T",)), expected)


if __name__ == "__main__":
    flags = [a for a in sys.argv[1:] if a.startswith("--gpu_kernels=")]
    if flags != ["--gpu_kernels=expected"] and flags != ["--gpu_kernels=absent"]:
        sys.exit("pass --gpu_kernels=expected or --gpu_kernels=absent")
    MyBilinearGpuRegistryTest.expect_gpu_kernels = flags[0].endswith("=expected")
    sys.argv = [a for a in sys.argv if a not in flags]
    tf.test.main()
