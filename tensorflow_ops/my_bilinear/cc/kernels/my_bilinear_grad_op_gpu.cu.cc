// MyBilinearGrad's GPU functor and kernels: after MyBilinearGradOp's checks
// (the CPU kernels' own) and a check of the driver, two launches on
// TensorFlow's stream, the row and column passes of bilinear_grad_passes.h,
// through a temporary from TensorFlow's allocator. No atomics: every element
// is a fixed sequence of operations, so runs repeat bit for bit.
#if GOOGLE_CUDA

#include <cstdint>

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_gpu_status.cu.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_op.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_passes.h"
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
    const absl::Status driver = DriverStatus("MyBilinearGrad");
    if (!driver.ok()) return driver;
    using A = bilinear::AccumulatorType<T>;
    // A tile's partial, from TensorFlow's allocator (its memory returns to the
    // pool once the launches are enqueued, as for any temporary). Its size is
    // at most the larger of grads and the input gradient (or 4M elements).
    const bilinear::GradPasses passes = bilinear::GradPassesFor(geometry);
    Tensor partial;
    if (!passes.copy && passes.count > 0) {
      const absl::Status allocated = context->allocate_temp(
          tensorflow::DataTypeToEnum<A>::value,
          tensorflow::TensorShape({passes.partial_count}), &partial);
      if (!allocated.ok()) return allocated;
    }
    return LaunchStatus(
        "MyBilinearGrad",
        bilinear::LaunchResizeGrad(
            geometry, grads.flat<T>().data(),
            partial.IsInitialized() ? partial.flat<A>().data() : nullptr,
            images_grad->flat<T>().data(),
            context->eigen_device<GpuDevice>().stream()));
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
