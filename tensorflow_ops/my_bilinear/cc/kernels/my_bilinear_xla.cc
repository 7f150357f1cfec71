// XLA kernels of MyBilinear and MyBilinearGrad: under jit_compile=True they
// replace the CPU OpKernels and emit plain HLO (gathers, elementwise math and
// converts), so a model that calls the ops compiles whole.
//
// `size` is a compile-time constant, so every weight is computed here, on the
// host, with the CPU kernels' own AxisSampler, and enters the HLO as a
// constant. The HLO then performs the CPU kernels' operations in their order:
// the forward pass blends horizontally, then vertically; the gradient replays
// the CPU gradient's sums (bilinear_adjoint_terms.h). Where XLA does not fuse
// a multiply and an add into one FMA, the results are bitwise those of the CPU
// kernels; XLA's CPU backend does fuse them wherever the machine has FMA
// instructions, which moves some results by an ulp or two. The HLO is generic,
// so the kernels are registered for every XLA backend (tested on CPU).
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "tensorflow/compiler/tf2xla/shape_util.h"
#include "tensorflow/compiler/tf2xla/type_util.h"
#include "tensorflow/compiler/tf2xla/xla_op_kernel.h"
#include "tensorflow/compiler/tf2xla/xla_op_registry.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_adjoint_terms.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_weights.h"
#include "xla/hlo/builder/lib/constants.h"
#include "xla/hlo/builder/lib/slicing.h"
#include "xla/hlo/builder/xla_builder.h"
#include "xla/primitive_util.h"
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

// NHWC axes.
constexpr int64_t kRowAxis = 1;
constexpr int64_t kColumnAxis = 2;

// The weights of every output index along one axis, as the CPU kernels
// compute them one by one (AxisSampler::At).
template <typename A>
struct AxisTable {
  std::vector<int64_t> lower;
  std::vector<int64_t> upper;
  std::vector<A> lerp;
};

template <typename A>
AxisTable<A> MakeAxisTable(const bilinear::AxisSampler<A>& sampler,
                           int64_t out_size) {
  AxisTable<A> table;
  for (int64_t i = 0; i < out_size; ++i) {
    const bilinear::AxisWeight<A> weight = sampler.At(i);
    table.lower.push_back(weight.lower);
    table.upper.push_back(weight.upper);
    table.lerp.push_back(weight.lerp);
  }
  return table;
}

template <typename A>
bilinear::AxisSampler<A> RowSampler(const bilinear::ResizeGeometry& g) {
  return {g.in_height, g.out_height, g.align_corners, g.half_pixel_centers};
}

template <typename A>
bilinear::AxisSampler<A> ColumnSampler(const bilinear::ResizeGeometry& g) {
  return {g.in_width, g.out_width, g.align_corners, g.half_pixel_centers};
}

// `input` with its slices along `axis` taken at `indices`, in that order.
XlaOp Take(XlaOp input, XlaBuilder* b, absl::Span<const int64_t> indices,
           int64_t axis) {
  return xla::TorchIndexSelect(input, xla::ConstantR1<int64_t>(b, indices), axis);
}

// `value` (rank 4) times `weights` along `axis`.
template <typename A>
XlaOp Weigh(XlaOp value, XlaBuilder* b, absl::Span<const A> weights,
            int64_t axis) {
  return xla::Mul(value, xla::ConstantR1<A>(b, weights), {axis});
}

// The forward resize of `images` ([b, h, w, c], any type) computed in A,
// converted to `out_type`: CPU's ResizeRows as whole-tensor operations.
template <typename A>
XlaOp ResizeHlo(XlaOp images, XlaBuilder* b, const bilinear::ResizeGeometry& g,
                xla::PrimitiveType out_type) {
  // Integer and narrow images are read as A, as the CPU kernel casts each
  // value; the identity casts through A too, like the CPU's static_cast.
  const XlaOp values =
      xla::ConvertElementType(images, xla::primitive_util::NativeToPrimitiveType<A>());
  if (bilinear::IsIdentity(g)) return xla::ConvertElementType(values, out_type);
  const AxisTable<A> rows = MakeAxisTable(RowSampler<A>(g), g.out_height);
  const AxisTable<A> columns = MakeAxisTable(ColumnSampler<A>(g), g.out_width);
  // Horizontal first, as the CPU kernel (and TensorFlow's) does.
  auto blend_columns = [&](XlaOp image_rows) {
    const XlaOp left = Take(image_rows, b, columns.lower, kColumnAxis);
    const XlaOp right = Take(image_rows, b, columns.upper, kColumnAxis);
    return xla::Add(left, Weigh<A>(xla::Sub(right, left), b, columns.lerp,
                                   kColumnAxis));
  };
  const XlaOp top = blend_columns(Take(values, b, rows.lower, kRowAxis));
  const XlaOp bottom = blend_columns(Take(values, b, rows.upper, kRowAxis));
  const XlaOp blended =
      xla::Add(top, Weigh<A>(xla::Sub(bottom, top), b, rows.lerp, kRowAxis));
  return xla::ConvertElementType(blended, out_type);
}

// A [b, h, w, c] predicate, true where `count` along `axis` exceeds `slot`.
XlaOp SlotPresent(XlaBuilder* b, const std::vector<int64_t>& count, int64_t slot,
                  absl::Span<const int64_t> dims, int64_t axis) {
  const XlaOp present = xla::Gt(xla::ConstantR1<int64_t>(b, count),
                                xla::ConstantR0<int64_t>(b, slot));
  return xla::BroadcastInDim(present, dims, {axis});
}

