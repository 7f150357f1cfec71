"""The GPU files of an op generated with --gpu (see tools/new_op.py).

The CUDA kernels are a grid-stride loop around the per-element functions of
the op's math header, which are __host__ __device__; the grid test runs the
same loop on the host. Conventions as in tools/new_op_cc.py.
"""

from typing import Dict

from tools import new_op_layout
from tools.new_op_names import OpNames

_GPU_GRID_H = """\
// How the GPU kernels of $Op split a tensor among threads: a grid of blocks of
// kThreadsPerBlock threads, each thread walking the flat indices
// FirstIndex, FirstIndex + Stride, ... below the element count (a grid-stride
// loop).
//
// TensorFlow-free and __host__ __device__, so that ${name}_gpu_grid_test runs
// the kernels' loop on the host over every (block, thread) of the same grid.
#ifndef ${guard}_GPU_GRID_H_
#define ${guard}_GPU_GRID_H_

#include <cstdint>

#include "$folder/cc/kernels/$name.h"

namespace tensorflow_ops {
namespace $name {

// Past kMaxBlocks blocks each thread walks several elements, which keeps the
// number of blocks an int (as CUDA wants) for any element count.
constexpr int64_t kThreadsPerBlock = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

struct LaunchGrid {
  int64_t blocks;
  int64_t threads_per_block;
};

// The grid of one launch over `count` elements (count > 0).
$HOST_DEVICE inline LaunchGrid GridFor(int64_t count) {
  const int64_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return {blocks < kMaxBlocks ? blocks : kMaxBlocks, kThreadsPerBlock};
}

// Consecutive threads get consecutive indices, so a warp reads and writes
// consecutive elements.
$HOST_DEVICE inline int64_t FirstIndex(const LaunchGrid& grid,
                                      int64_t block, int64_t thread) {
  return block * grid.threads_per_block + thread;
}

$HOST_DEVICE inline int64_t Stride(const LaunchGrid& grid) {
  return grid.blocks * grid.threads_per_block;
}

}  // namespace $name
}  // namespace tensorflow_ops

#endif  // ${guard}_GPU_GRID_H_
"""

_GPU_KERNEL = """\
// GPU kernels of $Op$and_grad_op: the CPU kernels' checks, then one launch on
// TensorFlow's stream in which each thread computes elements with the
// per-element math of $name.h.$one_file
#if GOOGLE_CUDA

#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/gpu_kernel_helper.h"
#include "$folder/cc/kernels/$name.h"
#include "$folder/cc/kernels/${name}_gpu_grid.h"
#include "$folder/cc/kernels/${name}_validation.h"

namespace tensorflow_ops {
namespace $name {

template <typename T>
__global__ void ${Op}Kernel(const T* __restrict__ x, float scale,
                ${_Op}       int64_t count, LaunchGrid grid,
                ${_Op}       T* __restrict__ y) {
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    y[i] = ${Op}Element(x[i], scale);
  }
}
$grad_global
}  // namespace $name

namespace {

using ::tensorflow::DEVICE_GPU;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;

template <typename T>
class ${Op}GpuOp : public ${Op}OpKernel {
 public:
  explicit ${Op}GpuOp(OpKernelConstruction* context)
      : ${Op}OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    const int64_t count = x.NumElements();
    if (count == 0) return;

    const ${name}::LaunchGrid grid = ${name}::GridFor(count);
    OP_REQUIRES_OK(context,
                   tensorflow::GpuLaunchKernel(
                       ${name}::${Op}Kernel<T>,
                       static_cast<int>(grid.blocks),
                       static_cast<int>(grid.threads_per_block),
                       /*shared_memory_size_bytes=*/0,
                       context->eigen_device<Eigen::GpuDevice>().stream(),
                       x.flat<T>().data(), scale(), count, grid,
                       y->flat<T>().data()));
  }
};
$grad_gpu_op
#define REGISTER_${NAME}_GPU(T)                                       \\
  REGISTER_KERNEL_BUILDER(                                          \\
      Name("$Op").Device(DEVICE_GPU).TypeConstraint<T>("T"),        \\
      ${Op}GpuOp<T>);$grad_registration

REGISTER_${NAME}_GPU(float);
REGISTER_${NAME}_GPU(double);

#undef REGISTER_${NAME}_GPU

}  // namespace
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
"""

