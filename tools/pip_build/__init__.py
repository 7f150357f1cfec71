"""The pip build: `pip install --no-build-isolation .` compiles the op libraries
without Bazel (docs/pip_build.md).

  backend.py    the PEP 517 hooks; packs the wheel with tools/build_pip_pkg.py
  build.py      compiles and links every op library of the wheel
  targets.py    what to compile, read from the BUILD files
  toolchain.py  the command lines: the Bazel macros' flags (build_flags.bzl, in
                library_copts.bzl's order) and the installed TensorFlow's
                (find_tensorflow.py)
  compiler.py   runs the commands in parallel, timing each, reusing up-to-date objects
"""
