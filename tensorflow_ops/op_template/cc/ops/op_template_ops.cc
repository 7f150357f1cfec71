// Op registrations, with their shape functions. The kernels live in
// ../kernels; this file only describes the interface.
#include "absl/status/status.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::shape_inference::InferenceContext;
using ::tensorflow::shape_inference::ShapeHandle;

// y has the shape of x.
// TODO(you): your output's shape, from the input shapes (and, for inputs whose
// values are known when the graph is built, from c->input_tensor(i)). Keep it
// in step with what the kernel allocates.
absl::Status OpTemplateShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}
// --grad: begin

// x_grad has the shape of x, which grads must have too: a mismatch known when
// the graph is built fails here already.
absl::Status OpTemplateGradShape(InferenceContext* c) {
  ShapeHandle shape;
  TF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &shape));
  c->set_output(0, shape);
  return absl::OkStatus();
}
// --grad: end

}  // namespace

// TODO(you): your op's inputs, outputs, attrs and documentation.
REGISTER_OP("OpTemplate")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Attr("scale: float = 1.0")
    .SetShapeFn(OpTemplateShape)
    .Doc(R"doc(
Multiplies every element of a tensor by a constant: y = scale * x.

x: A tensor of any shape.
y: scale * x, with the shape and dtype of x.
scale: A finite number.
)doc");
// --grad: begin

REGISTER_OP("OpTemplateGrad")
    .Input("grads: T")
    .Input("x: T")
    .Output("x_grad: T")
    .Attr("T: {float, double}")
    .Attr("scale: float = 1.0")
    .SetShapeFn(OpTemplateGradShape)
    .Doc(R"doc(
Computes the gradient of OpTemplate with respect to x.

grads: The gradient of the loss with respect to OpTemplate's output y.
x: OpTemplate's input, of the shape of grads.
x_grad: The gradient of the loss with respect to x: scale * grads.
scale: The scale of the OpTemplate being differentiated.
)doc");
// --grad: end

}  // namespace tensorflow_ops
