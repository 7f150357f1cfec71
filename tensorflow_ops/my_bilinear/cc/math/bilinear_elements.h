// The per-element math of the GPU forward kernel: one output element of the
// resize, and the grid-stride walk that hands flat indices to threads (the
// gradient's two passes are in bilinear_grad_passes.h).
//
// TensorFlow-free and __host__ __device__, so the CUDA kernels call exactly
// these functions and bilinear_gpu_grid_test runs them on the host over every
// index of the same launch grid, against the CPU kernels' math. Each function
// evaluates the CPU kernels' formulas in the CPU kernels' order, so the results
// match them bit for bit as long as no multiply-add is fused (the host build
// passes -ffp-contract=off, nvcc gets -fmad=false).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ELEMENTS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ELEMENTS_H_

#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Threads per block of every kernel, and the most blocks one launch uses: past
// that, each thread walks several elements (grid-stride), which keeps the grid
// size an int whatever the element count.
constexpr int64_t kThreadsPerBlock = 256;
constexpr int64_t kMaxBlocks = int64_t{1} << 20;

// The grid of one launch over `count` elements (count > 0).
struct LaunchGrid {
  int64_t blocks;
  int64_t threads_per_block;
};

BILINEAR_HOST_DEVICE inline LaunchGrid GridFor(int64_t count) {
  const int64_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return {blocks < kMaxBlocks ? blocks : kMaxBlocks, kThreadsPerBlock};
}

// The flat indices of thread `thread` of block `block` are
// FirstIndex, FirstIndex + Stride, ... below the element count. Consecutive
// threads get consecutive indices, so with channels innermost (NHWC) a warp
// reads and writes consecutive channels and pixels.
BILINEAR_HOST_DEVICE inline int64_t FirstIndex(const LaunchGrid& grid,
                                               int64_t block, int64_t thread) {
  return block * grid.threads_per_block + thread;
}

BILINEAR_HOST_DEVICE inline int64_t Stride(const LaunchGrid& grid) {
  return grid.blocks * grid.threads_per_block;
}

// A flat NHWC index split into its coordinates.
struct PixelIndex {
  int64_t b, y, x, c;
};

// Index `index` of a tile of [rows, width, channels] elements whose first
// row is row `first_row` of the batch * height rows, split into coordinates.
// Tile-local, so that no index of the whole partial (which can pass 2^63
// elements where no tile does) is ever formed; divisions in `Index`.
template <typename Index>
BILINEAR_HOST_DEVICE inline PixelIndex SplitTileIndex(int64_t index, int64_t first_row,
                                                      int64_t height, int64_t width,
                                                      int64_t channels) {
  Index i = static_cast<Index>(index);
  PixelIndex p;
  p.c = i % static_cast<Index>(channels);
  i /= static_cast<Index>(channels);
  p.x = i % static_cast<Index>(width);
  i /= static_cast<Index>(width);
  const Index row = static_cast<Index>(first_row) + i;
  p.b = row / static_cast<Index>(height);
  p.y = row % static_cast<Index>(height);
  return p;
}

// A flat NHWC index of the whole tensor: a tile that starts at row 0. The
// divisions are done in `Index`: the launchers pass int32_t where the element
// count fits, since a GPU divides 64-bit integers in software, several times
// slower than 32-bit ones.
template <typename Index = int64_t>
BILINEAR_HOST_DEVICE inline PixelIndex SplitIndex(int64_t flat_index, int64_t height,
                                                  int64_t width, int64_t channels) {
  return SplitTileIndex<Index>(flat_index, 0, height, width, channels);
}

// Whether every flat index below `count` fits the 32-bit splitting.
BILINEAR_HOST_DEVICE inline bool FitsInt32(int64_t count) {
  return count <= int64_t{2147483647};
}

// One output element from its two input rows (`top` and `bottom`, already at
// the element's image and channel): the four neighbours blended horizontally
// first, then vertically, in A, as ResizeRows blends them.
template <typename T, typename OutT, typename A>
BILINEAR_HOST_DEVICE OutT BlendElement(const T* __restrict__ top,
                                       const T* __restrict__ bottom,
                                       const AxisWeight<A>& y, const AxisWeight<A>& x,
                                       int64_t channels) {
  const A top_left = static_cast<A>(top[x.lower * channels]);
  const A top_right = static_cast<A>(top[x.upper * channels]);
  const A bottom_left = static_cast<A>(bottom[x.lower * channels]);
  const A bottom_right = static_cast<A>(bottom[x.upper * channels]);
  const A top_value = top_left + (top_right - top_left) * x.lerp;
  const A bottom_value = bottom_left + (bottom_right - bottom_left) * x.lerp;
  return static_cast<OutT>(top_value + (bottom_value - top_value) * y.lerp);
}

