// MyBilinear's and MyBilinearGrad's GPU functors and kernel registrations:
// after the op's checks (the CPU kernels' own) and a check of the driver,
// launches on TensorFlow's stream of the CUDA kernels that nvcc compiled in
// cc/math/instances/gpu_launchers.cu.cc. Host code: under --config=cuda the host
// compiler builds it (through nvcc, as C++) with GOOGLE_CUDA; in a CPU build it
// is empty (docs/gpu.md#how-the-gpu-kernels-build).
#if GOOGLE_CUDA

#ifndef EIGEN_USE_GPU  // the build may define it (NVCC_COPTS)
#define EIGEN_USE_GPU
#endif

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_dispatch.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_op.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cuda_driver.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_device_types.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_launchers.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_passes.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;
using GpuDevice = Eigen::GpuDevice;

namespace {

// The CUDA type the kernels were instantiated with for a TensorFlow type: the
// math's storage type, as the CPU kernels see it, as CUDA sees it. The same
// layout and rounding to nearest even, NaNs' bits aside
// (docs/gpu.md#how-the-gpu-kernels-build).
template <typename T>
using CudaType = bilinear::DeviceType<bilinear::CpuStorageType<T>>;

template <typename T>
const CudaType<T>* CudaData(const Tensor& tensor) {
  return reinterpret_cast<const CudaType<T>*>(
      bilinear::AsStorage(tensor.flat<T>().data()));
}
template <typename T>
CudaType<T>* CudaData(Tensor* tensor) {
  return reinterpret_cast<CudaType<T>*>(bilinear::AsStorage(tensor->flat<T>().data()));
}

// OK, or an error naming the op, both versions and the fix where the driver
// is too old for the CUDA this library was built with. The versions are asked
// once per process (the first launch): they cannot change while it runs.
absl::Status DriverStatus(const char* op) {
  struct Versions {
    bool driver_runs_runtime;
    int driver;
    int runtime;
  };
  static const Versions versions = [] {
    Versions v;
    v.driver_runs_runtime = bilinear::DriverRunsThisRuntime(&v.driver, &v.runtime);
    return v;
  }();
  if (versions.driver_runs_runtime) return absl::OkStatus();
  return absl::FailedPreconditionError(
      bilinear::DriverTooOldMessage(op, versions.driver, versions.runtime));
}

// OK, or an internal error naming the op and CUDA's message.
absl::Status LaunchStatus(const char* op, cudaError_t result) {
  if (result == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      op, ": launching the GPU kernel failed: ", cudaGetErrorString(result)));
}

}  // namespace

namespace functor {

// One launch, in which each thread computes output elements with the
// per-element math of bilinear_elements.h.
template <typename T, typename OutT>
struct MyBilinear<GpuDevice, T, OutT> {
  absl::Status operator()(OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry, const Tensor& images,
                          Tensor* output) const {
    const absl::Status driver = DriverStatus("MyBilinear");
    if (!driver.ok()) return driver;
    return LaunchStatus("MyBilinear",
                        bilinear::GpuResize<CudaType<T>, CudaType<OutT>>::Launch(
                            geometry, CudaData<T>(images), CudaData<OutT>(output),
                            context->eigen_device<GpuDevice>().stream()));
  }
};

// The row and column passes of bilinear_grad_passes.h, two launches a tile,
// through a temporary from TensorFlow's allocator. No atomics: every element
// is a fixed sequence of operations, so runs repeat bit for bit.
template <typename T>
struct MyBilinearGrad<GpuDevice, T> {
  absl::Status operator()(OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry, const Tensor& grads,
                          Tensor* images_grad) const {
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
        bilinear::GpuResizeGrad<CudaType<T>>::Launch(
            geometry, CudaData<T>(grads),
            partial.IsInitialized() ? partial.flat<A>().data() : nullptr,
            CudaData<T>(images_grad), context->eigen_device<GpuDevice>().stream()));
  }
};

}  // namespace functor

namespace {

#define REGISTER_MY_BILINEAR_GPU(T, OutT)                       \
  REGISTER_KERNEL_BUILDER(Name("MyBilinear")                    \
                              .Device(DEVICE_GPU)               \
                              .TypeConstraint<T>("T")           \
                              .TypeConstraint<OutT>("out_type") \
                              .HostMemory("size"),              \
                          MyBilinearOp<GpuDevice, T, OutT>);

// Floating images into their own type and into float (the default out_type);
// integer images into float: the instances of bilinear_gpu_launchers.h.
// Every (T, out_type) pair, as on the CPU, would be 40 instantiations and
// minutes of nvcc for pairs nobody asks a GPU for; the others get
// TensorFlow's usual "no kernel registered" error on a GPU.
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

#define REGISTER_MY_BILINEAR_GRAD_GPU(T)                                \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("MyBilinearGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      MyBilinearGradOp<GpuDevice, T>);

TF_CALL_half(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_float(REGISTER_MY_BILINEAR_GRAD_GPU);
TF_CALL_double(REGISTER_MY_BILINEAR_GRAD_GPU);

#undef REGISTER_MY_BILINEAR_GRAD_GPU
#undef REGISTER_MY_BILINEAR_GPU_INTO_FLOAT
#undef REGISTER_MY_BILINEAR_GPU_INTO_ITSELF_AND_FLOAT
#undef REGISTER_MY_BILINEAR_GPU

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
