// The launches of MyBilinear's and MyBilinearGrad's CUDA kernels, one per
// type the op registers on a GPU, compiled by nvcc in
// instances/gpu_launchers.cu.cc: what the op's GPU functors
// (cc/kernels/my_bilinear_gpu_functors.cc) and the JAX FFI CUDA handlers
// (cc/jax/my_bilinear_ffi_gpu.cc) call.
//
// TensorFlow-free, and host code only: nvcc compiles the kernels once (the
// gpu_srcs of :bilinear_math_instances), without TensorFlow's or XLA's headers,
// and the host compiler compiles the callers, which include this, without CUDA's
// device pass (docs/gpu.md#how-the-gpu-kernels-build).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_LAUNCHERS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_LAUNCHERS_H_

#if defined(__CUDACC__) || GOOGLE_CUDA

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Enqueues the resize of `images` (T) into `output` (OutT) on `stream`
// (LaunchResize of bilinear_gpu_kernels.cu.h). T and OutT are the CUDA types:
// __half and __nv_bfloat16 for TensorFlow's half and bfloat16.
template <typename T, typename OutT>
struct GpuResize {
  static cudaError_t Launch(const ResizeGeometry& geometry, const T* images, OutT* output,
                            cudaStream_t stream);
};

// Enqueues the gradient (LaunchResizeGrad): `partial` holds
// GradPassesFor(geometry).partial_count elements of AccumulatorType<T>.
template <typename T>
struct GpuResizeGrad {
  static cudaError_t Launch(const ResizeGeometry& geometry, const T* grads,
                            AccumulatorType<T>* partial, T* images_grad,
                            cudaStream_t stream);
};

// The instances: floating images into their own type and into float, integer
// images into float; gradients of the floating types.
#define MY_BILINEAR_GPU_RESIZE_INSTANCES(X) \
  X(__half, __half)                         \
  X(__half, float)                          \
  X(__nv_bfloat16, __nv_bfloat16)           \
  X(__nv_bfloat16, float)                   \
  X(float, float)                           \
  X(double, double)                         \
  X(double, float)                          \
  X(int8_t, float)                          \
  X(uint8_t, float)                         \
  X(int16_t, float)                         \
  X(uint16_t, float)                        \
  X(int32_t, float)                         \
  X(int64_t, float)
#define MY_BILINEAR_GPU_GRAD_INSTANCES(X) \
  X(__half)                               \
  X(__nv_bfloat16)                        \
  X(float)                                \
  X(double)

#define MY_BILINEAR_DECLARE_GPU_RESIZE(T, OutT) extern template struct GpuResize<T, OutT>;
#define MY_BILINEAR_DECLARE_GPU_RESIZE_GRAD(T) extern template struct GpuResizeGrad<T>;
MY_BILINEAR_GPU_RESIZE_INSTANCES(MY_BILINEAR_DECLARE_GPU_RESIZE)
MY_BILINEAR_GPU_GRAD_INSTANCES(MY_BILINEAR_DECLARE_GPU_RESIZE_GRAD)
#undef MY_BILINEAR_DECLARE_GPU_RESIZE
#undef MY_BILINEAR_DECLARE_GPU_RESIZE_GRAD

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__) || GOOGLE_CUDA

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_LAUNCHERS_H_
