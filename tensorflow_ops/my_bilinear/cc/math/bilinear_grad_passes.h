// The GPU gradient as two gathers, one element at a time: output rows summed
// into a [batch, in_height, out_width, channels] partial (the row pass), then
// output columns summed into the input gradient (the column pass).
//
// TensorFlow-free and __host__ __device__, so the CUDA kernels call exactly
// these functions and bilinear_gpu_grid_test runs them on the host over every
// index, against the CPU gradient (ResizeGradRows). Each element repeats the
// CPU gradient's operations for it in the CPU's order, so the bits are equal:
// where one output row reads an input row, the row pass stores the gradient
// itself and the column pass weighs each column by (row weight * column
// weight); where several do, the row pass forms their weighted sum in
// ascending row order and the column pass weighs it by the column weight.
// Separable passes give every thread a bounded share of work whatever the
// scale: a single gather per element would loop over every output pixel that
// reads it (all 16.7M of them for a 1x1 image up-sampled to 4096x4096).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_PASSES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_PASSES_H_

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_axis_adjoint.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// The work of one gradient: a copy for the identity resize (its own adjoint),
// otherwise both passes over tiles of `tile_rows` input rows (of the
// batch * in_height) at a time. A tile's partial holds at most
// max(grads, input gradient, kMinPartialElements) elements: one holding all
// rows would have in_height * out_width elements per image and channel, far
// more than either tensor where one axis shrinks and the other grows
// (16 GiB for a 65536x1 gradient of a 1x65536 resize).
struct GradPasses {
  bool copy;
  int64_t rows;            // batch * in_height
  int64_t tile_rows;       // input rows per tile
  int64_t partial_count;   // elements of a tile's partial
  int64_t count;           // elements of the input gradient
};

constexpr int64_t kMinPartialElements = int64_t{1} << 22;

BILINEAR_HOST_DEVICE inline GradPasses GradPassesFor(
    const ResizeGeometry& g, int64_t min_partial_elements = kMinPartialElements) {
  GradPasses passes;
  passes.copy = IsIdentity(g);
  passes.rows = g.batch * g.in_height;
  passes.count = passes.rows * g.in_width * g.channels;
  const int64_t partial_row = g.out_width * g.channels;
  const int64_t grads = g.batch * g.out_height * partial_row;
  int64_t budget = grads > passes.count ? grads : passes.count;
  if (budget < min_partial_elements) budget = min_partial_elements;
  passes.tile_rows = budget / partial_row;
  if (passes.tile_rows > passes.rows) passes.tile_rows = passes.rows;
  if (passes.tile_rows < 1) passes.tile_rows = 1;
  passes.partial_count = passes.tile_rows * partial_row;
  return passes;
}

// The output indices [*begin, *end) along one axis whose neighbours include
// input index `in`. Both neighbours never decrease with the output index and
// differ by at most 1, so these are contiguous: upper >= in and lower <= in.
// Each bound starts from the inverse mapping and steps to the exact index,
// a step or two at most.
template <typename A>
BILINEAR_HOST_DEVICE void OutputRangeReading(const AxisSampler<A>& sampler,
                                             int64_t out_size, int64_t in,
                                             int64_t* begin, int64_t* end) {
  int64_t first = sampler.IndexNear(static_cast<A>(in - 1), out_size);
  while (first > 0 && sampler.At(first - 1).upper >= in) --first;
  while (first < out_size && sampler.At(first).upper < in) ++first;
  int64_t last = sampler.IndexNear(static_cast<A>(in + 1), out_size);
  if (last < first) last = first;
  while (last > first && sampler.At(last - 1).lower > in) --last;
  while (last < out_size && sampler.At(last).lower <= in) ++last;
  *begin = first;
  *end = last;
}

// Element `index` of the partial of the tile that starts at input row
// `tile_first_row` (of the batch * in_height): input row y, output column x.
// The gradient itself where one output row reads row y, their weighted sum
// where several do, 0 where none does.
template <typename T, typename Index = int64_t, typename A = AccumulatorType<T>>
BILINEAR_HOST_DEVICE A GradRowPassElement(const ResizeGeometry& g,
                                          const Samplers<A>& samplers,
                                          const T* __restrict__ grads,
                                          int64_t tile_first_row, int64_t index) {
  const PixelIndex p =
      SplitTileIndex<Index>(index, tile_first_row, g.in_height, g.out_width, g.channels);
  int64_t first_row, end_row;
  OutputRangeReading(samplers.rows, g.out_height, p.y, &first_row, &end_row);
  if (first_row == end_row) return A(0);
  const T* column = grads + (p.b * g.out_height * g.out_width + p.x) * g.channels + p.c;
  const int64_t row_stride = g.out_width * g.channels;
  if (end_row - first_row == 1) return static_cast<A>(column[first_row * row_stride]);
  A value = A(0);
  for (int64_t row = first_row; row < end_row; ++row) {
    const A term = WeightOfNeighbour(samplers.rows.At(row), p.y) *
                   static_cast<A>(column[row * row_stride]);
    value = row == first_row ? term : value + term;
  }
  return value;
}

// Element `index` of the input gradient's tile that starts at input row
// `tile_first_row`, from that tile's partial: output columns in
// ascending order, each weighted as the CPU kernel weighs it,
// `(row weight * column weight) * value`, where a column whose neighbours are
// both this input pixel weighs exactly 1 (so the product is
// `row weight * value`). Input pixels that no output reads get 0.
template <typename T, typename Index = int64_t, typename A = AccumulatorType<T>>
BILINEAR_HOST_DEVICE T GradColumnPassElement(const ResizeGeometry& g,
                                             const Samplers<A>& samplers,
                                             const A* __restrict__ partial,
                                             int64_t tile_first_row, int64_t index) {
  const PixelIndex p =
      SplitTileIndex<Index>(index, tile_first_row, g.in_height, g.in_width, g.channels);
  int64_t first_row, end_row, first_column, end_column;
  OutputRangeReading(samplers.rows, g.out_height, p.y, &first_row, &end_row);
  OutputRangeReading(samplers.columns, g.out_width, p.x, &first_column, &end_column);
  if (first_row == end_row || first_column == end_column) return static_cast<T>(A(0));
  const A row_weight = end_row - first_row == 1
                           ? WeightOfNeighbour(samplers.rows.At(first_row), p.y)
                           : A(1);
  const int64_t tile_row = p.b * g.in_height + p.y - tile_first_row;
  const A* row = partial + tile_row * g.out_width * g.channels + p.c;
  A total = A(0);
  for (int64_t column = first_column; column < end_column; ++column) {
    const A value = row[column * g.channels];
    const AxisWeight<A> w = samplers.columns.At(column);
    total += w.lower == w.upper ? row_weight * value
                                : (row_weight * WeightOfNeighbour(w, p.x)) * value;
  }
  return static_cast<T>(total);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_PASSES_H_
