"""What TensorFlow Lite does with a model that uses MyBilinear
(docs/tflite.md): the converter keeps the op, attrs intact, as a Flex op when
asked to, and refuses it otherwise; the pip interpreter, which has no Flex
delegate, refuses to run the result. If a TensorFlow release changes any of
this, these cases fail and the page needs rewriting."""

from typing import Dict, List, Tuple

import keras
import numpy as np
import tensorflow as tf
from flatbuffers import flexbuffers
from tensorflow.core.framework import node_def_pb2
from tensorflow.lite.python import schema_py_generated as tflite_schema

from tensorflow_ops import test_util
from tensorflow_ops.my_bilinear import MyBilinearLayer

_INPUT_SHAPE = (1, 8, 8, 3)
_SIZE = (16, 12)


def _resize_function(dtype: tf.DType, align_corners: bool,
                     half_pixel_centers: bool) -> Tuple[tf.types.experimental.ConcreteFunction,
                                                       keras.Model]:
    """A Keras model whose one layer is MyBilinearLayer, as a concrete function
    of a fixed input shape (what the converter takes)."""
    inputs = keras.Input(shape=_INPUT_SHAPE[1:], batch_size=_INPUT_SHAPE[0], dtype=dtype.name)
    model = keras.Model(inputs, MyBilinearLayer(_SIZE, align_corners=align_corners,
                                                half_pixel_centers=half_pixel_centers,
                                                dtype=dtype.name)(inputs))

    @tf.function(input_signature=[tf.TensorSpec(_INPUT_SHAPE, dtype)])
    def serve(images):
        return model(images)

    return serve.get_concrete_function(), model


def _convert(function, model: keras.Model, *, select_tf_ops: bool,
             user_ops: List[str], allow_custom_ops: bool = False) -> bytes:
    converter = tf.lite.TFLiteConverter.from_concrete_functions([function], model)
    if select_tf_ops:
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS,
                                               tf.lite.OpsSet.SELECT_TF_OPS]
    converter.target_spec.experimental_select_user_tf_ops = user_ops
    converter.allow_custom_ops = allow_custom_ops
    return converter.convert()


def _operators(flatbuffer: bytes) -> List[Tuple[str, bytes]]:
    """(custom code, custom options) of every operator of the model's graph."""
    model = tflite_schema.ModelT.InitFromPackedBuf(flatbuffer, 0)
    (graph,) = model.subgraphs
    operators = []
    for operator in graph.operators:
        code = model.operatorCodes[operator.opcodeIndex].customCode
        options = operator.customOptions
        operators.append(((code or b"").decode(),
                          bytes(bytearray(options)) if options is not None else b""))
    return operators


def _flex_node_def(options: bytes) -> node_def_pb2.NodeDef:
    """A Flex op's options: a FlexBuffer vector [op name, serialized NodeDef]."""
    op_name, serialized = flexbuffers.GetRoot(options).AsVector
    op_name = op_name.AsString
    node_def = node_def_pb2.NodeDef.FromString(bytes(serialized.AsStringBytes))
    if op_name != node_def.op:
        raise AssertionError(f"Flex op name {op_name!r} but NodeDef op {node_def.op!r}")
    return node_def


class TfliteConversionTest(test_util.TestCase):

    def test_select_user_op_keeps_the_op_and_its_attrs_as_a_flex_op(self):
        cases: Dict[str, Tuple[tf.DType, bool, bool]] = {
            "float32 half-pixel": (tf.float32, False, True),
            "float32 align corners": (tf.float32, True, False),
            "uint8 half-pixel": (tf.uint8, False, True),
        }
        for name, (dtype, align_corners, half_pixel_centers) in cases.items():
            with self.subTest(name):
                function, model = _resize_function(dtype, align_corners, half_pixel_centers)
                flatbuffer = _convert(function, model, select_tf_ops=True,
                                      user_ops=["MyBilinear"])
                ((code, options),) = _operators(flatbuffer)
                self.assertEqual(code, "FlexMyBilinear")
                node_def = _flex_node_def(options)
                self.assertEqual(node_def.op, "MyBilinear")
                self.assertEqual(node_def.attr["align_corners"].b, align_corners)
                self.assertEqual(node_def.attr["half_pixel_centers"].b, half_pixel_centers)
                self.assertEqual(node_def.attr["T"].type, dtype.as_datatype_enum)
                self.assertEqual(node_def.attr["out_type"].type, tf.float32.as_datatype_enum)

    def test_converter_refuses_the_op_unless_it_is_named(self):
        function, model = _resize_function(tf.float32, False, True)
        for select_tf_ops in (False, True):
            with self.subTest(select_tf_ops=select_tf_ops):
                with self.assertRaisesRegex(Exception, "Custom ops: MyBilinear"):
                    _convert(function, model, select_tf_ops=select_tf_ops, user_ops=[])

    def test_allow_custom_ops_leaves_an_op_the_interpreter_cannot_resolve(self):
        function, model = _resize_function(tf.float32, False, True)
        flatbuffer = _convert(function, model, select_tf_ops=False, user_ops=[],
                              allow_custom_ops=True)
        self.assertEqual([code for code, _ in _operators(flatbuffer)], ["MyBilinear"])
        interpreter = tf.lite.Interpreter(model_content=flatbuffer)
        with self.assertRaisesRegex(RuntimeError,
                                    "Encountered unresolved custom op: MyBilinear"):
            interpreter.allocate_tensors()

    def test_pip_interpreter_has_no_flex_delegate_to_run_it(self):
        function, model = _resize_function(tf.float32, False, True)
        flatbuffer = _convert(function, model, select_tf_ops=True, user_ops=["MyBilinear"])
        interpreter = tf.lite.Interpreter(model_content=flatbuffer)
        self.assertEqual([op["op_name"] for op in interpreter._get_ops_details()],
                         ["FlexMyBilinear"])
        with self.assertRaisesRegex(RuntimeError, r"Select TensorFlow op\(s\).*not supported"
                                    r" by this interpreter"):
            interpreter.allocate_tensors()
            interpreter.set_tensor(interpreter.get_input_details()[0]["index"],
                                   np.zeros(_INPUT_SHAPE, np.float32))
            interpreter.invoke()


if __name__ == "__main__":
    tf.test.main()
