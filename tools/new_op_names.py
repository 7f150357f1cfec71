"""The names of a generated op, derived from its snake_case name.

`scale_by` is the op ScaleBy (and ScaleByGrad), whose generated Python
functions TensorFlow names `scale_by` (and `scale_by_grad`). A name is usable
only if that round trip gives it back, since the wrapper and the tests call
the generated functions by name.
"""

import dataclasses
import keyword
import re

# Lower-case words of letters and digits joined by single underscores, each
# word starting with a letter (TensorFlow would drop the underscore before a
# digit: Resize2x gives resize2x, not resize_2x).
SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(_[a-z][a-z0-9]*)*")


def camel_case(snake: str) -> str:
    """scale_by -> ScaleBy."""
    return "".join(word.capitalize() for word in snake.split("_"))


def generated_function_name(op_name: str) -> str:
    """The name TensorFlow gives the Python function of op `op_name`: an
    underscore before each capital that follows a lower-case letter or that
    starts a lower-case word (GenerateLowerCaseOpName in TensorFlow's
    python_op_gen_internal.cc)."""
    out = []
    for i, char in enumerate(op_name):
        if char.isupper() and i > 0 and (
                op_name[i - 1].islower()
                or (i + 1 < len(op_name) and op_name[i + 1].islower())):
            out.append("_")
        out.append(char.lower())
    return "".join(out)


def name_problem(snake: str) -> str:
    """Why `snake` cannot name an op or a package; empty if it can."""
    if not SNAKE_CASE.fullmatch(snake):
        return (f"{snake!r} is not a snake_case name: use lower-case words of letters "
                "and digits, each starting with a letter, joined by single underscores "
                "(for example my_op)")
    if keyword.iskeyword(snake):
        return f"{snake!r} is a Python keyword"
    round_trip = generated_function_name(camel_case(snake))
    if round_trip != snake:
        return (f"{snake!r} gives the op name {camel_case(snake)}, whose Python function "
                f"TensorFlow would call {round_trip}; make every word at least two "
                "letters long")
    return ""


@dataclasses.dataclass(frozen=True)
class OpNames:
    """Every spelling of one generated op."""
    package: str      # folder under tensorflow_ops/, e.g. scale_by
    name: str         # the op in snake_case: files, namespace, Python function
    gpu: bool
    grad: bool

    @property
    def op(self) -> str:
        return camel_case(self.name)

    @property
    def grad_op(self) -> str:
        return self.op + "Grad"

    @property
    def folder(self) -> str:
        return f"tensorflow_ops/{self.package}"
