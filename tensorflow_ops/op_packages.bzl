"""The op packages of the workspace: the folders under tensorflow_ops/ that build
an op library, each with a py_library named <package>_py.

The wheel (//tensorflow_ops:all_ops) and the op fuzzer (//tests/fuzz:op_calls)
take their op packages from this one list, since a Bazel glob cannot look into
other packages. tools/new_op.py adds the line of each op it generates.
"""

OP_PACKAGES = [
    "my_bilinear",
    "split_at",
    "zero_out",
]

def op_py_libraries():
    """The Python library of every op package, as labels."""
    return ["//tensorflow_ops/%s:%s_py" % (package, package) for package in OP_PACKAGES]
