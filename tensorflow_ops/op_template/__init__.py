"""OpTemplate: multiplies a tensor by a constant, y = scale * x.

    from tensorflow_ops.op_template import op_template
    op_template([1.0, -2.0], scale=3.0)   # [3.0, -6.0]

`ops` holds the generated op functions of the loaded library. README.md walks
through the folder's files.
"""

from tensorflow_ops.op_template.python import op_template_ops

op_template = op_template_ops.op_template
ops = op_template_ops.ops

__all__ = ["ops", "op_template"]
