"""The CPU kernels advise a large fresh output for transparent huge pages
(cc/cpu/bilinear_huge_pages.h): the memory of a forward and of a gradient
output past 32 MiB is marked `hg` in /proc/self/smaps while the tensor lives,
that of a small one is not. Each runs in a child process whose first large
allocation it is, so that the output is fresh memory, as the advice requires.
"""

import json
import subprocess
import sys

import tensorflow as tf

from tensorflow_ops import test_util

_CHILD = r'''
import ctypes, json
import numpy as np, tensorflow as tf
from tensorflow_ops.my_bilinear import ops

def data_address(tensor):
    """The tensor's own buffer, through DLPack (which shares it)."""
    capsule = tf.experimental.dlpack.to_dlpack(tensor)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.c_void_p.from_address(get(capsule, b"dltensor")).value, capsule

def vm_flags(address):
    """The VmFlags of the mapping holding the first whole 2 MiB page from address."""
    page = (address + (2 << 20) - 1) & ~((2 << 20) - 1)
    inside = False
    for line in open("/proc/self/smaps"):
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:
            low, high = (int(v, 16) for v in fields[0].split("-"))
            inside = low <= page < high
        elif inside and line.startswith("VmFlags:"):
            return fields[1:]
    return []

rng = np.random.default_rng(0)
flags = {}
small = ops.my_bilinear(images=rng.random((1, 40, 40, 8), np.float32), size=(80, 80))
flags["small"] = vm_flags(data_address(small)[0])
forward = ops.my_bilinear(images=rng.random((41, 97, 83, 8), np.float32), size=(192, 160))
flags["forward"] = vm_flags(data_address(forward)[0])
del forward
grads = rng.uniform(-1, 1, (10, 128, 128, 16)).astype(np.float32)
gradient = ops.my_bilinear_grad(grads=grads,
                                original_image=np.zeros((10, 256, 256, 16), np.float32))
flags["gradient"] = vm_flags(data_address(gradient)[0])
flags["sizes"] = [41 * 192 * 160 * 8 * 4, gradient.numpy().nbytes]
print(json.dumps(flags))
'''


def _transparent_huge_pages() -> str:
    """The sysfs setting in brackets ("always", "madvise", "never"), or "" where
    the kernel has no transparent huge pages."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as enabled:
            text = enabled.read()
    except OSError:
        return ""
    return text[text.find("[") + 1:text.find("]")] if "[" in text else ""


class HugePageAdviceTest(test_util.TestCase):

    def test_large_outputs_are_marked_for_huge_pages(self):
        process = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True,
                                 text=True, timeout=300, check=False)
        self.assertEqual(process.returncode, 0, process.stderr[-3000:])
        flags = json.loads(process.stdout.strip().splitlines()[-1])
        for size in flags["sizes"]:
            self.assertGreater(size, 32 << 20)
        self.assertNotIn("hg", flags["small"])
        # Where the kernel has no transparent huge pages, or has them set to
        # "never", the advice is refused or ignored and nothing is to be seen.
        if _transparent_huge_pages() in ("always", "madvise"):
            self.assertIn("hg", flags["forward"], "forward output not advised")
            self.assertIn("hg", flags["gradient"], "gradient output not advised")

if __name__ == "__main__":
    tf.test.main()
