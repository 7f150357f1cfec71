// Op registration of SplitAt, with its shape function. The kernel lives in
// ../kernels; this file only describes the interface.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/framework/tensor.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::Tensor;
using ::tensorflow::shape_inference::DimensionHandle;
using ::tensorflow::shape_inference::InferenceContext;
using ::tensorflow::shape_inference::ShapeHandle;

// head [index], tail [length - index]. Each length is static where `index`
// (and for tail, the length of `values`) is known when the graph is built,
// and unknown otherwise; a known index out of range fails here already.
absl::Status SplitAtShape(InferenceContext* c) {
  ShapeHandle values;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &values));
  ShapeHandle index_shape;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &index_shape));

  const Tensor* index_tensor = c->input_tensor(1);
  if (index_tensor == nullptr) {
    c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
    c->set_output(1, c->Vector(InferenceContext::kUnknownDim));
    return absl::OkStatus();
  }
  const int64_t index = index_tensor->scalar<int32_t>()();
  const DimensionHandle length = c->Dim(values, 0);
  const bool length_known = c->ValueKnown(length);
  if (index < 0 || (length_known && index > c->Value(length))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index ", index, " is out of range [0, ",
        length_known ? absl::StrCat(c->Value(length)) : "length", "]"));
  }
  c->set_output(0, c->Vector(index));
  DimensionHandle tail_length;
  TF_RETURN_IF_ERROR(c->Subtract(length, index, &tail_length));
  c->set_output(1, c->Vector(tail_length));
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("SplitAt")
    .Input("values: T")
    .Input("index: int32")
    .Output("head: T")
    .Output("tail: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SplitAtShape)
    .Doc(R"doc(
Splits a vector at an index into its head and its tail.

values: 1-D [length].
index: 0-D, with 0 <= index <= length.
head: values[:index], 1-D [index].
tail: values[index:], 1-D [length - index].
)doc");

}  // namespace tensorflow_ops