// Output element `index` of the resize of `images` (see ResizeRows): the four
// neighbours blended horizontally first, then vertically, in A.
template <typename T, typename OutT, typename Index = int64_t,
          typename A = AccumulatorType<OutT>>
BILINEAR_HOST_DEVICE OutT ResizeElement(const ResizeGeometry& g,
                                        const Samplers<A>& samplers,
                                        const T* __restrict__ images, int64_t index) {
  // Equal sizes are a copy with a cast through A, as in CopyRows.
  if (IsIdentity(g)) {
    if constexpr (std::is_same<T, OutT>::value) {
      return images[index];
    } else {
      return static_cast<OutT>(static_cast<A>(images[index]));
    }
  }
  const PixelIndex p = SplitIndex<Index>(index, g.out_height, g.out_width, g.channels);
  const AxisWeight<A> y = samplers.rows.At(p.y);
  const AxisWeight<A> x = samplers.columns.At(p.x);
  const T* image = images + p.b * g.in_height * g.in_width * g.channels + p.c;
  const int64_t row_stride = g.in_width * g.channels;
  return BlendElement<T, OutT>(image + y.lower * row_stride, image + y.upper * row_stride,
                               y, x, g.channels);
}

// The output rows of a resize as one launch sees them (see ResizeRowsKernel):
// blocks along x cover one output row's `row_elements` (width * channels),
// blocks along y walk the `rows` (batch * height) with a stride of their
// count, which CUDA caps at 65535.
struct RowGrid {
  int64_t rows;
  int64_t row_elements;
  int64_t column_blocks;
  int64_t row_blocks;
};

constexpr int64_t kMaxRowBlocks = 65535;

BILINEAR_HOST_DEVICE inline RowGrid RowGridFor(const ResizeGeometry& g) {
  RowGrid grid;
  grid.rows = g.batch * g.out_height;
  grid.row_elements = g.out_width * g.channels;
  grid.column_blocks = (grid.row_elements + kThreadsPerBlock - 1) / kThreadsPerBlock;
  grid.row_blocks = grid.rows < kMaxRowBlocks ? grid.rows : kMaxRowBlocks;
  return grid;
}

// Whether the forward launch takes the row grid: rows of at least half a block
// (narrower ones would leave most threads of a block idle, so they take the
// flat grid), every index of a row and every row number within 32 bits, and
// not the identity (a copy).
BILINEAR_HOST_DEVICE inline bool UsesRowGrid(const ResizeGeometry& g) {
  const RowGrid grid = RowGridFor(g);
  return !IsIdentity(g) && grid.row_elements >= kThreadsPerBlock / 2 &&
         FitsInt32(grid.row_elements) && FitsInt32(grid.rows);
}

// Element `element` (column * channels + channel) of output row `row`
// (batch * out_height + y) on the row grid: the row's weight, batch and
// input rows come from the row alone, the same for the whole block, and the
// one division per element is 32-bit. The same blend as ResizeElement.
template <typename T, typename OutT, typename A = AccumulatorType<OutT>>
BILINEAR_HOST_DEVICE OutT ResizeRowElement(const ResizeGeometry& g,
                                           const Samplers<A>& samplers,
                                           const T* __restrict__ images, int32_t row,
                                           int32_t element) {
  const int32_t out_height = static_cast<int32_t>(g.out_height);
  const int32_t b = row / out_height;
  const AxisWeight<A> y = samplers.rows.At(row - b * out_height);
  const int32_t channels = static_cast<int32_t>(g.channels);
  const int32_t column = element / channels;
  const AxisWeight<A> x = samplers.columns.At(column);
  const int64_t row_stride = g.in_width * g.channels;
  const T* image = images + b * g.in_height * row_stride + (element - column * channels);
  return BlendElement<T, OutT>(image + y.lower * row_stride, image + y.upper * row_stride,
                               y, x, g.channels);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ELEMENTS_H_
