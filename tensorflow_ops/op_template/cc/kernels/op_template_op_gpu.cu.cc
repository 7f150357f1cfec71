// OpTemplate's GPU functor, which launches the kernel of
// op_template_gpu_kernels.cu.h on TensorFlow's stream, and its GPU kernels.
// The checks are the CPU kernels' own (OpTemplateOp in op_template_op.h).
#if GOOGLE_CUDA

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/op_template/cc/kernels/op_template_op.h"
#include "tensorflow_ops/op_template/cc/math/op_template_gpu_kernels.cu.h"

namespace tensorflow_ops {

using GpuDevice = Eigen::GpuDevice;

namespace functor {

template <typename T>
struct OpTemplate<GpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* y) const {
    const cudaError_t launched = op_template::LaunchOpTemplate(
        x.flat<T>().data(), scale, y->NumElements(), y->flat<T>().data(),
        context->eigen_device<GpuDevice>().stream());
    if (launched == cudaSuccess) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("OpTemplate: launching the GPU kernel failed: ",
                     cudaGetErrorString(launched)));
  }
};

}  // namespace functor

namespace {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::register_kernel::Name;

#define REGISTER_OP_TEMPLATE_GPU(T)                                 \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("OpTemplate").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      OpTemplateOp<GpuDevice, T>);

REGISTER_OP_TEMPLATE_GPU(float);
REGISTER_OP_TEMPLATE_GPU(double);

#undef REGISTER_OP_TEMPLATE_GPU

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
