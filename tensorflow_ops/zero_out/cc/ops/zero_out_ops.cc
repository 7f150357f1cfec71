// Op registration of ZeroOut, with its shape function. The kernel lives in
// ../kernels; this file only describes the interface.
#include "absl/status/status.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::shape_inference::InferenceContext;
using ::tensorflow::shape_inference::ShapeHandle;

// The output has the input's shape, which must be a vector.
absl::Status ZeroOutShape(InferenceContext* c) {
  ShapeHandle to_zero;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &to_zero));
  c->set_output(0, to_zero);
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("ZeroOut")
    .Input("to_zero: T")
    .Output("zeroed: T")
    .Attr("T: {int32, float}")
    .SetShapeFn(ZeroOutShape)
    .Doc(R"doc(
Keeps the first element of a vector and sets all others to zero.

The op has no gradient (it is registered with tf.no_gradient), so a gradient
through it is None.

to_zero: 1-D, of any length (an empty vector gives an empty result).
zeroed: Same shape as to_zero: [to_zero[0], 0, 0, ...].
)doc");

}  // namespace tensorflow_ops
