// The CUDA kernels of OpTemplate's ops: a grid-stride loop around the
// per-element functions of op_template_elements.h, so that the host test
// op_template_gpu_grid_test walks the same loop over the same functions.
// Launch each with GridFor(count) blocks of kThreadsPerBlock threads, and pass
// that grid.
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_GPU_KERNELS_CU_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_GPU_KERNELS_CU_H_

#if defined(__CUDACC__)

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
// --grad: end

}  // namespace op_template
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__)

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_GPU_KERNELS_CU_H_
