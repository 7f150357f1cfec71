"""Finds every op library of the workspace and decodes fuzzer bytes into calls.

An op library is any subpackage of `tensorflow_ops` that exposes `ops`, the
module of generated op functions that `tf.load_op_library` returns; its ops
are the names in it that TensorFlow's op registry knows. A call is built from
the op's OpDef alone, so ops added later are fuzzed with no change here.

Decoding follows TensorFlow's Python op fuzzers: a FuzzedDataProvider picks
the op, every attr from its allowed values (any bool, int attrs including
int32 extremes), and for every input a rank from 0 to 6, any dims and values:
floats with NaN, Inf, -0.0 and denormals, integers with int32 extremes and
sizes such as 2^20, 2^30 and 46341. Input tensors hold at most
MAX_INPUT_ELEMENTS elements; what the op is asked to produce is not bounded
here (the fuzzer bounds the process's memory instead).
"""

import importlib
import pkgutil
import itertools
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import atheris
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_def_registry

import tensorflow_ops

MAX_INPUT_ELEMENTS = 4096
MAX_DIM = 64

# Integers that make size arguments hostile or edge-case, mixed with small ones.
SPECIAL_INTS = [0, 1, 2, 3, -1, -2, 2**31 - 1, -2**31, 2**31 - 2, -2**31 + 1,
                46341, 65535, 65536, 2**20, 2**24 + 3, 2**30, 2**16 + 1]
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, float("nan"), float("inf"),
                  float("-inf"), 1e-45, 5e-324, 6e-8, 65504.0, 3.4e38, -3.4e38,
                  1.7e308]
# Ranks 0-6; vectors and 4-D tensors (images, NHWC activations) more often, so
# that calls also get past the rank checks to the kernels.
RANK_CHOICES = [0, 1, 1, 1, 2, 3, 4, 4, 4, 4, 5, 6]
DEFAULT_TYPES = [tf.float32, tf.int32]


class OpUnderTest(NamedTuple):
    library: str                  # e.g. "tensorflow_ops.my_bilinear"
    op_def: object                # the OpDef from the registry
    function: Callable            # the generated function, e.g. ops.MyBilinear
    accepted_shapes: List[Tuple[List[Optional[int]], ...]]  # see _accepted_shapes


class OpCall(NamedTuple):
    op: OpUnderTest
    inputs: Dict[str, object]     # argument name -> NumPy array (or list of them)
    attrs: Dict[str, object]      # attrs passed explicitly (not inferred ones)
    upstream_seed: int            # values of the upstream gradient


def discover_ops() -> List[OpUnderTest]:
    """Every op of every `tensorflow_ops.<package>.ops` that can be imported."""
    found = []
    for module in sorted(pkgutil.iter_modules(tensorflow_ops.__path__),
                         key=lambda m: m.name):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"tensorflow_ops.{module.name}")
        generated = getattr(package, "ops", None)
        if generated is None:
            continue  # a package of Python-level techniques, no op library
        for name in sorted(dir(generated)):
            function = getattr(generated, name)
            # Only functions generated in this module (not e.g. typing.Any,
            # which shares its name with TensorFlow's op Any).
            if getattr(function, "__module__", None) != generated.__name__:
                continue
            op_def = op_def_registry.get(name)
            if op_def is not None and callable(function):
                found.append(OpUnderTest(package.__name__, op_def, function,
                                         _accepted_shapes(op_def, function)))
    return found


def _builds(op_def, function, shapes) -> bool:
    """Whether the op's shape function accepts inputs of these (partly unknown)
    shapes, with the first allowed type for each type attr."""
    first_types = {attr.name: allowed_types(attr)[0] for attr in op_def.attr
                   if attr.type == "type"}
    with tf.Graph().as_default():
        inputs = {
            arg.name: tf.compat.v1.placeholder(
                tf.as_dtype(arg.type) if arg.type else first_types[arg.type_attr],
                shape=shape)
            for arg, shape in zip(op_def.input_arg, shapes)}
        try:
            function(**inputs)
        except (ValueError, TypeError, tf.errors.InvalidArgumentError):
            return False
    return True


def _accepted_shapes(op_def, function) -> List[Tuple[List[Optional[int]], ...]]:
    """The input shapes that the op's shape function accepts: every combination
    of ranks 0-6, dims unknown except that a vector's length is probed (0-6).
    Most decoded calls use one of them, so they get past the shape checks to
    the kernel. Ops with lists of inputs, or more than 3 inputs, are not probed."""
    args = op_def.input_arg
    if len(args) > 3 or any(a.number_attr or a.type_list_attr for a in args):
        return []
    accepted = []
    for ranks in itertools.product(range(7), repeat=len(args)):
        shapes = tuple([None] * rank for rank in ranks)
        if not _builds(op_def, function, shapes):
            continue
        vectors = [i for i, rank in enumerate(ranks) if rank == 1]
        for lengths in itertools.product(range(7), repeat=len(vectors)):
            probe = list(shapes)
            for i, length in zip(vectors, lengths):
                probe[i] = [length]
            if _builds(op_def, function, probe):
                accepted.append(tuple(probe))
    return accepted


def _consume_int(fdp: atheris.FuzzedDataProvider) -> int:
    kind = fdp.ConsumeIntInRange(0, 3)
    if kind == 0:
        return fdp.PickValueInList(SPECIAL_INTS)
    return fdp.ConsumeIntInRange(-3, 64) if kind == 1 else fdp.ConsumeIntInRange(1, 8)


