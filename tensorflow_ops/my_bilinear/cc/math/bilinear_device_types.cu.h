// The CUDA types the GPU kernels are launched with for the math's 16-bit
// storage types, for launchers that hold Float16 and Bfloat16 buffers (the
// JAX FFI handlers, tools/gpu_harness, and the op's GPU functors after their
// CPU storage type). Float16 and Bfloat16 convert in
// __host__ functions only (nvcc warns that a kernel instantiated with them
// calls __host__ code), so the device side uses CUDA's __half and
// __nv_bfloat16: the same layout and rounding to nearest even, standing in for
// the op's Eigen::half and Eigen::bfloat16.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_DEVICE_TYPES_CU_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_DEVICE_TYPES_CU_H_

// Also for host code built with GOOGLE_CUDA (the op's GPU functors): CUDA's
// 16-bit headers compile with the host compiler too.
#if defined(__CUDACC__) || GOOGLE_CUDA

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"

namespace tensorflow_ops {
namespace bilinear {

template <typename T>
struct DeviceTypeOf {
  using type = T;
};
template <>
struct DeviceTypeOf<Float16> {
  using type = __half;
};
template <>
struct DeviceTypeOf<Bfloat16> {
  using type = __nv_bfloat16;
};
template <typename T>
using DeviceType = typename DeviceTypeOf<T>::type;
static_assert(sizeof(__half) == sizeof(Float16), "half layouts differ");
static_assert(sizeof(__nv_bfloat16) == sizeof(Bfloat16), "bfloat16 layouts differ");

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__) || GOOGLE_CUDA

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_DEVICE_TYPES_CU_H_
