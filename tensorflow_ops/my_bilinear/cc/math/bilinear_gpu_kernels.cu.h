// The CUDA kernels of MyBilinear and MyBilinearGrad and the functions that
// launch them: grid-stride loops around the per-element functions of
// bilinear_elements.h and bilinear_grad_passes.h.
//
// TensorFlow-free, so the GPU launchers (instances/gpu_launchers.cu.cc, which
// the op's GPU OpKernels and the JAX FFI handlers call) and the standalone
// harness (tools/gpu_harness) launch exactly the same code through
// LaunchResize and LaunchResizeGrad.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_KERNELS_CU_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_KERNELS_CU_H_

#if defined(__CUDACC__)

#include <cuda_runtime.h>

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cuda_driver.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_passes.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// `count` output elements of the resize of `images` into `output`.
template <typename T, typename OutT, typename Index>
__global__ void ResizeKernel(ResizeGeometry geometry, const T* __restrict__ images,
                             int64_t count, LaunchGrid grid,
                             OutT* __restrict__ output) {
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(geometry);
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    output[i] = ResizeElement<T, OutT, Index>(geometry, samplers, images, i);
  }
}

// The resize on the row grid (RowGridFor) with kLanes channels per thread:
// block (x, y) computes groups [x * kThreadsPerBlock, ...) of output rows
// y, y + row_blocks, ...; each row starts `row_elements` after the one
// before, so the writes stay coalesced.
template <typename T, typename OutT, int kLanes>
__global__ void ResizeRowsKernel(ResizeGeometry geometry, const T* __restrict__ images,
                                 RowGrid grid, OutT* __restrict__ output) {
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(geometry);
  const int32_t group = static_cast<int32_t>(blockIdx.x * kThreadsPerBlock + threadIdx.x);
  if (group >= grid.row_elements / kLanes) return;
  for (int64_t row = blockIdx.y; row < grid.rows; row += grid.row_blocks) {
    ResizeRowGroup<T, OutT, kLanes>(geometry, samplers, images, static_cast<int32_t>(row),
                                    group, output + row * grid.row_elements);
  }
}

// The gradient's row pass over the tile that starts at input row
// `first_row`: its `count` partial elements from `grads`. half and bfloat16
// are summed in float (AccumulatorType).
template <typename T, typename Index, typename A = AccumulatorType<T>>
__global__ void ResizeGradRowPassKernel(ResizeGeometry geometry,
                                        const T* __restrict__ grads, int64_t first_row,
                                        int64_t count, LaunchGrid grid,
                                        A* __restrict__ partial) {
  const Samplers<A> samplers = SamplersFor<A>(geometry);
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    partial[i] = GradRowPassElement<T, Index>(geometry, samplers, grads, first_row, i);
  }
}

// The gradient's column pass over one tile, which starts at input row
// `first_row`: `count` input-gradient elements from the tile's partial.
template <typename T, typename Index, typename A = AccumulatorType<T>>
__global__ void ResizeGradColumnPassKernel(ResizeGeometry geometry,
                                           const A* __restrict__ partial,
                                           int64_t first_row, int64_t count,
                                           LaunchGrid grid, T* __restrict__ images_grad) {
  const Samplers<A> samplers = SamplersFor<A>(geometry);
  const int64_t first = first_row * geometry.in_width * geometry.channels;
  for (int64_t i = FirstIndex(grid, blockIdx.x, threadIdx.x); i < count;
       i += Stride(grid)) {
    images_grad[first + i] =
        GradColumnPassElement<T, Index>(geometry, samplers, partial, first_row, i);
  }
}

