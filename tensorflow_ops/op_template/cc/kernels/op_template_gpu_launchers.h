// The launches of OpTemplate's CUDA kernels that its GPU functors
// (op_template_gpu_functors.cc) make, one per type registered on a GPU,
// compiled by nvcc in op_template_gpu_launchers.cu.cc.
//
// TensorFlow-free, and host code only: nvcc compiles the kernels without
// TensorFlow's headers, and the host compiler compiles the functors, which
// include them, without CUDA's device pass (docs/gpu.md).
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_GPU_LAUNCHERS_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_GPU_LAUNCHERS_H_

#if defined(__CUDACC__) || GOOGLE_CUDA

#include <cuda_runtime.h>

#include <cstdint>

namespace tensorflow_ops {
namespace op_template {

// Enqueues OpTemplate of `count` elements of `x` into `y` on `stream`
// (LaunchOpTemplate of op_template_gpu_kernels.cu.h).
template <typename T>
struct GpuOpTemplate {
  static cudaError_t Launch(const T* x, float scale, int64_t count, T* y,
                            cudaStream_t stream);
};
// --grad: begin

// Enqueues OpTemplateGrad of `count` elements into `x_grad` on `stream`
// (LaunchOpTemplateGrad).
template <typename T>
struct GpuOpTemplateGrad {
  static cudaError_t Launch(const T* grads, const T* x, float scale,
                            int64_t count, T* x_grad, cudaStream_t stream);
};
// --grad: end

// The instances: the types registered on a GPU (op_template_gpu_functors.cc).
extern template struct GpuOpTemplate<float>;
extern template struct GpuOpTemplate<double>;
// --grad: begin
extern template struct GpuOpTemplateGrad<float>;
extern template struct GpuOpTemplateGrad<double>;
// --grad: end

}  // namespace op_template
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__) || GOOGLE_CUDA

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_KERNELS_OP_TEMPLATE_GPU_LAUNCHERS_H_
