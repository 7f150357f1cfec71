// OpTemplate's OpKernels, written once for every device, as TensorFlow writes
// its own (and MyBilinear's are): Compute validates the inputs, allocates the
// output and hands both to a per-device functor that does the work. Each op's
// CPU functor is defined, and its CPU kernels registered, in its *_op.cc file.
// --gpu: begin
// Their GPU functors are defined, and their GPU kernels registered, in
// op_template_gpu_functors.cc.
// --gpu: end
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_OP_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_OP_H_

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/op_template/cc/kernels/op_template_validation.h"

namespace tensorflow_ops {
namespace functor {

// Fills `y` (non-empty, allocated) with OpTemplate of `x`. Declared here,
// defined for each device.
template <typename Device, typename T>
struct OpTemplate {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* y) const;
};
// --grad: begin

// Fills `x_grad` (non-empty, allocated) with the gradient of OpTemplate with
// respect to `x`, from `grads`, the gradient with respect to its output.
template <typename Device, typename T>
struct OpTemplateGrad {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& grads,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* x_grad) const;
};
// --grad: end

}  // namespace functor

template <typename Device, typename T>
class OpTemplateOp : public OpTemplateOpKernel {
 public:
  explicit OpTemplateOp(tensorflow::OpKernelConstruction* context)
      : OpTemplateOpKernel(context) {}

  void Compute(tensorflow::OpKernelContext* context) override {
    const tensorflow::Tensor& x = context->input(0);
    // TODO(you): check your inputs before allocating (see
    // op_template_validation.h), and allocate the shape your shape function
    // gives.
    tensorflow::Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    if (y->NumElements() == 0) return;
    OP_REQUIRES_OK(context,
                   functor::OpTemplate<Device, T>()(context, scale(), x, y));
  }
};
// --grad: begin

template <typename Device, typename T>
class OpTemplateGradOp : public OpTemplateOpKernel {
 public:
  explicit OpTemplateGradOp(tensorflow::OpKernelConstruction* context)
      : OpTemplateOpKernel(context) {}

  void Compute(tensorflow::OpKernelContext* context) override {
    const tensorflow::Tensor& grads = context->input(0);
    const tensorflow::Tensor& x = context->input(1);
    // The shape function checks this only where both shapes are known when the
    // graph is built; eager calls and unknown shapes are checked here.
    OP_REQUIRES_OK(context,
                   ValidateOpTemplateGradShapes(grads.shape(), x.shape()));
    tensorflow::Tensor* x_grad = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &x_grad));
    if (x_grad->NumElements() == 0) return;
    OP_REQUIRES_OK(context, functor::OpTemplateGrad<Device, T>()(
                                context, scale(), grads, x, x_grad));
  }
};
// --grad: end

}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_OP_H_
