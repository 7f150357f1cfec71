// Whether the installed NVIDIA driver can run code from the CUDA runtime this
// library was built with: host code, for the launchers of every GPU build
// (the op's GPU functors, the JAX FFI handlers, tools/gpu_harness).
//
// TensorFlow-free. Host code only, so that sources the host compiler builds
// (the op's GPU functors) call it as nvcc-built ones do.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CUDA_DRIVER_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CUDA_DRIVER_H_

#if defined(__CUDACC__) || GOOGLE_CUDA

#include <cuda_runtime.h>

#include <string>

namespace tensorflow_ops {
namespace bilinear {

// The library links CUDA's static runtime from the nvcc that built it, which
// may be newer than the CUDA TensorFlow's wheel needs, so the driver can be too
// old for us while TensorFlow runs fine; this names both versions instead of
// the runtime's bare "driver version is insufficient". Within one major
// version a driver runs any minor release's machine code (CUDA's minor
// version compatibility; the build emits machine code for every GPU it
// targets), so only the major versions are compared. Versions are
// 1000 * major + 10 * minor.
inline bool DriverRunsThisRuntime(int* driver_version, int* runtime_version) {
  *runtime_version = CUDART_VERSION;
  *driver_version = 0;
  if (cudaDriverGetVersion(driver_version) != cudaSuccess) return false;
  return *driver_version / 1000 >= *runtime_version / 1000;
}

// "13.0" from CUDA's 13000.
inline std::string CudaVersionName(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// What a library's GPU op `op` says where DriverRunsThisRuntime gave false for
// these versions: both of them, and the fix. The op's GPU kernels and its JAX
// handlers say the same.
inline std::string DriverTooOldMessage(const char* op, int driver_version,
                                       int runtime_version) {
  return std::string(op) + ": the NVIDIA driver supports CUDA " +
         (driver_version > 0 ? CudaVersionName(driver_version) : "(none found)") +
         ", but this library's GPU kernels were built with CUDA " +
         CudaVersionName(runtime_version) + ". Install a driver for CUDA " +
         std::to_string(runtime_version / 1000) +
         " or newer, or rebuild with the CUDA toolkit TensorFlow was built with "
         "(docs/building.md#cuda).";
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__) || GOOGLE_CUDA

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CUDA_DRIVER_H_