_GRAD_GLOBAL = """
template <typename T>
__global__ void ${OpGrad}Kernel(const T* __restrict__ grads,
                ${_OpGrad}       const T* __restrict__ x, float scale,
                ${_OpGrad}       int64_t count, LaunchGrid grid,
                ${_OpGrad}       T* __restrict__ x_grad) {
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    x_grad[i] = ${OpGrad}Element(grads[i], x[i], scale);
  }
}
"""

_GRAD_GPU_OP = """
template <typename T>
class ${OpGrad}GpuOp : public ${Op}OpKernel {
 public:
  explicit ${OpGrad}GpuOp(OpKernelConstruction* context)
      : ${Op}OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& grads = context->input(0);
    const Tensor& x = context->input(1);
    OP_REQUIRES_OK(context,
                   Validate${OpGrad}Shapes(grads.shape(), x.shape()));
    Tensor* x_grad = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &x_grad));
    const int64_t count = x.NumElements();
    if (count == 0) return;

    const ${name}::LaunchGrid grid = ${name}::GridFor(count);
    OP_REQUIRES_OK(context,
                   tensorflow::GpuLaunchKernel(
                       ${name}::${OpGrad}Kernel<T>,
                       static_cast<int>(grid.blocks),
                       static_cast<int>(grid.threads_per_block),
                       /*shared_memory_size_bytes=*/0,
                       context->eigen_device<Eigen::GpuDevice>().stream(),
                       grads.flat<T>().data(), x.flat<T>().data(), scale(),
                       count, grid, x_grad->flat<T>().data()));
  }
};
"""

_GRAD_REGISTRATION = """                                \\
  REGISTER_KERNEL_BUILDER(                                          \\
      Name("$OpGrad").Device(DEVICE_GPU).TypeConstraint<T>("T"),    \\
      ${OpGrad}GpuOp<T>);"""

_GPU_GRID_TEST = """\
// The GPU kernels' loop, checked on the host (no GPU, no TensorFlow).
//
// The CUDA kernels of $Op$and_grad_op are a grid-stride loop around
// ${Op}Element$and_grad_element ($name.h). This test walks the same loop over
// every (block, thread) of the grid GridFor() gives, and of a small grid in
// which each thread walks several elements, calls the same functions, and
// checks that every index is written exactly once, with the CPU kernel's
// value, and nothing outside the output.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "$folder/cc/kernels/$name.h"
#include "$folder/cc/kernels/${name}_gpu_grid.h"

namespace tensorflow_ops {
namespace $name {
namespace {

constexpr int64_t kGuard = 16;
constexpr float kCanary = -12345.0f;

int failures = 0;

void Fail(const char* what, int64_t count, int64_t blocks) {
  if (++failures <= 20) {
    std::printf("FAIL %s: count %lld, %lld blocks\\n", what,
                static_cast<long long>(count), static_cast<long long>(blocks));
  }
}

// What a kernel does: each thread of each block walks its indices and stores
// `element(i)` at i. Also counts the writes of each index.
template <typename Element>
void RunGrid(const LaunchGrid& grid, int64_t count, Element element,
             float* output, std::vector<int>* writes) {
  for (int64_t block = 0; block < grid.blocks; ++block) {
    for (int64_t thread = 0; thread < grid.threads_per_block; ++thread) {
      for (int64_t i = FirstIndex(grid, block, thread); i < count;
           i += Stride(grid)) {
        output[i] = element(i);
        ++(*writes)[i];
      }
    }
  }
}

// Runs `element` over `grid` into an output between canaries and compares
// it, bit for bit, with `want` (the CPU kernel's result).
template <typename Element>
void CheckGrid(const char* what, const LaunchGrid& grid, int64_t count,
               Element element, const std::vector<float>& want) {
  std::vector<float> buffer(count + 2 * kGuard, kCanary);
  std::vector<int> writes(count, 0);
  RunGrid(grid, count, element, buffer.data() + kGuard, &writes);
  for (int64_t i = 0; i < count; ++i) {
    if (writes[i] != 1) {
      return Fail("index not written exactly once", count, grid.blocks);
    }
    if (std::memcmp(&buffer[kGuard + i], &want[i], sizeof(float)) != 0) {
      return Fail(what, count, grid.blocks);
    }
  }
  for (int64_t i = 0; i < kGuard; ++i) {
    if (buffer[i] != kCanary || buffer[kGuard + count + i] != kCanary) {
      return Fail("write outside the output", count, grid.blocks);
    }
  }
}

void CheckCount(int64_t count) {
  const float scale = -1.75f;
  std::vector<float> x(count);
  for (int64_t i = 0; i < count; ++i) {
    x[i] = 0.25f * static_cast<float>(i % 97) - 9.0f;
  }
  std::vector<float> want(count);
  ${Op}Range(x.data(), scale, 0, count, want.data());
$grad_want
  // The op's grid, and one of 3 blocks in which each thread walks several
  // elements, as every thread does past kMaxBlocks * kThreadsPerBlock.
  const LaunchGrid strided = {3, kThreadsPerBlock};
  for (const LaunchGrid& grid : {GridFor(count), strided}) {
    auto element = [&](int64_t i) { return ${Op}Element(x[i], scale); };
    CheckGrid("$Op differs from the CPU kernel", grid, count, element,
              want);
$grad_grid
  }
}

// The grid stays within CUDA's limits (an int of blocks) for any element
// count, and gives every element a thread of its own up to kMaxBlocks blocks.
void CheckGridLimits() {
  constexpr int64_t kLargestGrid = kMaxBlocks * kThreadsPerBlock;
  const int64_t counts[] = {1, 255, 256, 257, kLargestGrid, kLargestGrid + 1,
                            int64_t{1} << 31, (int64_t{1} << 40) + 3};
  for (const int64_t count : counts) {
    const LaunchGrid grid = GridFor(count);
    const bool fits = grid.blocks >= 1 && grid.blocks <= kMaxBlocks &&
                      grid.threads_per_block == kThreadsPerBlock;
    const bool one_each =
        count > kLargestGrid ||
        (Stride(grid) >= count && Stride(grid) - count < kThreadsPerBlock);
    if (!fits || !one_each) Fail("launch grid", count, grid.blocks);
  }
}

int CheckAll() {
  for (const int64_t count : {1, 2, 255, 256, 257, 1000, 3 * 256 * 4 + 5}) {
    CheckCount(count);
  }
  CheckGridLimits();
  return failures;
}

}  // namespace
}  // namespace $name
}  // namespace tensorflow_ops

int main() {
  const int failures = tensorflow_ops::${name}::CheckAll();
  if (failures > 0) {
    std::printf("%d failures\\n", failures);
    return 1;
  }
  std::printf("PASS\\n");
  return 0;
}
"""

