// MyBilinear's and MyBilinearGrad's OpKernels, written once for every device,
// as TensorFlow's ResizeBilinearOp<Device, T> is: Compute validates the inputs,
// allocates the output and hands both to a per-device functor that does the
// work. The functors are specialised in my_bilinear_cpu_functors.h (CPU) and
// in the *_gpu.cu.cc files (GPU), which also register the kernels.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_OP_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_OP_H_

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace functor {

// Fills `output` (non-empty, allocated) with `images` resized as `geometry`
// says. Declared here, defined for each device.
template <typename Device, typename T, typename OutT>
struct MyBilinear {
  absl::Status operator()(tensorflow::OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry,
                          const tensorflow::Tensor& images,
                          tensorflow::Tensor* output) const;
};

// Fills `images_grad` (non-empty, allocated) with the adjoint of MyBilinear
// applied to `grads`.
template <typename Device, typename T>
struct MyBilinearGrad {
  absl::Status operator()(tensorflow::OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry,
                          const tensorflow::Tensor& grads,
                          tensorflow::Tensor* images_grad) const;
};

}  // namespace functor

// Images of type T resized into an output of type OutT (see the op's out_type).
template <typename Device, typename T, typename OutT>
class MyBilinearOp : public BilinearOpKernel {
 public:
  explicit MyBilinearOp(tensorflow::OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(tensorflow::OpKernelContext* context) override {
    bilinear::ResizeGeometry geometry;
    tensorflow::Tensor* output = nullptr;
    OP_REQUIRES_OK(context, ValidateAndAllocateResize(context, sizeof(OutT),
                                                      &geometry, &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(context, functor::MyBilinear<Device, T, OutT>()(
                                context, geometry, context->input(0), output));
  }
};

// The gradient of MyBilinear with respect to its images, in their type T.
template <typename Device, typename T>
class MyBilinearGradOp : public BilinearOpKernel {
 public:
  explicit MyBilinearGradOp(tensorflow::OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(tensorflow::OpKernelContext* context) override {
    bilinear::ResizeGeometry geometry;
    tensorflow::Tensor* images_grad = nullptr;
    OP_REQUIRES_OK(context, ValidateAndAllocateResizeGrad(context, &geometry,
                                                          &images_grad));
    if (images_grad->NumElements() == 0) return;
    OP_REQUIRES_OK(context, functor::MyBilinearGrad<Device, T>()(
                                context, geometry, context->input(0), images_grad));
  }
};

}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_OP_H_