bool AllAbove(const std::vector<int64_t>& count, int64_t slot) {
  for (const int64_t c : count) {
    if (c <= slot) return false;
  }
  return true;
}

// The gradient of the resize for `grads` ([b, out_h, out_w, c] of T), in A,
// converted to T: the CPU's ResizeGradRows as whole-tensor operations. For
// every input row, the CPU kernel sums the weighted output rows that read it
// (ascending), then adds each column of that sum into the input columns it
// reads, in ascending column order, into sums that start at 0. An input row
// read by one output row alone is not summed: its row weight joins the column
// weights instead (weight * (1 - lerp)), and so it does here.
template <typename A>
XlaOp ResizeGradHlo(XlaOp grads, XlaBuilder* b, const bilinear::ResizeGeometry& g,
                    xla::PrimitiveType grad_type) {
  // The identity is its own adjoint: the gradient passes through unchanged.
  if (bilinear::IsIdentity(g)) return grads;
  const xla::PrimitiveType acc = xla::primitive_util::NativeToPrimitiveType<A>();
  const XlaOp values = xla::ConvertElementType(grads, acc);
  const bilinear::AdjointTerms<A> rows =
      bilinear::AxisAdjointTerms(RowSampler<A>(g), g.in_height, g.out_height);
  const bilinear::AdjointTerms<A> columns =
      bilinear::AxisAdjointTerms(ColumnSampler<A>(g), g.in_width, g.out_width);

  // Vertical sums [b, in_h, out_w, c]. `row_scale` is 1 for summed rows and
  // the row weight for rows read once, whose first slot then weighs 1.
  std::vector<A> row_scale(g.in_height, A(1));
  std::vector<A> first_weight = rows.weight[0];
  for (int64_t y = 0; y < g.in_height; ++y) {
    if (rows.count[y] == 1) std::swap(row_scale[y], first_weight[y]);
  }
  const std::vector<int64_t> row_sum_dims = {g.batch, g.in_height, g.out_width,
                                             g.channels};
  XlaOp row_sums =
      Weigh<A>(Take(values, b, rows.source[0], kRowAxis), b, first_weight, kRowAxis);
  for (int64_t j = 1; j < rows.slots(); ++j) {
    const XlaOp sum = xla::Add(
        row_sums, Weigh<A>(Take(values, b, rows.source[j], kRowAxis), b,
                           rows.weight[j], kRowAxis));
    row_sums = AllAbove(rows.count, j)
                   ? sum
                   : xla::Select(SlotPresent(b, rows.count, j, row_sum_dims,
                                             kRowAxis),
                                 sum, row_sums);
  }
  // Input rows no output row reads get 0 (the gathered row is a stand-in).
  if (!AllAbove(rows.count, 0)) {
    row_sums = xla::Select(
        SlotPresent(b, rows.count, 0, row_sum_dims, kRowAxis), row_sums,
        xla::Zeros(b, xla::ShapeUtil::MakeShape(acc, row_sum_dims)));
  }

  // Horizontal sums [b, in_h, in_w, c], starting from 0 as the CPU's do; the
  // weight of a term is row_scale * column weight, one rounding, as on CPU.
  const std::vector<int64_t> dims = {g.batch, g.in_height, g.in_width, g.channels};
  const XlaOp scale = xla::ConstantR1<A>(b, row_scale);
  XlaOp sums = xla::Zeros(b, xla::ShapeUtil::MakeShape(acc, dims));
  for (int64_t j = 0; j < columns.slots(); ++j) {
    const XlaOp weight = xla::Mul(
        xla::BroadcastInDim(scale, {g.in_height, g.in_width}, {0}),
        xla::BroadcastInDim(xla::ConstantR1<A>(b, columns.weight[j]),
                            {g.in_height, g.in_width}, {1}));
    const XlaOp term = xla::Mul(
        weight, Take(row_sums, b, columns.source[j], kColumnAxis), {1, 2});
    const XlaOp sum = xla::Add(sums, term);
    sums = AllAbove(columns.count, j)
               ? sum
               : xla::Select(SlotPresent(b, columns.count, j, dims, kColumnAxis),
                             sum, sums);
  }
  return xla::ConvertElementType(sums, grad_type);
}

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
    XlaBuilder* b = context->builder();
    // AccumulatorType<OutT>: double for double results, float otherwise.
    context->SetOutput(
        0, out_type_ == tensorflow::DT_DOUBLE
               ? ResizeHlo<double>(context->Input(0), b, geometry, out_type)
               : ResizeHlo<float>(context->Input(0), b, geometry, out_type));
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
    xla::PrimitiveType grad_type;
    OP_REQUIRES_OK(context, tensorflow::DataTypeToPrimitiveType(
                                context->input_type(0), &grad_type));
    XlaBuilder* b = context->builder();
    // AccumulatorType<T>: double for double, float for float, half, bfloat16.
    context->SetOutput(
        0, grad_type == xla::F64
               ? ResizeGradHlo<double>(context->Input(0), b, geometry, grad_type)
               : ResizeGradHlo<float>(context->Input(0), b, geometry, grad_type));
  }

 private:
  bilinear::ResizeGeometry attrs_;
};

REGISTER_XLA_OP(Name("MyBilinear").CompileTimeConstantInput("size"),
                MyBilinearXlaOp);
REGISTER_XLA_OP(Name("MyBilinearGrad"), MyBilinearGradXlaOp);

}  // namespace
}  // namespace tensorflow_ops
