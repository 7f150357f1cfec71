// MyBilinear and MyBilinearGrad as XLA FFI handlers on CUDA, for JAX: the
// TensorFlow GPU kernels' launches (bilinear_gpu_launchers.h, compiled once by
// nvcc in cc/math/instances/gpu_launchers.cu.cc) on XLA's stream.
//
// Host code: under --config=cuda the host compiler builds it (through nvcc, as
// C++) with GOOGLE_CUDA, so nvcc never reads XLA's FFI headers
// (docs/gpu.md#how-the-gpu-kernels-build); python/jax_ops.py registers the two
// symbols where the library has them. The dtype pairs are the TensorFlow GPU
// kernels' own (floating images into themselves and float, integer images
// into float), the launchers' instances; jax_ops asks for no other.
#if GOOGLE_CUDA

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/jax/my_bilinear_ffi.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cuda_driver.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_device_types.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_launchers.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_passes.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "xla/ffi/api/ffi.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// OK where the driver runs this library's CUDA runtime, else the message the
// op's GPU kernels give too (DriverTooOldMessage). Asked once per process: the
// versions cannot change while it runs.
ffi::Error DriverError(const char* op) {
  static const bool runs = [] {
    int driver = 0, runtime = 0;
    return DriverRunsThisRuntime(&driver, &runtime);
  }();
  if (runs) return ffi::Error::Success();
  int driver = 0, runtime = 0;
  DriverRunsThisRuntime(&driver, &runtime);
  return ffi::Error(ffi::ErrorCode::kFailedPrecondition,
                    DriverTooOldMessage(op, driver, runtime));
}

ffi::Error LaunchError(const char* op, cudaError_t result) {
  if (result == cudaSuccess) return ffi::Error::Success();
  return ffi::Error::Internal(std::string(op) + ": launching the GPU kernel failed: " +
                              cudaGetErrorString(result));
}

// Calls fn(TypeTag<T>(), TypeTag<OutT>()) for the pairs the GPU kernels are
// built for; returns false for any other.
template <typename Fn>
bool VisitGpuPair(ffi::DataType in, ffi::DataType out, const Fn& fn) {
  bool known = false;
  VisitImageType(in, [&](auto in_tag) {
    using T = typename decltype(in_tag)::type;
    if (out == ffi::DataType::F32) {
      fn(in_tag, TypeTag<float>());
      known = true;
    } else if (out == in && !std::is_same<T, float>::value &&
               !std::is_integral<T>::value) {
      fn(in_tag, in_tag);
      known = true;
    }
  });
  return known;
}

ffi::Error MyBilinearCuda(cudaStream_t stream, ffi::AnyBuffer images,
                          ffi::Result<ffi::AnyBuffer> output, bool align_corners,
                          bool half_pixel_centers) {
  ResizeGeometry g;
  ffi::Error checked =
      CheckResizeCall(images, *output, align_corners, half_pixel_centers, &g);
  if (checked.failure()) return checked;
  ffi::Error driver = DriverError("MyBilinear");
  if (driver.failure()) return driver;
  cudaError_t launched = cudaSuccess;
  const bool known =
      VisitGpuPair(images.element_type(), output->element_type(), [&](auto in, auto out) {
        using T = DeviceType<typename decltype(in)::type>;
        using OutT = DeviceType<typename decltype(out)::type>;
        launched = GpuResize<T, OutT>::Launch(
            g, static_cast<const T*>(images.untyped_data()),
            static_cast<OutT*>(output->untyped_data()), stream);
      });
  if (!known) {
    return InvalidArgument(
        "MyBilinear on the GPU takes floating images into their own dtype or "
        "float32, and integer images into float32");
  }
  return LaunchError("MyBilinear", launched);
}

ffi::Error MyBilinearGradCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                              ffi::AnyBuffer grads,
                              ffi::Result<ffi::AnyBuffer> images_grad, bool align_corners,
                              bool half_pixel_centers) {
  ResizeGeometry g;
  ffi::Error checked =
      CheckResizeGradCall(grads, *images_grad, align_corners, half_pixel_centers, &g);
  if (checked.failure()) return checked;
  ffi::Error driver = DriverError("MyBilinearGrad");
  if (driver.failure()) return driver;
  ffi::Error result = ffi::Error::Success();
  const bool known = VisitFloatType(grads.element_type(), [&](auto tag) {
    using T = DeviceType<typename decltype(tag)::type>;
    using A = AccumulatorType<typename decltype(tag)::type>;
    // A tile's partial sums, from XLA's allocator for this call: it is
    // stream-ordered, as TensorFlow's allocate_temp is for the TensorFlow
    // kernel, so the memory is reused only by work queued after these launches.
    const GradPasses passes = GradPassesFor(g);
    A* partial = nullptr;
    if (!passes.copy && passes.count > 0) {
      const auto allocated = scratch.Allocate(
          static_cast<size_t>(passes.partial_count) * sizeof(A), alignof(A));
      if (!allocated.has_value()) {
        result = ffi::Error(ffi::ErrorCode::kResourceExhausted,
                            "MyBilinearGrad: no GPU memory for the partial sums");
        return;
      }
      partial = static_cast<A*>(*allocated);
    }
    result = LaunchError(
        "MyBilinearGrad",
        GpuResizeGrad<T>::Launch(g, static_cast<const T*>(grads.untyped_data()), partial,
                                 static_cast<T*>(images_grad->untyped_data()), stream));
  });
  if (!known) {
    return InvalidArgument(kGradTypesMessage);
  }
  return result;
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops

// The symbols python/jax_ops.py registers as the CUDA targets.
BILINEAR_FFI_EXPORT(MyBilinearFfiCuda);
BILINEAR_FFI_EXPORT(MyBilinearGradFfiCuda);

XLA_FFI_DEFINE_HANDLER_SYMBOL(MyBilinearFfiCuda, tensorflow_ops::bilinear::MyBilinearCuda,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("align_corners")
                                  .Attr<bool>("half_pixel_centers"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(MyBilinearGradFfiCuda,
                              tensorflow_ops::bilinear::MyBilinearGradCuda,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<xla::ffi::ScratchAllocator>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("align_corners")
                                  .Attr<bool>("half_pixel_centers"));

#endif  // GOOGLE_CUDA
