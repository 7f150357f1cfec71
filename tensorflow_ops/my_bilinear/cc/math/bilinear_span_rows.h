// The converted-span path of the forward pass: 16-bit and integer images (or
// 16-bit outputs) whose height is not up-sampled, converted a contiguous span
// of input pixels at a time. ConvertsSpans (bilinear_resize.h) says when.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_SPAN_ROWS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_SPAN_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_blends.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_buffers.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_unrolled_channels.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// One output row of `width` pixels from two rows of A (`top` and `bottom`,
// readable kFourLanePadding values past the pixels that `columns` name), as
// ResizeRows computes rows of A images: 4 lanes for 3 float channels, except
// in the last `width - four_lane_columns` pixels, whose 4th lane would write
// past the row, and a loop unrolled for 2 float channels.
template <typename A, typename OutT>
void ResizeRowOfSpans(const A* top, const A* bottom, A y_lerp,
                      const AxisWeight<A>* columns, int64_t width,
                      int64_t four_lane_columns, int64_t channels, OutT* out) {
  constexpr bool kFloatRows =
      std::is_same<A, float>::value && std::is_same<OutT, float>::value;
  if constexpr (kFloatRows) {
    if (channels == 3) {
      return ResizeThreeChannelFloatRow(top, bottom, y_lerp, columns, width,
                                        four_lane_columns, out);
    }
  }
  WithUnrolledChannels<kFloatRows>(channels, [&](auto fixed_channels) {
    ResizeOneRow<decltype(fixed_channels)::value>(top, bottom, y_lerp, columns,
                                                  width, channels, out);
  });
}

// The span path's stack arrays, laid out as ReusedRowBuffers's: the row of A
// it stores (for 16-bit outputs) is 2 KB from the column weights and spans it
// loads, modulo 4 KB. With kHoldsSpans false (A images, read in place) the
// spans take no room.
template <typename A, bool kHoldsSpans>
struct alignas(64) ConvertedSpanBuffers {
  static constexpr int64_t kSpanElements =
      kHoldsSpans ? kRowBufferElements<A> + kFourLanePadding : 1;
  static constexpr int64_t kSpansEnd =
      kColumnBlock * sizeof(AxisWeight<A>) + 2 * kSpanElements * sizeof(A);
  AxisWeight<A> columns[kColumnBlock];
  A spans[2][kSpanElements];
  char spans_padding[PaddingTo(kSpansEnd, 2048)];
  // Written past `width` pixels by ignored lanes.
  A row_values[kRowBufferElements<A> + kFourLanePadding];
};

// The span path's frame for T images into OutT output.
template <typename T, typename OutT>
using SpanBuffersFor =
    ConvertedSpanBuffers<AccumulatorType<OutT>,
                         !std::is_same<T, AccumulatorType<OutT>>::value>;

// Output rows [begin_row, end_row) of 16-bit or integer images, or into
// 16-bit output, whose height is not up-sampled, so that no input row's
// horizontal blend serves two output rows. For each block of columns, the
// span of input pixels that the block reads in each of an output row's two
// input rows is converted to A in one vectorized loop (kept while the next
// output row reads the same input row; A images are read in place), and the
// row is computed from those spans as rows of A images are, into the output,
// or for 16-bit outputs into a row of A converted in one loop, rather than
// value by value as they are read (docs/cpu_performance.md#convertsspans). The
// same expressions, so the same bits. `frame` holds the arrays.
template <typename T, typename OutT>
void ResizeRowsFromConvertedSpans(
    const ResizeGeometry& g, const T* images, int64_t begin_row, int64_t end_row,
    OutT* output, SpanBuffersFor<T, OutT>& frame) {
  using A = AccumulatorType<OutT>;
  // A images (into 16-bit output) need no conversion: their rows are read in
  // place, and the frame holds no spans.
  constexpr bool kInPlace = std::is_same<T, A>::value;
  const Samplers<A> samplers = SamplersFor<A>(g);
  const AxisSampler<A>& row_sampler = samplers.rows;
  const AxisSampler<A>& column_sampler = samplers.columns;
  const int64_t in_row_size = g.in_width * g.channels;
  const int64_t out_row_size = g.out_width * g.channels;
  const int64_t max_span_pixels = kRowBufferElements<A> / g.channels;
  AxisWeight<A>* const columns = frame.columns;
  A* const row_values = frame.row_values;
  for (int64_t x0 = 0; x0 < g.out_width;) {
    int64_t width = std::min({kColumnBlock, max_span_pixels, g.out_width - x0});
    for (int64_t x = 0; x < width; ++x) columns[x] = column_sampler.At(x0 + x);
    // At least one column: its two pixels fit (see ConvertsSpans).
    width = ColumnsWithinSpan(columns, width, max_span_pixels);
    const int64_t first_pixel = columns[0].lower;
    const int64_t span = (columns[width - 1].upper - first_pixel + 1) * g.channels;
    for (int64_t x = 0; x < width; ++x) {
      columns[x].lower -= first_pixel;
      columns[x].upper -= first_pixel;
    }
    // Writing to the output, the output row's last pixel takes no 4th lane.
    int64_t four_lane_columns =
        std::is_same<A, OutT>::value && x0 + width == g.out_width ? width - 1
                                                                  : width;
    if constexpr (kInPlace) {
      // Nor, reading the images, pixels that read the row's last pixel.
      while (four_lane_columns > 0 &&
             columns[four_lane_columns - 1].upper + first_pixel >= g.in_width - 1) {
        --four_lane_columns;
      }
    }
    // Fills `span` with the converted pixels of input row `wanted`.
    auto convert_row = [&](int64_t wanted, A* span_values) {
      ConvertValues(images + wanted * in_row_size + first_pixel * g.channels, span,
                    span_values);
      // Read by ignored lanes only; set so that no read is indeterminate.
      std::fill_n(span_values + span, kFourLanePadding, A(0));
    };
    InputRowSlots<A> slots(frame.spans[0], frame.spans[1]);
    ForEachOutputRow(g, row_sampler, begin_row, end_row,
                     [&](int64_t row, const AxisWeight<A>& y, int64_t top_row,
                         int64_t bottom_row) {
      const A* top;
      const A* bottom;
      if constexpr (kInPlace) {
        top = images + top_row * in_row_size + first_pixel * g.channels;
        bottom = images + bottom_row * in_row_size + first_pixel * g.channels;
      } else {
        top = slots.Holding(top_row, bottom_row, convert_row);
        bottom = slots.Holding(bottom_row, top_row, convert_row);
      }
      OutT* out = output + row * out_row_size + x0 * g.channels;
      if constexpr (std::is_same<A, OutT>::value) {
        ResizeRowOfSpans(top, bottom, y.lerp, columns, width, four_lane_columns,
                         g.channels, out);
      } else {
        ResizeRowOfSpans(top, bottom, y.lerp, columns, width, four_lane_columns,
                         g.channels, row_values);
        ConvertValues(row_values, width * g.channels, out);
      }
    });
    x0 += width;
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_SPAN_ROWS_H_