_GRAD_WANT = """\
  std::vector<float> grads(count);
  for (int64_t i = 0; i < count; ++i) {
    grads[i] = 1.0f - 0.125f * static_cast<float>(i % 31);
  }
  std::vector<float> want_grad(count);
  ${OpGrad}Range(grads.data(), x.data(), scale, 0, count, want_grad.data());"""

_GRAD_GRID = """\
    auto grad_element = [&](int64_t i) {
      return ${OpGrad}Element(grads[i], x[i], scale);
    };
    CheckGrid("$OpGrad differs from the CPU kernel", grid, count,
              grad_element, want_grad);"""


def gpu_files(names: OpNames) -> Dict[str, str]:
    """The grid header, the .cu.cc and the grid test, by path in the op folder."""
    grad = names.grad
    and_grad_op = " and $OpGrad" if grad else ""
    kernels = "cc/kernels/"
    files = {
        kernels + "${name}_gpu_grid.h": names.fill(_GPU_GRID_H),
        kernels + "${name}_op_gpu.cu.cc": names.fill(
            _GPU_KERNEL, and_grad_op=and_grad_op,
            one_file=(" Both ops are in\n// one file, so that nvcc, the slowest step "
                      "of the build, runs once." if grad else ""),
            grad_global=_GRAD_GLOBAL if grad else "",
            grad_gpu_op=_GRAD_GPU_OP if grad else "",
            grad_registration=_GRAD_REGISTRATION if grad else ""),
        kernels + "${name}_gpu_grid_test.cc": names.fill(
            _GPU_GRID_TEST, and_grad_op=and_grad_op,
            and_grad_element=" and ${OpGrad}Element" if grad else "",
            grad_want=_GRAD_WANT if grad else "",
            grad_grid=_GRAD_GRID if grad else ""),
    }
    return {names.fill(path): new_op_layout.tidy_cc(text)
            for path, text in files.items()}
