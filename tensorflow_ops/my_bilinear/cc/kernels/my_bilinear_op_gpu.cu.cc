// GPU kernel of MyBilinear: the same checks as the CPU kernel, then one launch
// on TensorFlow's stream in which each thread computes output elements with
// the per-element math of bilinear_elements.h.
#if GOOGLE_CUDA

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
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

template <typename T, typename OutT>
class MyBilinearGpuOp : public BilinearOpKernel {
 public:
  explicit MyBilinearGpuOp(OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& images = context->input(0);
    bilinear::ResizeGeometry geometry;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, ValidateAndAllocateResize(context, sizeof(OutT),
                                                      &geometry, &output));
    const int64_t count = output->NumElements();
    if (count == 0) return;

    const bilinear::LaunchGrid grid = bilinear::GridFor(count);
    const absl::Status launched = tensorflow::GpuLaunchKernel(
        bilinear::ResizeKernel<T, OutT>, static_cast<int>(grid.blocks),
        static_cast<int>(grid.threads_per_block), 0,
        context->eigen_device<Eigen::GpuDevice>().stream(), geometry,
        images.flat<T>().data(), count, grid, output->flat<OutT>().data());
    OP_REQUIRES(context, launched.ok(),
                absl::InternalError(absl::StrCat("MyBilinear: launching the GPU "
                                                 "kernel failed: ",
                                                 launched.message())));
  }
};

#define REGISTER_MY_BILINEAR_GPU(T, OutT)                                   \
  REGISTER_KERNEL_BUILDER(Name("MyBilinear")                                \
                              .Device(DEVICE_GPU)                           \
                              .TypeConstraint<T>("T")                       \
                              .TypeConstraint<OutT>("out_type")             \
                              .HostMemory("size"),                          \
                          MyBilinearGpuOp<T, OutT>);

// Floating images into their own type and into float (the default out_type);
// integer images into float. Every (T, out_type) pair, as on the CPU, would
// be 40 instantiations and minutes of nvcc for pairs nobody asks a GPU for;
// the others get TensorFlow's usual "no kernel registered" error on a GPU.
#define REGISTER_MY_BILINEAR_GPU_INTO_ITSELF_AND_FLOAT(T) \
  REGISTER_MY_BILINEAR_GPU(T, T)                          \
  REGISTER_MY_BILINEAR_GPU(T, float)
#define REGISTER_MY_BILINEAR_GPU_INTO_FLOAT(T) REGISTER_MY_BILINEAR_GPU(T, float)

TF_CALL_half(REGISTER_MY_BILINEAR_GPU_INTO_ITSELF_AND_FLOAT);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_GPU_INTO_ITSELF_AND_FLOAT);
TF_CALL_float(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);
TF_CALL_double(REGISTER_MY_BILINEAR_GPU_INTO_ITSELF_AND_FLOAT);
TF_CALL_int8(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);
TF_CALL_uint8(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);
TF_CALL_int16(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);
TF_CALL_uint16(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);
TF_CALL_int32(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);
TF_CALL_int64(REGISTER_MY_BILINEAR_GPU_INTO_FLOAT);

#undef REGISTER_MY_BILINEAR_GPU_INTO_FLOAT
#undef REGISTER_MY_BILINEAR_GPU_INTO_ITSELF_AND_FLOAT
#undef REGISTER_MY_BILINEAR_GPU

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
