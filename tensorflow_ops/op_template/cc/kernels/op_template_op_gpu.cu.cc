// OpTemplate's GPU functor, which launches the kernel of
// op_template_gpu_kernels.cu.h on TensorFlow's stream, and its GPU kernels.
// The checks are the CPU kernels' own (OpTemplateOp in op_template_op.h).
#if GOOGLE_CUDA

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/gpu_kernel_helper.h"
#include "tensorflow_ops/op_template/cc/kernels/op_template_op.h"
#include "tensorflow_ops/op_template/cc/math/op_template_elements.h"
#include "tensorflow_ops/op_template/cc/math/op_template_gpu_kernels.cu.h"

namespace tensorflow_ops {

using GpuDevice = Eigen::GpuDevice;

namespace functor {

template <typename T>
struct OpTemplate<GpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* y) const {
    const int64_t count = y->NumElements();
    const op_template::LaunchGrid grid = op_template::GridFor(count);
    const absl::Status launched = tensorflow::GpuLaunchKernel(
        op_template::OpTemplateKernel<T>, static_cast<int>(grid.blocks),
        static_cast<int>(grid.threads_per_block), 0,
        context->eigen_device<GpuDevice>().stream(), x.flat<T>().data(), scale,
        count, grid, y->flat<T>().data());
    if (launched.ok()) return launched;
    return absl::InternalError(absl::StrCat(
        "OpTemplate: launching the GPU kernel failed: ", launched.message()));
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
