#include "tensorflow_ops/op_template/cc/kernels/op_template_validation.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor_shape.h"

namespace tensorflow_ops {

OpTemplateOpKernel::OpTemplateOpKernel(
    tensorflow::OpKernelConstruction* context)
    : OpKernel(context) {
  OP_REQUIRES_OK(context, context->GetAttr("scale", &scale_));
  OP_REQUIRES_OK(context, ValidateOpTemplateScale(scale_));
}

absl::Status ValidateOpTemplateScale(float scale) {
  // A NaN or infinite scale turns every element into NaN or Inf, which no
  // caller means; refusing it names the mistake where it was made.
  if (!std::isfinite(scale)) {
    return absl::InvalidArgumentError(
        absl::StrCat("scale must be finite, got ", scale));
  }
  return absl::OkStatus();
}
// --grad: begin

absl::Status ValidateOpTemplateGradShapes(const tensorflow::TensorShape& grads,
                                          const tensorflow::TensorShape& x) {
  if (!grads.IsSameSize(x)) {
    return absl::InvalidArgumentError(
        absl::StrCat("grads must have the shape of x, got grads shape ",
                     grads.DebugString(), " and x shape ", x.DebugString()));
  }
  return absl::OkStatus();
}
// --grad: end

}  // namespace tensorflow_ops
