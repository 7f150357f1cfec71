// MyBilinear's GPU functor and kernels: after MyBilinearOp's checks (the CPU
// kernels' own) and a check of the driver, one launch on TensorFlow's stream
// in which each thread computes output elements with the per-element math of
// bilinear_elements.h.
#if GOOGLE_CUDA

#include <cstdint>

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_gpu_status.cu.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_op.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;
using GpuDevice = Eigen::GpuDevice;

namespace functor {

template <typename T, typename OutT>
struct MyBilinear<GpuDevice, T, OutT> {
  absl::Status operator()(OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry,
                          const Tensor& images, Tensor* output) const {
    const absl::Status driver = DriverStatus("MyBilinear");
    if (!driver.ok()) return driver;
    return LaunchStatus(
        "MyBilinear",
        bilinear::LaunchResize(geometry, images.flat<T>().data(),
                               output->flat<OutT>().data(),
                               context->eigen_device<GpuDevice>().stream()));
  }
};

}  // namespace functor

namespace {

#define REGISTER_MY_BILINEAR_GPU(T, OutT)                                   \
  REGISTER_KERNEL_BUILDER(Name("MyBilinear")                                \
                              .Device(DEVICE_GPU)                           \
                              .TypeConstraint<T>("T")                       \
                              .TypeConstraint<OutT>("out_type")             \
                              .HostMemory("size"),                          \
                          MyBilinearOp<GpuDevice, T, OutT>);

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
