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

// One output value from its four neighbours, blended horizontally first, then
// vertically, in A, as ResizeRows blends them.
template <typename OutT, typename A>
BILINEAR_HOST_DEVICE OutT BlendValues(A top_left, A top_right, A bottom_left,
                                      A bottom_right, const AxisWeight<A>& y,
                                      const AxisWeight<A>& x) {
  const A top_value = top_left + (top_right - top_left) * x.lerp;
  const A bottom_value = bottom_left + (bottom_right - bottom_left) * x.lerp;
  return static_cast<OutT>(top_value + (bottom_value - top_value) * y.lerp);
}

// One output element from its two input rows (`top` and `bottom`, already at
// the element's image and channel).
template <typename T, typename OutT, typename A>
BILINEAR_HOST_DEVICE OutT BlendElement(const T* __restrict__ top,
                                       const T* __restrict__ bottom,
                                       const AxisWeight<A>& y, const AxisWeight<A>& x,
                                       int64_t channels) {
  return BlendValues<OutT>(static_cast<A>(top[x.lower * channels]),
                           static_cast<A>(top[x.upper * channels]),
                           static_cast<A>(bottom[x.lower * channels]),
                           static_cast<A>(bottom[x.upper * channels]), y, x);
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
// each thread takes `lanes` consecutive channels of one pixel (a group),
// blocks along x cover one output row's `row_elements` (width * channels),
// blocks along y walk the `rows` (batch * height) with a stride of their
// count, which CUDA caps at 65535.
struct RowGrid {
  int64_t rows;
  int64_t row_elements;
  int64_t lanes;
  int64_t column_blocks;
  int64_t row_blocks;
};

constexpr int64_t kMaxRowBlocks = 65535;

// The row grid of `g` with `lanes` channels per thread (a divisor of the
// channel count).
BILINEAR_HOST_DEVICE inline RowGrid RowGridFor(const ResizeGeometry& g, int64_t lanes = 1) {
  RowGrid grid;
  grid.rows = g.batch * g.out_height;
  grid.row_elements = g.out_width * g.channels;
  grid.lanes = lanes;
  const int64_t groups = grid.row_elements / lanes;
  grid.column_blocks = (groups + kThreadsPerBlock - 1) / kThreadsPerBlock;
  grid.row_blocks = grid.rows < kMaxRowBlocks ? grid.rows : kMaxRowBlocks;
  return grid;
}

// Whether the forward launch takes the row grid with `lanes` channels per
// thread: rows of at least half a block of groups (narrower ones would leave
// most threads of a block idle, so they take the flat grid or fewer lanes),
// every index of a row and every row number within 32 bits, and not the
// identity (a copy).
BILINEAR_HOST_DEVICE inline bool UsesRowGrid(const ResizeGeometry& g, int64_t lanes = 1) {
  const RowGrid grid = RowGridFor(g, lanes);
  return !IsIdentity(g) && grid.row_elements / lanes >= kThreadsPerBlock / 2 &&
         FitsInt32(grid.row_elements) && FitsInt32(grid.rows);
}

// `kLanes` values of type T as one aligned vector, so that a thread loads and
// stores them in one instruction each (a float4 for four floats).
template <typename T, int kLanes>
struct alignas(sizeof(T) * kLanes) Lanes {
  T value[kLanes];
};

// The channels per thread of the vector row grid for images of T into OutT:
// as many as fit 16 bytes, the widest load and store a GPU has, of both
// types, and at most 4. __host__ __device__ as RowGridLanes, its caller, is:
// nvcc warns at every instantiation of a host-only constexpr function called
// there unless built with --expt-relaxed-constexpr (the harness is not).
template <typename T, typename OutT>
BILINEAR_HOST_DEVICE constexpr int VectorLanes() {
  constexpr int widest = sizeof(T) > sizeof(OutT) ? sizeof(T) : sizeof(OutT);
  return 16 / widest < 4 ? 16 / widest : 4;
}

// Whether `pointer` is aligned for `bytes`-byte vectors.
BILINEAR_HOST_DEVICE inline bool IsAligned(const void* pointer, int64_t bytes) {
  return reinterpret_cast<uintptr_t>(pointer) % static_cast<uintptr_t>(bytes) == 0;
}

// The channels per thread the forward launch uses on the row grid:
// VectorLanes where the channel count is a multiple of it (so a group never
// spans two pixels and every pixel's group is aligned), both tensors are
// aligned for it, and the rows are wide enough in groups; else 1.
template <typename T, typename OutT>
BILINEAR_HOST_DEVICE int64_t RowGridLanes(const ResizeGeometry& g, const T* images,
                                          const OutT* output) {
  constexpr int64_t lanes = VectorLanes<T, OutT>();
  const bool vectors = lanes > 1 && g.channels % lanes == 0 &&
                       IsAligned(images, lanes * sizeof(T)) &&
                       IsAligned(output, lanes * sizeof(OutT)) && UsesRowGrid(g, lanes);
  return vectors ? lanes : 1;
}

// Group `group` (channels group * kLanes, ...) of output row `row`
// (batch * out_height + y) on the row grid, stored into `output_row`: the
// row's weight, batch and input rows come from the row alone, the same for
// the whole block, the column from one 32-bit division, and the four
// neighbours of all lanes in four vector loads. The same blend as
// ResizeElement, lane by lane.
template <typename T, typename OutT, int kLanes, typename A = AccumulatorType<OutT>>
BILINEAR_HOST_DEVICE void ResizeRowGroup(const ResizeGeometry& g,
                                         const Samplers<A>& samplers,
                                         const T* __restrict__ images, int32_t row,
                                         int32_t group, OutT* __restrict__ output_row) {
  const int32_t out_height = static_cast<int32_t>(g.out_height);
  const int32_t b = row / out_height;
  const AxisWeight<A> y = samplers.rows.At(row - b * out_height);
  const int32_t channels = static_cast<int32_t>(g.channels);
  const int32_t element = group * kLanes;
  const int32_t column = element / channels;
  const AxisWeight<A> x = samplers.columns.At(column);
  const int64_t row_stride = g.in_width * g.channels;
  const T* image = images + b * g.in_height * row_stride + (element - column * channels);
  const T* top = image + y.lower * row_stride;
  const T* bottom = image + y.upper * row_stride;
  using In = Lanes<T, kLanes>;
  const In top_left = *reinterpret_cast<const In*>(top + x.lower * g.channels);
  const In top_right = *reinterpret_cast<const In*>(top + x.upper * g.channels);
  const In bottom_left = *reinterpret_cast<const In*>(bottom + x.lower * g.channels);
  const In bottom_right = *reinterpret_cast<const In*>(bottom + x.upper * g.channels);
  Lanes<OutT, kLanes> out;
  for (int lane = 0; lane < kLanes; ++lane) {
    out.value[lane] = BlendValues<OutT>(static_cast<A>(top_left.value[lane]),
                                        static_cast<A>(top_right.value[lane]),
                                        static_cast<A>(bottom_left.value[lane]),
                                        static_cast<A>(bottom_right.value[lane]), y, x);
  }
  *reinterpret_cast<Lanes<OutT, kLanes>*>(output_row + element) = out;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ELEMENTS_H_
