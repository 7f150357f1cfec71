// The CUDA kernels of MyBilinear and MyBilinearGrad: a grid-stride loop around
// the per-element functions of bilinear_elements.h.
//
// TensorFlow-free, so the op's GPU kernels (my_bilinear*_op_gpu.cu.cc) and the
// standalone harness (tools/gpu_harness) launch exactly the same code. Launch
// each with GridFor(count) blocks of kThreadsPerBlock threads, and that grid.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_KERNELS_CU_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_KERNELS_CU_H_

#if defined(__CUDACC__)

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// `count` output elements of the resize of `images` into `output`.
template <typename T, typename OutT>
__global__ void ResizeKernel(ResizeGeometry geometry, const T* __restrict__ images,
                             int64_t count, LaunchGrid grid,
                             OutT* __restrict__ output) {
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(geometry);
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    output[i] = ResizeElement<T, OutT>(geometry, samplers, images, i);
  }
}

// `count` input-gradient elements from `grads`. half and bfloat16 are summed
// in float (AccumulatorType), in registers.
template <typename T>
__global__ void ResizeGradKernel(ResizeGeometry geometry, const T* __restrict__ grads,
                                 int64_t count, LaunchGrid grid,
                                 T* __restrict__ images_grad) {
  using A = AccumulatorType<T>;
  const Samplers<A> samplers = SamplersFor<A>(geometry);
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    images_grad[i] = ResizeGradElement<T>(geometry, samplers, grads, i);
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__)

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_KERNELS_CU_H_
