// Checks shared by the kernels of OpTemplate's ops, on every device.
//
// Every check returns InvalidArgument naming the bad value, so that a bad call
// (a direct call of the generated op function too, which bypasses the Python
// wrapper) fails cleanly instead of computing garbage.
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_VALIDATION_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_VALIDATION_H_

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor_shape.h"

namespace tensorflow_ops {

// Base of the kernels of OpTemplate's ops: reads and checks the `scale` attr
// once, when the kernel is created, rather than on every call.
class OpTemplateOpKernel : public tensorflow::OpKernel {
 protected:
  explicit OpTemplateOpKernel(tensorflow::OpKernelConstruction* context);

  float scale() const { return scale_; }

 private:
  float scale_ = 1.0f;
};

// `scale` must be finite.
// TODO(you): the checks of your op's attrs.
absl::Status ValidateOpTemplateScale(float scale);
// --grad: begin

// OpTemplateGrad: `grads` must have the shape of `x`, since it is the gradient
// with respect to OpTemplate's output, which has that shape.
absl::Status ValidateOpTemplateGradShapes(const tensorflow::TensorShape& grads,
                                          const tensorflow::TensorShape& x);
// --grad: end

}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_VALIDATION_H_
