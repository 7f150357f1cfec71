"""configure.py's CUDA decisions: when CUDA is on, which GPUs are compiled for,
and the warning when nvcc and TensorFlow differ in CUDA major version; and the
-gencode flags the build macros turn that list into."""

import ast
import importlib.util
import os
from unittest import mock

import tensorflow as tf

from tensorflow_ops import test_util

_CONFIGURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "configure.py")
_spec = importlib.util.spec_from_file_location("configure", _CONFIGURE)
configure = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(configure)
_NVCC_COMPILE_BZL = os.path.join(os.path.dirname(_CONFIGURE), "third_party", "gpus",
                                 "nvcc_compile.bzl")


def _gencode_flags():
    """gencode_flags of nvcc_compile.bzl, run as Python: it is written in the
    subset of Starlark that Python shares (string formatting, lists, fail)."""
    with open(_NVCC_COMPILE_BZL) as bzl:
        module = ast.parse(bzl.read())
    function = next(node for node in module.body
                    if isinstance(node, ast.FunctionDef) and node.name == "gencode_flags")

    def fail(message):
        raise ValueError(message)

    scope = {"fail": fail}
    exec(compile(ast.Module([function], []), _NVCC_COMPILE_BZL, "exec"), scope)
    return scope["gencode_flags"]

# What TensorFlow 2.21's GPU wheel reports in tf.sysconfig.get_build_info().
_TF_GPU = {"is_cuda_build": True, "cuda_version": "12.5.1",
           "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]}
_TF_CPU = {"is_cuda_build": False}
# What CUDA 13's nvcc lists (--list-gpu-code, --list-gpu-arch), abridged.
_NVCC_13 = configure.Nvcc("/usr/local/cuda/bin/nvcc", "/usr/local/cuda", "13.0",
                          ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                           "compute_75", "compute_80", "compute_89", "compute_90"])


class ConfigureCudaTest(test_util.TestCase):

    def _env(self, **values):
        patcher = mock.patch.dict(os.environ, values)
        patcher.start()
        self.addCleanup(patcher.stop)
        for name in ("TF_NEED_CUDA", "TF_CUDA_COMPUTE_CAPABILITIES"):
            if name not in values:
                os.environ.pop(name, None)

    def test_default_follows_tensorflow_build_and_nvcc(self):
        self._env()
        self.assertTrue(configure.want_cuda(None, _TF_GPU, _NVCC_13))
        self.assertFalse(configure.want_cuda(None, _TF_GPU, None))
        self.assertFalse(configure.want_cuda(None, _TF_CPU, _NVCC_13))

    def test_flag_then_environment_override_the_default(self):
        self._env(TF_NEED_CUDA="1")
        self.assertTrue(configure.want_cuda(None, _TF_CPU, _NVCC_13))
        self.assertFalse(configure.want_cuda(False, _TF_CPU, _NVCC_13))
        self._env(TF_NEED_CUDA="0")
        self.assertFalse(configure.want_cuda(None, _TF_GPU, _NVCC_13))
        self.assertTrue(configure.want_cuda(True, _TF_GPU, _NVCC_13))

    def test_capabilities_from_environment_in_either_spelling(self):
        self._env(TF_CUDA_COMPUTE_CAPABILITIES="7.5, sm_80,compute_90")
        capabilities, _ = configure.compute_capabilities(_TF_GPU, _NVCC_13)
        self.assertEqual(capabilities, ["sm_75", "sm_80", "compute_90"])

    def test_capabilities_of_tensorflow_that_nvcc_supports(self):
        self._env()
        capabilities, _ = configure.compute_capabilities(_TF_GPU, _NVCC_13)
        self.assertEqual(capabilities, ["sm_80", "sm_89", "compute_90"])

    def test_capabilities_default_without_tensorflow_list(self):
        self._env()
        capabilities, source = configure.compute_capabilities(_TF_CPU, _NVCC_13)
        self.assertEqual(capabilities,
                         ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "compute_90"])
        self.assertEqual(source, "default")

    def test_warning_only_when_major_versions_differ(self):
        warning = configure.version_warning("12.5.1", "13.0")
        self.assertRegex(warning, r"CUDA 13\.0 .*CUDA 12\.5\.1.*driver that supports "
                                  r"CUDA 13\.$")
        self.assertIsNone(configure.version_warning("12.5.1", "12.8"))
        self.assertIsNone(configure.version_warning("", "13.0"))

    def test_every_ptx_target_gets_machine_code_beside_it(self):
        gencode = _gencode_flags()
        pairs = lambda flags: [flags[i + 1] for i in range(0, len(flags), 2)]
        # TensorFlow's list as CUDA 13 keeps it: an H100/H200 gets sm_90 SASS,
        # not only PTX to JIT-compile at the first launch.
        self.assertEqual(pairs(gencode(["sm_80", "sm_89", "compute_90"])),
                         ["arch=compute_80,code=sm_80", "arch=compute_89,code=sm_89",
                          "arch=compute_90,code=sm_90", "arch=compute_90,code=compute_90"])
        # Listed already: not twice.
        self.assertEqual(pairs(gencode(["sm_90", "compute_90"])),
                         ["arch=compute_90,code=sm_90", "arch=compute_90,code=compute_90"])
        with self.assertRaisesRegex(ValueError, "Unknown compute capability 'gfx_90'"):
            gencode(["gfx_90"])


if __name__ == "__main__":
    tf.test.main()
