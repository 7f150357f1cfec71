// The row-reusing path of the forward pass: where the height is up-sampled,
// each input row's horizontal blend is computed once and serves every output
// row that reads it. ReusesColumnBlends (bilinear_resize.h) says when.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_REUSED_ROWS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_REUSED_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_blends.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_buffers.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// The row-reusing path's stack arrays, laid out so that what its loops load
// (column weights, the converted span) is 2 KB from what they store (the row
// buffers) modulo 4 KB. A load that follows a store to the same address
// modulo 4 KB waits for that store (4K aliasing), and the horizontal pass
// reads the weights and the span while it writes a row buffer, at offsets
// that drift slowly apart (docs/cpu_performance.md#reusedrowbuffers). The rows are padded 64 bytes apart, so that they do not share the
// cache's 4 KB sets (and for InterpolateConvertedColumns's 4-lane writes).
// The padding costs 3.5 KB of stack.
template <typename A>
struct alignas(64) ReusedRowBuffers {
  static constexpr int64_t kColumnsBytes = kColumnBlock * sizeof(AxisWeight<A>);
  static constexpr int64_t kRowElements = kRowBufferElements<A> + 16;
  static constexpr int64_t kRowsStart = kColumnsBytes + PaddingTo(kColumnsBytes, 2048);
  static constexpr int64_t kRowsEnd = kRowsStart + 2 * kRowElements * sizeof(A);
  AxisWeight<A> columns[kColumnBlock];
  char columns_padding[kRowsStart - kColumnsBytes];
  A rows[2][kRowElements];
  char rows_padding[PaddingTo(kRowsEnd, kRowsStart + 2048)];
  A converted[kRowBufferElements<A> + kFourLanePadding];
};

// Output rows [begin_row, end_row) through row buffers. Each input row's
// horizontal blend is computed once per block of columns into one of two row
// buffers and serves every output row that reads it: where several
// consecutive output rows read the same input rows (up-sampling along the
// height), that saves two of the three blends of most output values. Images
// of another type than A (16-bit and integer) are converted a block's span of
// input pixels at a time, in one vectorized loop, rather than value by value;
// blocks are narrowed for that span to fit its buffer. Each value is the same
// expression as in ResizeOneRow, so the bits do not change. `frame` holds the
// arrays (ResizeRows lends every path the same stack). Any `stores` but
// kCached writes 64 bytes at a time (BlendRows): outputs from a quarter of
// the cache, and those StoresForOutput streams elsewhere, small ones of huge
// inputs included. The rows never stream, which measured slower
// (docs/cpu_performance.md#wholelines).
template <typename T, typename OutT>
void ResizeRowsReusingColumns(const ResizeGeometry& g, const T* images,
                              int64_t begin_row, int64_t end_row, OutT* output,
                              OutputStores stores,
                              ReusedRowBuffers<AccumulatorType<OutT>>& frame) {
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(g);
  const AxisSampler<A>& row_sampler = samplers.rows;
  const AxisSampler<A>& column_sampler = samplers.columns;
  const int64_t in_row_size = g.in_width * g.channels;
  const int64_t out_row_size = g.out_width * g.channels;
  const int64_t block_columns =
      std::min(kColumnBlock, kRowBufferElements<A> / g.channels);
  const bool whole_lines = stores != OutputStores::kCached;
  AxisWeight<A>* const columns = frame.columns;
  auto& buffers = frame.rows;
  A* const converted = frame.converted;
  for (int64_t x0 = 0; x0 < g.out_width;) {
    int64_t width = std::min(block_columns, g.out_width - x0);
    for (int64_t x = 0; x < width; ++x) columns[x] = column_sampler.At(x0 + x);
    // Where T is not A, the input pixels the block reads are converted to A
    // first, as one contiguous (vectorized) loop: the block is narrowed to
    // the columns whose span fits the buffer, unless that span would hold
    // more than kMaxSpanPixelsPerColumn pixels per column.
    bool convert_first = false;
    if constexpr (!std::is_same<T, A>::value) {
      const int64_t fitting =
          ColumnsWithinSpan(columns, width, kRowBufferElements<A> / g.channels);
      if (fitting > 0 && columns[fitting - 1].upper - columns[0].lower + 1 <=
                             kMaxSpanPixelsPerColumn * fitting) {
        width = fitting;
        convert_first = true;
      }
    }
    const int64_t count = width * g.channels;
    const int64_t first_pixel = columns[0].lower;
    const int64_t span = (columns[width - 1].upper - first_pixel + 1) * g.channels;
    // Fills `buffer` with the horizontal blend of input row `wanted`.
    auto blend_row = [&](int64_t wanted, A* buffer) {
      const T* row = images + wanted * in_row_size;
      if (convert_first) {
        ConvertValues(row + first_pixel * g.channels, span, converted);
        // Read by ignored lanes only; set so that no read is indeterminate.
        std::fill_n(converted + span, kFourLanePadding, A(0));
        InterpolateConvertedColumns(converted, first_pixel, columns, width,
                                    g.channels, buffer);
      } else {
        InterpolateColumnsOf(row, 0, columns, width, g.channels, buffer);
      }
    };
    InputRowSlots<A> slots(buffers[0], buffers[1]);
    ForEachOutputRow(g, row_sampler, begin_row, end_row,
                     [&](int64_t row, const AxisWeight<A>& y, int64_t top_row,
                         int64_t bottom_row) {
      const A* top = slots.Holding(top_row, bottom_row, blend_row);
      const A* bottom = slots.Holding(bottom_row, top_row, blend_row);
      BlendRows(top, bottom, y.lerp, count,
                output + row * out_row_size + x0 * g.channels, whole_lines);
    });
    x0 += width;
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_REUSED_ROWS_H_
