// OpTemplate's math, one element at a time, free of TensorFlow so that a plain
// C++ test can run it.
// --gpu: begin
//
// __host__ __device__ under nvcc: the CPU ranges (op_template_ranges.h) and the
// CUDA kernels (op_template_gpu_kernels.cu.h) call the same functions, and
// op_template_gpu_grid_test runs them on the host over every index of the GPU
// kernels' launch grid.
// --gpu: end
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_ELEMENTS_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_ELEMENTS_H_

// --gpu: begin
#include <cstdint>

// --gpu: end
// __host__ __device__ under nvcc, so that CUDA kernels can call these
// functions too; plain functions for the host compiler.
#if defined(__CUDACC__)
#define OP_TEMPLATE_HOST_DEVICE __host__ __device__
#else
#define OP_TEMPLATE_HOST_DEVICE
#endif

namespace tensorflow_ops {
namespace op_template {

// One element of OpTemplate: y = scale * x.
// TODO(you): your op's math, for one element.
template <typename T>
OP_TEMPLATE_HOST_DEVICE inline T OpTemplateElement(T x, float scale) {
  return static_cast<T>(scale) * x;
}
// --grad: begin

// One element of OpTemplateGrad: the gradient with respect to x, from `grad`,
// the gradient with respect to y.
// TODO(you): the derivative of your math. dy/dx = scale does not depend on x,
// so x is unused here; most derivatives read it.
template <typename T>
OP_TEMPLATE_HOST_DEVICE inline T OpTemplateGradElement(T grad, T /*x*/,
                                                       float scale) {
  return static_cast<T>(scale) * grad;
}
// --grad: end
// --gpu: begin

// Threads per block of the GPU kernels, and the most blocks one launch uses:
// past that, each thread walks several elements (a grid-stride loop), which
// keeps the number of blocks an int, as CUDA wants, for any element count.
constexpr int64_t kThreadsPerBlock = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

struct LaunchGrid {
  int64_t blocks;
  int64_t threads_per_block;
};

// The grid of one launch over `count` elements (count > 0).
OP_TEMPLATE_HOST_DEVICE inline LaunchGrid GridFor(int64_t count) {
  const int64_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return {blocks < kMaxBlocks ? blocks : kMaxBlocks, kThreadsPerBlock};
}

// The flat indices of thread `thread` of block `block` are FirstIndex,
// FirstIndex + Stride, ... below the element count. Consecutive threads get
// consecutive indices, so a warp reads and writes consecutive elements.
OP_TEMPLATE_HOST_DEVICE inline int64_t FirstIndex(const LaunchGrid& grid,
                                                  int64_t block,
                                                  int64_t thread) {
  return block * grid.threads_per_block + thread;
}

OP_TEMPLATE_HOST_DEVICE inline int64_t Stride(const LaunchGrid& grid) {
  return grid.blocks * grid.threads_per_block;
}
// --gpu: end

}  // namespace op_template
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_ELEMENTS_H_
