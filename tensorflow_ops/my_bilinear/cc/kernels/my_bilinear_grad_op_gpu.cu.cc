// GPU kernel of MyBilinearGrad: the same checks as the CPU kernel, then one
// launch on TensorFlow's stream in which each thread gathers input-gradient
// elements with the per-element math of bilinear_elements.h. No atomics:
// every element is a fixed sequence of operations, so runs repeat bit for bit.
#if GOOGLE_CUDA

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/gpu_kernel_helper.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;

template <typename T>
class MyBilinearGradGpuOp : public BilinearOpKernel {
 public:
  explicit MyBilinearGradGpuOp(OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& grads = context->input(0);
    bilinear::ResizeGeometry geometry;
    Tensor* images_grad = nullptr;
    OP_REQUIRES_OK(context, ValidateAndAllocateResizeGrad(context, &geometry,
                                                          &images_grad));
    const int64_t count = images_grad->NumElements();
    if (count == 0) return;

    const bilinear::LaunchGrid grid = bilinear::GridFor(count);
    const absl::Status launched = tensorflow::GpuLaunchKernel(
        bilinear::ResizeGradKernel<T>, static_cast<int>(grid.blocks),
        static_cast<int>(grid.threads_per_block), 0,
        context->eigen_device<Eigen::GpuDevice>().stream(), geometry,
        grads.flat<T>().data(), count, grid, images_grad->flat<T>().data());
    OP_REQUIRES(context, launched.ok(),
                absl::InternalError(absl::StrCat("MyBilinearGrad: launching the "
                                                 "GPU kernel failed: ",
                                                 launched.message())));
  }
};

#define REGISTER_MY_BILINEAR_GRAD_GPU(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("MyBilinearGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"),     \
      MyBilinearGradGpuOp<T>);

TF_CALL_half(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_float(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_double(REGISTER_MY_BILINEAR_GRAD_GPU);

#undef REGISTER_MY_BILINEAR_GRAD_GPU

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