// Enqueues the resize on `stream`: on the row grid where rows are wide enough
// (with vector loads and stores where RowGridLanes allows), else over flat
// indices. The launch size comes from the sizes alone, not from
// cudaDeviceProp: TensorFlow's headers carry their own copy of CUDA's struct,
// whose layout differs between CUDA 12 and 13.
template <typename T, typename OutT>
cudaError_t LaunchResize(const ResizeGeometry& geometry, const T* images, OutT* output,
                         cudaStream_t stream) {
  const int64_t count =
      geometry.batch * geometry.out_height * geometry.out_width * geometry.channels;
  if (count == 0) return cudaSuccess;
  const dim3 threads(static_cast<unsigned>(kThreadsPerBlock));
  constexpr int kVectorLanes = VectorLanes<T, OutT>();
  const int64_t lanes = RowGridLanes(geometry, images, output);
  if (lanes > 1 || UsesRowGrid(geometry)) {
    const RowGrid rows = RowGridFor(geometry, lanes);
    const dim3 row_blocks(static_cast<unsigned>(rows.column_blocks),
                          static_cast<unsigned>(rows.row_blocks));
    if (lanes == kVectorLanes) {
      ResizeRowsKernel<T, OutT, kVectorLanes>
          <<<row_blocks, threads, 0, stream>>>(geometry, images, rows, output);
    } else {
      ResizeRowsKernel<T, OutT, 1>
          <<<row_blocks, threads, 0, stream>>>(geometry, images, rows, output);
    }
    return cudaGetLastError();
  }
  const LaunchGrid grid = GridFor(count);
  const dim3 blocks(static_cast<unsigned>(grid.blocks));
  if (FitsInt32(count)) {
    ResizeKernel<T, OutT, int32_t>
        <<<blocks, threads, 0, stream>>>(geometry, images, count, grid, output);
  } else {
    ResizeKernel<T, OutT, int64_t>
        <<<blocks, threads, 0, stream>>>(geometry, images, count, grid, output);
  }
  return cudaGetLastError();
}

// Enqueues the gradient on `stream`, a row pass and a column pass per tile of
// input rows; `partial` holds GradPassesFor(geometry).partial_count elements
// (unused for a copy). Stream order keeps a tile's row pass from overwriting
// the partial before the previous tile's column pass has read it.
template <typename T, typename A = AccumulatorType<T>>
cudaError_t LaunchResizeGrad(const ResizeGeometry& geometry, const T* grads, A* partial,
                             T* images_grad, cudaStream_t stream) {
  const GradPasses passes = GradPassesFor(geometry);
  if (passes.count == 0) return cudaSuccess;
  if (passes.copy) {
    return cudaMemcpyAsync(images_grad, grads, passes.count * sizeof(T),
                           cudaMemcpyDeviceToDevice, stream);
  }
  // Index width from the input gradient and the largest tile (FitsInt32 of
  // the count covers its rows), so that one kernel serves all tiles.
  const bool fits_int32 = FitsInt32(passes.count) && FitsInt32(passes.partial_count);
  const dim3 threads(static_cast<unsigned>(kThreadsPerBlock));
  const int64_t partial_row = geometry.out_width * geometry.channels;
  const int64_t gradient_row = geometry.in_width * geometry.channels;
  for (int64_t first_row = 0; first_row < passes.rows; first_row += passes.tile_rows) {
    const int64_t tile_rows = passes.rows - first_row < passes.tile_rows
                                  ? passes.rows - first_row
                                  : passes.tile_rows;
    const int64_t partial_count = tile_rows * partial_row;
    const LaunchGrid rows = GridFor(partial_count);
    const dim3 row_blocks(static_cast<unsigned>(rows.blocks));
    if (fits_int32) {
      ResizeGradRowPassKernel<T, int32_t><<<row_blocks, threads, 0, stream>>>(
          geometry, grads, first_row, partial_count, rows, partial);
    } else {
      ResizeGradRowPassKernel<T, int64_t><<<row_blocks, threads, 0, stream>>>(
          geometry, grads, first_row, partial_count, rows, partial);
    }
    const cudaError_t row_pass = cudaGetLastError();
    if (row_pass != cudaSuccess) return row_pass;
    const int64_t count = tile_rows * gradient_row;
    const LaunchGrid columns = GridFor(count);
    const dim3 column_blocks(static_cast<unsigned>(columns.blocks));
    if (fits_int32) {
      ResizeGradColumnPassKernel<T, int32_t><<<column_blocks, threads, 0, stream>>>(
          geometry, partial, first_row, count, columns, images_grad);
    } else {
      ResizeGradColumnPassKernel<T, int64_t><<<column_blocks, threads, 0, stream>>>(
          geometry, partial, first_row, count, columns, images_grad);
    }
    const cudaError_t column_pass = cudaGetLastError();
    if (column_pass != cudaSuccess) return column_pass;
  }
  return cudaGetLastError();
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // defined(__CUDACC__)

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GPU_KERNELS_CU_H_
