// The CUDA kernels of OpTemplate's ops: a grid-stride loop around the
// per-element functions of op_template_elements.h, so that the host test
// op_template_gpu_grid_test walks the same loop over the same functions; and
// the functions that launch them on a stream, with GridFor(count) blocks of
// kThreadsPerBlock threads. TensorFlow-free, like MyBilinear's
// bilinear_gpu_kernels.cu.h, so that the one file nvcc compiles
// (op_template_gpu_launchers.cu.cc) reads no TensorFlow header in any of its
// passes (docs/gpu.md).
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_GPU_KERNELS_CU_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_GPU_KERNELS_CU_H_

#if defined(__CUDACC__)

#include <cuda_runtime.h>

#include <cstdint>

#include "tensorflow_ops/op_template/cc/math/op_template_elements.h"

namespace tensorflow_ops {
namespace op_template {

// `count` elements of OpTemplate of `x` into `y`.
template <typename T>
__global__ void OpTemplateKernel(const T* __restrict__ x, float scale,
                                 int64_t count, LaunchGrid grid,
                                 T* __restrict__ y) {
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    y[i] = OpTemplateElement(x[i], scale);
  }
}

// Enqueues OpTemplateKernel over `count` elements on `stream` (none for 0,
// which GridFor cannot take); returns the launch's result.
template <typename T>
cudaError_t LaunchOpTemplate(const T* x, float scale, int64_t count, T* y,
                             cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const LaunchGrid grid = GridFor(count);
  OpTemplateKernel<T>
      <<<static_cast<unsigned>(grid.blocks),
         static_cast<unsigned>(grid.threads_per_block), 0, stream>>>(
          x, scale, count, grid, y);
  return cudaGetLastError();
}
// --grad: begin

// `count` elements of OpTemplateGrad into `x_grad`.
template <typename T>
__global__ void OpTemplateGradKernel(const T* __restrict__ grads,
                                     const T* __restrict__ x, float scale,
                                     int64_t count, LaunchGrid grid,
                                     T* __restrict__ x_grad) {
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    x_grad[i] = OpTemplateGradElement(grads[i], x[i], scale);
  }
}

// Enqueues OpTemplateGradKernel over `count` elements on `stream` (none for
// 0); returns the launch's result.
template <typename T>
cudaError_t LaunchOpTemplateGrad(const T* grads, const T* x, float scale,
                                 int64_t count, T* x_grad,
                                 cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  const LaunchGrid grid = GridFor(count);
  OpTemplateGradKernel<T>
      <<<static_cast<unsigned>(grid.blocks),
         static_cast<unsigned>(grid.threads_per_block), 0, stream>>>(
          grads, x, scale, count, grid, x_grad);
  return cudaGetLastError();
}
// --grad: end

}  // namespace op_template
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__)

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_GPU_KERNELS_CU_H_
