// The per-element math of the GPU kernels: one output element of the resize,
// one input-gradient element of its adjoint, and the grid-stride walk that
// hands flat indices to threads.
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

BILINEAR_HOST_DEVICE inline PixelIndex SplitIndex(int64_t index, int64_t height,
                                                  int64_t width, int64_t channels) {
  PixelIndex p;
  p.c = index % channels;
  index /= channels;
  p.x = index % width;
  index /= width;
  p.y = index % height;
  p.b = index / height;
  return p;
}

// Output element `index` of the resize of `images` (see ResizeRows): the four
// neighbours blended horizontally first, then vertically, in A.
template <typename T, typename OutT, typename A = AccumulatorType<OutT>>
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
  const PixelIndex p = SplitIndex(index, g.out_height, g.out_width, g.channels);
  const AxisWeight<A> y = samplers.rows.At(p.y);
  const AxisWeight<A> x = samplers.columns.At(p.x);
  const T* image = images + p.b * g.in_height * g.in_width * g.channels + p.c;
  auto at = [&](int64_t row, int64_t column) {
    return static_cast<A>(image[(row * g.in_width + column) * g.channels]);
  };
  const A top_left = at(y.lower, x.lower);
  const A top_right = at(y.lower, x.upper);
  const A bottom_left = at(y.upper, x.lower);
  const A bottom_right = at(y.upper, x.upper);
  const A top_value = top_left + (top_right - top_left) * x.lerp;
  const A bottom_value = bottom_left + (bottom_right - bottom_left) * x.lerp;
  return static_cast<OutT>(top_value + (bottom_value - top_value) * y.lerp);
}

// The output indices [*begin, *end) along one axis whose neighbours include
// input index `in`. Both neighbours never decrease with the output index and
// differ by at most 1, so these are contiguous: upper >= in and lower <= in.
template <typename A>
BILINEAR_HOST_DEVICE void OutputRangeReading(const AxisSampler<A>& sampler,
                                             int64_t out_size, int64_t in,
                                             int64_t* begin, int64_t* end) {
  int64_t low = 0, high = out_size;
  while (low < high) {  // the first output index with upper >= in
    const int64_t middle = low + (high - low) / 2;
    if (sampler.At(middle).upper >= in) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  *begin = low;
  high = out_size;
  while (low < high) {  // the first output index with lower > in
    const int64_t middle = low + (high - low) / 2;
    if (sampler.At(middle).lower > in) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  *end = low;
}

// The weight with which an output index of weight `w` reads input index `in`
// (one of its neighbours); exactly 1 where both neighbours are `in`.
template <typename A>
BILINEAR_HOST_DEVICE A WeightOfNeighbour(const AxisWeight<A>& w, int64_t in) {
  if (w.lower == w.upper) return A(1);
  return w.lower == in ? A(1) - w.lerp : w.lerp;
}

// Input-gradient element `index` (see ResizeGradRows): a gather over the
// output pixels that read it, with no atomics. It repeats the CPU kernel's
// operations for that element in the CPU kernel's order: output columns in
// ascending order; where one output row reads the input row, each term is
// (row weight * column weight) * grad; where several do, their weighted sum in
// ascending row order is formed first and then weighted by the column weight.
template <typename T, typename A = AccumulatorType<T>>
BILINEAR_HOST_DEVICE T ResizeGradElement(const ResizeGeometry& g,
                                         const Samplers<A>& samplers,
                                         const T* __restrict__ grads, int64_t index) {
  // The identity resize is its own adjoint: a copy.
  if (IsIdentity(g)) return grads[index];
  const PixelIndex p = SplitIndex(index, g.in_height, g.in_width, g.channels);
  int64_t first_row, end_row, first_column, end_column;
  OutputRangeReading(samplers.rows, g.out_height, p.y, &first_row, &end_row);
  OutputRangeReading(samplers.columns, g.out_width, p.x, &first_column, &end_column);
  // Shrinking leaves input pixels that no output reads: their gradient is 0.
  if (first_row == end_row || first_column == end_column) return static_cast<T>(A(0));
  const T* image =
      grads + p.b * g.out_height * g.out_width * g.channels + p.c;
  auto at = [&](int64_t row, int64_t column) {
    return static_cast<A>(image[(row * g.out_width + column) * g.channels]);
  };
  const bool one_row = end_row - first_row == 1;
  const A single_row_weight =
      one_row ? WeightOfNeighbour(samplers.rows.At(first_row), p.y) : A(1);
  A total = A(0);
  for (int64_t column = first_column; column < end_column; ++column) {
    A value = A(0);
    if (one_row) {
      value = at(first_row, column);
    } else {
      for (int64_t row = first_row; row < end_row; ++row) {
        const A term = WeightOfNeighbour(samplers.rows.At(row), p.y) * at(row, column);
        value = row == first_row ? term : value + term;
      }
    }
    const AxisWeight<A> w = samplers.columns.At(column);
    // The CPU kernel's `(weight * column weight) * value`, where a column
    // whose neighbours are both this input pixel weighs exactly 1 (so the
    // product is `weight * value`).
    total += w.lower == w.upper
                 ? single_row_weight * value
                 : (single_row_weight * WeightOfNeighbour(w, p.x)) * value;
  }
  return static_cast<T>(total);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ELEMENTS_H_