def _consume_shape(fdp: atheris.FuzzedDataProvider,
                   template: Optional[List[Optional[int]]],
                   earlier: List[List[int]]) -> List[int]:
    """A shape of the template's rank and known dims (any rank if None). Each
    dim may repeat that of an earlier input of the same rank, as ops that take
    several tensors usually want some dims to agree."""
    if template is None:
        template = [None] * fdp.PickValueInList(RANK_CHOICES)
    same_rank = [shape for shape in earlier if len(shape) == len(template)]
    shape = []
    for axis, known in enumerate(template):
        if known is not None:
            shape.append(known)
            continue
        if same_rank and fdp.ConsumeBool():
            shape.append(same_rank[-1][axis])
            continue
        # Mostly small positive dims, sometimes 0 or up to MAX_DIM.
        kind = fdp.ConsumeIntInRange(0, 7)
        shape.append(0 if kind == 0 else fdp.ConsumeIntInRange(
            1, MAX_DIM if kind == 1 else 5))
    while int(np.prod(shape, dtype=np.int64)) > MAX_INPUT_ELEMENTS:
        shape[shape.index(max(shape))] //= 2
    return shape


def _consume_values(fdp: atheris.FuzzedDataProvider, shape: List[int],
                    dtype: tf.DType) -> np.ndarray:
    count = int(np.prod(shape, dtype=np.int64))
    np_dtype = dtype.as_numpy_dtype
    if dtype.is_bool:
        return np.array([fdp.ConsumeBool() for _ in range(count)], np.bool_).reshape(shape)
    if dtype.is_integer:
        values = [_consume_int(fdp) for _ in range(min(count, 64))]
        # Integer values wrap into the dtype, as a C cast would.
        flat = np.resize(np.array(values or [0], np.int64), count)
        return flat.astype(np_dtype).reshape(shape)
    if dtype.is_floating:
        values = [fdp.PickValueInList(SPECIAL_FLOATS) if fdp.ConsumeBool()
                  else fdp.ConsumeFloatInRange(-1e3, 1e3) for _ in range(min(count, 64))]
        # The rest of a large tensor repeats the decoded values.
        flat = np.resize(np.array(values or [0.0], np.float64), count)
        with np.errstate(over="ignore"):
            return flat.astype(np_dtype).reshape(shape)
    if dtype == tf.string:
        return np.array([fdp.ConsumeBytes(4) for _ in range(count)],
                        object).reshape(shape)
    return np.zeros(shape, np_dtype)


def allowed_types(attr_def) -> List[tf.DType]:
    allowed = list(attr_def.allowed_values.list.type)
    return [tf.as_dtype(t) for t in allowed] if allowed else DEFAULT_TYPES


def decode(fdp: atheris.FuzzedDataProvider, ops: List[OpUnderTest]) -> OpCall:
    """One call of one of `ops`, decoded from the fuzzer's bytes."""
    op = ops[fdp.ConsumeIntInRange(0, len(ops) - 1)]
    attr_defs = {attr.name: attr for attr in op.op_def.attr}
    inferred = set()
    for arg in op.op_def.input_arg:
        inferred.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)

    values = {}
    for name, attr in attr_defs.items():
        if attr.type == "type":
            values[name] = fdp.PickValueInList(allowed_types(attr))
        elif attr.type == "bool":
            values[name] = fdp.ConsumeBool()
        elif attr.type == "int":
            values[name] = (fdp.ConsumeIntInRange(0, 3) if name in inferred
                            else _consume_int(fdp))
        elif attr.type == "float":
            values[name] = fdp.PickValueInList(SPECIAL_FLOATS)
        elif attr.type == "string":
            values[name] = fdp.ConsumeUnicodeNoSurrogates(8)

    # Shapes the shape function accepts three times in four, any shapes else.
    if op.accepted_shapes and fdp.ConsumeIntInRange(0, 3):
        templates = fdp.PickValueInList(op.accepted_shapes)
    else:
        templates = [None] * len(op.op_def.input_arg)
    inputs = {}
    shapes = []
    for arg, template in zip(op.op_def.input_arg, templates):
        if arg.type_list_attr:
            dtypes = [fdp.PickValueInList(allowed_types(attr_defs[arg.type_list_attr]))
                      for _ in range(fdp.ConsumeIntInRange(0, 3))]
        else:
            dtype = (tf.as_dtype(arg.type) if arg.type
                     else values.get(arg.type_attr, tf.float32))
            count = values.get(arg.number_attr, 1) if arg.number_attr else 1
            dtypes = [dtype] * count
        tensors = []
        for dtype in dtypes:
            shapes.append(_consume_shape(fdp, template, shapes))
            tensors.append(_consume_values(fdp, shapes[-1], dtype))
        single = not (arg.number_attr or arg.type_list_attr)
        inputs[arg.name] = tensors[0] if single else tensors
    attrs = {name: value for name, value in values.items() if name not in inferred}
    return OpCall(op, inputs, attrs, fdp.ConsumeIntInRange(0, 2**31 - 1))


def describe(call: OpCall) -> str:
    """The call, as a person reproducing it needs to read it."""
    lines = [f"{call.op.library}: {call.op.op_def.name}, attrs {call.attrs}"]
    for name, value in call.inputs.items():
        for i, array in enumerate(value if isinstance(value, list) else [value]):
            head = np.asarray(array).ravel()[:8].tolist()
            lines.append(f"  {name}[{i}]: {array.dtype} shape {list(array.shape)} "
                         f"first values {head}")
    return "\n".join(lines)
