// What the buffered row paths share: the horizontal pass alone into a row
// buffer, the vertical pass from two such buffers, and the bookkeeping of which
// input rows the buffers hold.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ROW_BUFFERS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ROW_BUFFERS_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Values of A in one row buffer of the row-reusing path: 16 KB, so that its
// two row buffers and the converted input stay in the L1 cache, and the stack
// frame stays near 80 KB (bilinear_stack_test runs it on a 112 KB stack).
template <typename A>
constexpr int64_t kRowBufferElements = 16384 / sizeof(A);

// The horizontal pass alone: `width` columns of one input row blended into
// `out`, as ResizeOneRow blends each of its two rows. `row` starts at input
// pixel `first_pixel`.
template <int kChannels, typename T, typename A>
void InterpolateColumns(const T* __restrict__ row, int64_t first_pixel,
                        const AxisWeight<A>* __restrict__ columns, int64_t width,
                        int64_t channels, A* __restrict__ out) {
  const int64_t c_count = kChannels > 0 ? kChannels : channels;
  for (int64_t x = 0; x < width; ++x) {
    const int64_t left = (columns[x].lower - first_pixel) * c_count;
    const int64_t right = (columns[x].upper - first_pixel) * c_count;
    const A x_lerp = columns[x].lerp;
    for (int64_t c = 0; c < c_count; ++c) {
      const A left_value = static_cast<A>(row[left + c]);
      const A right_value = static_cast<A>(row[right + c]);
      out[c] = left_value + (right_value - left_value) * x_lerp;
    }
    out += c_count;
  }
}

template <typename T, typename A>
void InterpolateColumnsOf(const T* row, int64_t first_pixel,
                          const AxisWeight<A>* columns, int64_t width,
                          int64_t channels, A* out) {
  switch (channels) {
    case 1:
      return InterpolateColumns<1>(row, first_pixel, columns, width, 1, out);
    case 3:
      return InterpolateColumns<3>(row, first_pixel, columns, width, 3, out);
    case 4:
      return InterpolateColumns<4>(row, first_pixel, columns, width, 4, out);
    default:
      return InterpolateColumns<0>(row, first_pixel, columns, width, channels,
                                   out);
  }
}

// Floats past the last value of a buffer that a 4-lane read of its last
// 3-channel pixel may touch.
constexpr int64_t kFourLanePadding = 4;

// The horizontal pass over a buffer of converted values (readable
// kFourLanePadding floats past its span) into a row buffer (writable as
// many past `width` pixels): 3-channel floats as one 4-lane vector per pixel
// whose 4th lane is ignored, as in ResizeThreeChannelFloatRow, with the
// scalar formulas and bits; other types and counts as InterpolateColumnsOf.
template <typename A>
void InterpolateConvertedColumns(const A* converted, int64_t first_pixel,
                                 const AxisWeight<A>* columns, int64_t width,
                                 int64_t channels, A* out) {
#if defined(__GNUC__)
  if constexpr (std::is_same<A, float>::value) {
    if (channels == 3) {
      typedef float Float4 __attribute__((vector_size(16)));
      for (int64_t x = 0; x < width; ++x) {
        const float* left = converted + (columns[x].lower - first_pixel) * 3;
        const float* right = converted + (columns[x].upper - first_pixel) * 3;
        Float4 left_value, right_value;
        __builtin_memcpy(&left_value, left, sizeof(left_value));
        __builtin_memcpy(&right_value, right, sizeof(right_value));
        const float x_lerp = columns[x].lerp;
        const Float4 x_lerp4 = {x_lerp, x_lerp, x_lerp, x_lerp};
        const Float4 value = left_value + (right_value - left_value) * x_lerp4;
        __builtin_memcpy(out + x * 3, &value, sizeof(value));
      }
      return;
    }
  }
#endif
  InterpolateColumnsOf(converted, first_pixel, columns, width, channels, out);
}

