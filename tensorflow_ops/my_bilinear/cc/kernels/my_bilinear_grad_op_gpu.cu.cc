// MyBilinearGrad's GPU functor and kernels: after MyBilinearGradOp's checks
// (the CPU kernels' own), one launch on TensorFlow's stream in which each
// thread gathers input-gradient elements with the per-element math of
// bilinear_elements.h. No atomics: every element is a fixed sequence of
// operations, so runs repeat bit for bit.
#if GOOGLE_CUDA

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/gpu_kernel_helper.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_op.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;
using GpuDevice = Eigen::GpuDevice;

namespace functor {

template <typename T>
struct MyBilinearGrad<GpuDevice, T> {
  absl::Status operator()(OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry,
                          const Tensor& grads, Tensor* images_grad) const {
    const int64_t count = images_grad->NumElements();
    const bilinear::LaunchGrid grid = bilinear::GridFor(count);
    const absl::Status launched = tensorflow::GpuLaunchKernel(
        bilinear::ResizeGradKernel<T>, static_cast<int>(grid.blocks),
        static_cast<int>(grid.threads_per_block), 0,
        context->eigen_device<GpuDevice>().stream(), geometry,
        grads.flat<T>().data(), count, grid, images_grad->flat<T>().data());
    if (launched.ok()) return launched;
    return absl::InternalError(absl::StrCat(
        "MyBilinearGrad: launching the GPU kernel failed: ", launched.message()));
  }
};

}  // namespace functor

namespace {

#define REGISTER_MY_BILINEAR_GRAD_GPU(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("MyBilinearGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"),     \
      MyBilinearGradOp<GpuDevice, T>);

TF_CALL_half(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_float(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_double(REGISTER_MY_BILINEAR_GRAD_GPU);

#undef REGISTER_MY_BILINEAR_GRAD_GPU

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
