// What the GPU functors of MyBilinear and MyBilinearGrad return for a CUDA
// result: OK, or an error that names the op and, where the driver is too old
// for the CUDA this library was built with, both versions and the fix.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_GPU_STATUS_CU_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_GPU_STATUS_CU_H_

#if GOOGLE_CUDA

#include <cuda_runtime.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"

namespace tensorflow_ops {

// "13.0" from CUDA's 13000.
inline std::string CudaVersionName(int version) {
  return absl::StrCat(version / 1000, ".", (version % 1000) / 10);
}

// The driver's and the runtime's versions, asked once per process (the first
// launch): they cannot change while it runs.
struct CudaVersions {
  bool driver_runs_runtime;
  int driver;
  int runtime;
};

inline const CudaVersions& CudaVersionsOfThisProcess() {
  static const CudaVersions versions = [] {
    CudaVersions v;
    v.driver_runs_runtime = bilinear::DriverRunsThisRuntime(&v.driver, &v.runtime);
    return v;
  }();
  return versions;
}

inline absl::Status DriverStatus(const char* op) {
  const CudaVersions& v = CudaVersionsOfThisProcess();
  if (v.driver_runs_runtime) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      op, ": the NVIDIA driver supports CUDA ",
      v.driver > 0 ? CudaVersionName(v.driver) : std::string("(none found)"),
      ", but this library's GPU kernels were built with CUDA ",
      CudaVersionName(v.runtime), ". Install a driver for CUDA ", v.runtime / 1000,
      " or newer, or rebuild with the CUDA toolkit TensorFlow was built with "
      "(docs/building.md#cuda)."));
}

// OK, or an internal error naming the op, the step and CUDA's message.
inline absl::Status LaunchStatus(const char* op, cudaError_t result) {
  if (result == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(op, ": launching the GPU kernel failed: ",
                                          cudaGetErrorString(result)));
}

}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_GPU_STATUS_CU_H_