// The vertical pass: `count` values of two horizontally blended rows. With
// `whole_lines`, values of the accumulator's type are written 64 bytes at a
// time, each 64 bytes' values in an inner loop: for outputs that take much of
// the cache that ran faster, and alike wherever the linker put it, where the
// plain loop's speed depended on that; for smaller outputs it ran slower
// (docs/cpu_performance.md#wholelines).
template <typename A, typename OutT>
void BlendRows(const A* __restrict__ top, const A* __restrict__ bottom, A y_lerp,
               int64_t count, OutT* __restrict__ out, bool whole_lines) {
  if constexpr (std::is_same<A, OutT>::value) {
    if (whole_lines) {
      constexpr int64_t kLineValues = 64 / sizeof(A);
      int64_t i = 0;
      for (; i + kLineValues <= count; i += kLineValues) {
        for (int64_t j = i; j < i + kLineValues; ++j) {
          out[j] = top[j] + (bottom[j] - top[j]) * y_lerp;
        }
      }
      for (; i < count; ++i) out[i] = top[i] + (bottom[i] - top[i]) * y_lerp;
      return;
    }
    for (int64_t i = 0; i < count; ++i) {
      out[i] = top[i] + (bottom[i] - top[i]) * y_lerp;
    }
  } else {
    BlendAndConvert(top, bottom, y_lerp, count, out);
  }
}

// Most input pixels per output column for 16-bit and integer images to be
// converted a contiguous span at a time. Past that (down-sampling the width
// by more), converting the pixels that no column reads would cost more than
// converting each value as it is read.
constexpr int64_t kMaxSpanPixelsPerColumn = 16;

// How many leading columns of `columns[0, width)` read input pixels that fit
// a span of `max_pixels` from columns[0].lower: 0 if the first column's do
// not. A prefix, as `upper` never decreases along the columns.
template <typename A>
int64_t ColumnsWithinSpan(const AxisWeight<A>* columns, int64_t width,
                          int64_t max_pixels) {
  const int64_t last_pixel = columns[0].lower + max_pixels - 1;
  return std::upper_bound(columns, columns + width, last_pixel,
                          [](int64_t pixel, const AxisWeight<A>& column) {
                            return pixel < column.upper;
                          }) -
         columns;
}

// Two buffers, each holding one input row (image * in_height + row) of a
// block of columns, for the output rows that read it.
template <typename A>
class InputRowSlots {
 public:
  InputRowSlots(A* first, A* second) : buffers_{first, second} {}

  // The buffer that holds input row `wanted`, filled now by
  // fill(wanted, buffer) unless it already holds it; it never replaces
  // `keep`, the other row the output row needs.
  template <typename Fill>
  const A* Holding(int64_t wanted, int64_t keep, const Fill& fill) {
    if (held_[0] == wanted) return buffers_[0];
    if (held_[1] == wanted) return buffers_[1];
    const int slot = held_[0] == keep ? 1 : 0;
    held_[slot] = wanted;
    fill(wanted, buffers_[slot]);
    return buffers_[slot];
  }

 private:
  A* const buffers_[2];
  int64_t held_[2] = {-1, -1};  // -1: none yet
};

// Calls fn(row, y, top_row, bottom_row) for output rows [begin_row, end_row)
// in order: `y` is the row's vertical weight, and top_row and bottom_row are
// the input rows it reads (image * in_height + row).
template <typename A, typename Fn>
void ForEachOutputRow(const ResizeGeometry& g, const AxisSampler<A>& row_sampler,
                      int64_t begin_row, int64_t end_row, const Fn& fn) {
  int64_t b = begin_row / g.out_height;
  int64_t out_y = begin_row % g.out_height;
  for (int64_t row = begin_row; row < end_row; ++row) {
    const AxisWeight<A> y = row_sampler.At(out_y);
    fn(row, y, b * g.in_height + y.lower, b * g.in_height + y.upper);
    if (++out_y == g.out_height) {
      out_y = 0;
      ++b;
    }
  }
}

// Bytes to add past `offset` to reach `target` modulo 4 KB: 1 to 4096.
constexpr int64_t PaddingTo(int64_t offset, int64_t target) {
  return (target - offset % 4096 + 4096 - 1) % 4096 + 1;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ROW_BUFFERS_H_
