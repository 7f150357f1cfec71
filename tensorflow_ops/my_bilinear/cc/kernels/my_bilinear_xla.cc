// XLA kernels of MyBilinear and MyBilinearGrad: under jit_compile=True they
// replace the CPU OpKernels and emit plain HLO (gathers, elementwise math and
// converts), so a model that calls the ops compiles whole.
//
// The HLO is built by my_bilinear_hlo.h with the CPU kernels' weights and
// order of operations. Where XLA does not fuse a multiply and an add into one
// FMA, the results are bitwise those of the CPU kernels; XLA's CPU backend
// does fuse them wherever the machine has FMA instructions, which moves some
// results by an ulp or two. The HLO is generic, so the kernels are registered
// for every XLA backend (tested on CPU).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/compiler/tf2xla/shape_util.h"
#include "tensorflow/compiler/tf2xla/type_util.h"
#include "tensorflow/compiler/tf2xla/xla_op_kernel.h"
#include "tensorflow/compiler/tf2xla/xla_op_registry.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/platform/mem.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_hlo.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "xla/hlo/builder/xla_builder.h"
#include "xla/shape_util.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DataType;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::TensorShape;
using ::tensorflow::XlaOpKernel;
using ::tensorflow::XlaOpKernelContext;
using ::xla::XlaBuilder;
using ::xla::XlaOp;

// Reads align_corners and half_pixel_centers, and refuses their one invalid
// combination with the CPU kernels' message.
absl::Status ReadAttrs(OpKernelConstruction* context,
                       bilinear::ResizeGeometry* geometry) {
  TF_RETURN_IF_ERROR(context->GetAttr("align_corners", &geometry->align_corners));
  TF_RETURN_IF_ERROR(
      context->GetAttr("half_pixel_centers", &geometry->half_pixel_centers));
  return ValidateBilinearAttrs(geometry->align_corners,
                               geometry->half_pixel_centers);
}

// An output larger than the memory the process can use
// (bilinear_hlo::UsableMemoryBytes): the CPU kernel's allocator refuses it
// ("OOM when allocating tensor with shape[...] and type ..."), and so does
// the compile, in the same words, rather than XLA when it runs.
absl::Status CheckOutputFitsInMemory(const TensorShape& shape, DataType type) {
  const int64_t bytes = TensorBytes(shape, type);
  const int64_t memory = bilinear_hlo::UsableMemoryBytes();
  if (memory <= 0 || (bytes >= 0 && bytes <= memory)) return absl::OkStatus();
  return OutputTooLargeError(
      shape, type, bytes,
      absl::StrCat("more than the ", memory,
                   " bytes of memory this process can use (refused when "
                   "compiling)"));
}

// The static shape of input `index` (XLA shapes are always static here: the
// ops have no dynamic dimensions).
absl::Status InputTensorShape(XlaOpKernelContext* context, int index,
                              TensorShape* shape) {
  TF_ASSIGN_OR_RETURN(const xla::Shape xla_shape, context->InputXlaShape(index));
  return tensorflow::XLAShapeToTensorShape(xla_shape, shape);
}

class MyBilinearXlaOp : public XlaOpKernel {
 public:
  explicit MyBilinearXlaOp(OpKernelConstruction* context)
      : XlaOpKernel(context) {
    OP_REQUIRES_OK(context, ReadAttrs(context, &attrs_));
    OP_REQUIRES_OK(context, context->GetAttr("out_type", &out_type_));
  }

  void Compile(XlaOpKernelContext* context) override {
    TensorShape images_shape, size_shape;
    OP_REQUIRES_OK(context, InputTensorShape(context, 0, &images_shape));
    OP_REQUIRES_OK(context, InputTensorShape(context, 1, &size_shape));
    OP_REQUIRES_OK(context, ValidateResizeShapes(images_shape, size_shape));
    std::vector<int64_t> size;
    OP_REQUIRES_OK(context, context->ConstantInputAsIntVector(1, &size));
    bilinear::ResizeGeometry geometry = attrs_;
    OP_REQUIRES_OK(context, ValidateResizeSize(images_shape, size[0], size[1],
                                               tensorflow::DataTypeSize(out_type_),
                                               &geometry));
    xla::PrimitiveType out_type;
    OP_REQUIRES_OK(context, tensorflow::DataTypeToPrimitiveType(out_type_, &out_type));
    // ValidateResizeSize refused shapes whose bytes overflow.
    OP_REQUIRES_OK(context, CheckOutputFitsInMemory(
                                TensorShape({geometry.batch, geometry.out_height,
                                             geometry.out_width, geometry.channels}),
                                out_type_));
    XlaBuilder* b = context->builder();
    // AccumulatorType<OutT>: double for double results, float otherwise.
    OP_REQUIRES_VALUE(
        const XlaOp resized, context,
        out_type_ == tensorflow::DT_DOUBLE
            ? bilinear_hlo::ResizeHlo<double>(context->Input(0), b, geometry, out_type)
            : bilinear_hlo::ResizeHlo<float>(context->Input(0), b, geometry, out_type));
    context->SetOutput(0, resized);
  }

 private:
  bilinear::ResizeGeometry attrs_;
  DataType out_type_ = tensorflow::DT_FLOAT;
};

class MyBilinearGradXlaOp : public XlaOpKernel {
 public:
  explicit MyBilinearGradXlaOp(OpKernelConstruction* context)
      : XlaOpKernel(context) {
    OP_REQUIRES_OK(context, ReadAttrs(context, &attrs_));
  }

  void Compile(XlaOpKernelContext* context) override {
    TensorShape grads_shape, original_image_shape;
    OP_REQUIRES_OK(context, InputTensorShape(context, 0, &grads_shape));
    OP_REQUIRES_OK(context, InputTensorShape(context, 1, &original_image_shape));
    bilinear::ResizeGeometry geometry = attrs_;
    OP_REQUIRES_OK(context, ValidateResizeGradShapes(
                                grads_shape, original_image_shape, &geometry));
    OP_REQUIRES_OK(context, CheckOutputFitsInMemory(original_image_shape,
                                                    context->input_type(0)));
    xla::PrimitiveType grad_type;
    OP_REQUIRES_OK(context, tensorflow::DataTypeToPrimitiveType(
                                context->input_type(0), &grad_type));
    XlaBuilder* b = context->builder();
    // AccumulatorType<T>: double for double, float for float, half, bfloat16.
    OP_REQUIRES_VALUE(
        const XlaOp grad, context,
        grad_type == xla::F64
            ? bilinear_hlo::ResizeGradHlo<double>(context->Input(0), b, geometry, grad_type)
            : bilinear_hlo::ResizeGradHlo<float>(context->Input(0), b, geometry, grad_type));
    context->SetOutput(0, grad);
  }

 private:
  bilinear::ResizeGeometry attrs_;
};

REGISTER_XLA_OP(Name("MyBilinear").CompileTimeConstantInput("size"),
                MyBilinearXlaOp);
REGISTER_XLA_OP(Name("MyBilinearGrad"), MyBilinearGradXlaOp);

}  // namespace
}  // namespace tensorflow_ops
