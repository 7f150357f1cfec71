// OpTemplate's GPU functors, which launch its CUDA kernels
// (op_template_gpu_launchers.h) on TensorFlow's stream, and its GPU kernel
// registrations. The checks are the CPU kernels' own (op_template_op.h).
// Host code: under --config=cuda the host compiler builds it (through nvcc,
// as C++) with GOOGLE_CUDA; in a CPU build it is empty (docs/gpu.md).
#if GOOGLE_CUDA

#ifndef EIGEN_USE_GPU  // the build may define it (NVCC_COPTS)
#define EIGEN_USE_GPU
#endif

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/op_template/cc/kernels/op_template_gpu_launchers.h"
#include "tensorflow_ops/op_template/cc/kernels/op_template_op.h"

namespace tensorflow_ops {

using GpuDevice = Eigen::GpuDevice;

namespace {

// OK, or an internal error naming the op and CUDA's message.
absl::Status LaunchStatus(const char* op, cudaError_t launched) {
  if (launched == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      op, ": launching the GPU kernel failed: ", cudaGetErrorString(launched)));
}

}  // namespace

namespace functor {

template <typename T>
struct OpTemplate<GpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* y) const {
    return LaunchStatus(
        "OpTemplate",
        op_template::GpuOpTemplate<T>::Launch(
            x.flat<T>().data(), scale, y->NumElements(), y->flat<T>().data(),
            context->eigen_device<GpuDevice>().stream()));
  }
};
// --grad: begin

template <typename T>
struct OpTemplateGrad<GpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& grads,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* x_grad) const {
    return LaunchStatus("OpTemplateGrad",
                        op_template::GpuOpTemplateGrad<T>::Launch(
                            grads.flat<T>().data(), x.flat<T>().data(), scale,
                            x_grad->NumElements(), x_grad->flat<T>().data(),
                            context->eigen_device<GpuDevice>().stream()));
  }
};
// --grad: end

}  // namespace functor

namespace {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::register_kernel::Name;

// The instances of op_template_gpu_launchers.h.
#define REGISTER_OP_TEMPLATE_GPU(T)                                 \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("OpTemplate").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      OpTemplateOp<GpuDevice, T>);

REGISTER_OP_TEMPLATE_GPU(float);
REGISTER_OP_TEMPLATE_GPU(double);

#undef REGISTER_OP_TEMPLATE_GPU
// --grad: begin

#define REGISTER_OP_TEMPLATE_GRAD_GPU(T)                                \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("OpTemplateGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      OpTemplateGradOp<GpuDevice, T>);

REGISTER_OP_TEMPLATE_GRAD_GPU(float);
REGISTER_OP_TEMPLATE_GRAD_GPU(double);

#undef REGISTER_OP_TEMPLATE_GRAD_GPU
// --grad: end

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
