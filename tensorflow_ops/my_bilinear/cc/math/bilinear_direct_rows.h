// The direct path of the forward pass: every value computed from the images
// as it is read, rows that read the same input rows written as pairs, and
// float rows streamed past the cache where the output is large
// (bilinear_wide_streaming.h for whole AVX2 and AVX-512 vectors).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_DIRECT_ROWS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_DIRECT_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_blends.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_unrolled_channels.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_wide_streaming.h"

namespace tensorflow_ops {
namespace bilinear {

// Output rows [begin_row, end_row) computed directly from the images, each
// value as it is read: the path of ResizeRows where no row buffer pays (see
// ReusesColumnBlends and ConvertsSpans). With OutputStores::kStreaming, rows
// of float pixels of 4, 8, 16, 32 or 64 channels are written with streaming
// stores when `output` is 16-byte aligned: from float images, a whole AVX2 or
// AVX-512 vector at a time where the CPU, the channel count and the output's
// alignment allow (WideStreamingLanes), else 16 bytes at a time. `columns`
// holds a block's column weights.
template <typename T, typename OutT>
void ResizeRowsDirectly(const ResizeGeometry& g, const T* images,
                        int64_t begin_row, int64_t end_row, OutT* output,
                        OutputStores stores,
                        AxisWeight<AccumulatorType<OutT>> (&columns)[kColumnBlock]) {
  using A = AccumulatorType<OutT>;
  constexpr bool kFourLanes =
      std::is_same<T, float>::value && std::is_same<OutT, float>::value;
  const bool stream = stores == OutputStores::kStreaming &&
                      reinterpret_cast<uintptr_t>(output) % 16 == 0;
  // Float images stream whole vectors where they can (0: 16 bytes at a time).
  int wide_lanes = 0;
  if constexpr (kFourLanes) {
    if (stream) wide_lanes = WideStreamingLanes(g.channels, output);
  }
  const Samplers<A> samplers = SamplersFor<A>(g);
  const AxisSampler<A>& row_sampler = samplers.rows;
  const AxisSampler<A>& column_sampler = samplers.columns;
  const int64_t in_row_size = g.in_width * g.channels;
  const int64_t out_row_size = g.out_width * g.channels;
  for (int64_t x0 = 0; x0 < g.out_width; x0 += kColumnBlock) {
    const int64_t width = std::min(kColumnBlock, g.out_width - x0);
    // Columns of this block that may use 4 lanes: not the last output column,
    // and neighbours left of the last input column. A prefix, as `upper` never
    // decreases.
    int64_t four_lane_columns = 0;
    for (int64_t x = 0; x < width; ++x) {
      columns[x] = column_sampler.At(x0 + x);
      if (four_lane_columns == x && x0 + x < g.out_width - 1 &&
          columns[x].upper < g.in_width - 1) {
        ++four_lane_columns;
      }
    }
    for (int64_t row = begin_row; row < end_row;) {
      const int64_t b = row / g.out_height;
      const int64_t out_y = row % g.out_height;
      const AxisWeight<A> y = row_sampler.At(out_y);
      const T* image = images + b * g.in_height * in_row_size;
      const T* top = image + y.lower * in_row_size;
      const T* bottom = image + y.upper * in_row_size;
      OutT* out = output + row * out_row_size + x0 * g.channels;
      // The next row of this range and image, when it reads the same input
      // rows: the two are written as a pair. Pairs only where the images are
      // of the accumulator type; converted images take this path only where
      // ConvertsSpans and ReusesColumnBlends do not take them.
      A y_lerps[2] = {y.lerp, y.lerp};
      bool pair = false;
      if constexpr (std::is_same<T, A>::value) {
        if (row + 1 < end_row && out_y + 1 < g.out_height) {
          const AxisWeight<A> next = row_sampler.At(out_y + 1);
          pair = next.lower == y.lower && next.upper == y.upper;
          y_lerps[1] = next.lerp;
        }
      }
      row += pair ? 2 : 1;
      if constexpr (kFourLanes) {
        if (g.channels == 3 && !pair) {
          ResizeThreeChannelFloatRow(top, bottom, y.lerp, columns, width,
                                     four_lane_columns, out);
          continue;
        }
      }
      WithUnrolledChannels<kFourLanes>(g.channels, [&](auto fixed_channels) {
        constexpr int kChannels = decltype(fixed_channels)::value;
        auto write = [&](auto rows, auto streaming) {
          ResizeRowGroup<kChannels, decltype(rows)::value,
                         decltype(streaming)::value>(
              top, bottom, y_lerps, columns, width, g.channels, out,
              decltype(rows)::value == 2 ? out + out_row_size : nullptr);
        };
        using One = std::integral_constant<int, 1>;
        using Two = std::integral_constant<int, 2>;
        if constexpr (kStreamable<kChannels, OutT>) {
          if (stream) {
            if constexpr (kFourLanes) {
              if (wide_lanes) {
                return pair ? StreamRowGroupWide<kChannels, 2>(
                                  wide_lanes, top, bottom, y_lerps, columns, width,
                                  out, out + out_row_size)
                            : StreamRowGroupWide<kChannels, 1>(
                                  wide_lanes, top, bottom, y_lerps, columns, width,
                                  out, nullptr);
              }
            }
            return pair ? write(Two(), std::true_type())
                        : write(One(), std::true_type());
          }
        }
        pair ? write(Two(), std::false_type()) : write(One(), std::false_type());
      });
    }
  }
  if (stream) FinishStreamingStores();
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_DIRECT_ROWS_H_
