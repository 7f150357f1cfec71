// Bilinear resize of NHWC images, one range of output rows at a time.
//
// TensorFlow-free. Every output row is written by exactly one call and reads
// only the input, so a caller may hand disjoint row ranges to as many threads
// as it likes and any split gives the same bits. Nothing is allocated: the
// column weights are computed per block of columns into a fixed buffer.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_wide_streaming.h"

namespace tensorflow_ops {
namespace bilinear {

// Output columns whose weights are computed at once; a block's weights serve
// every row of the range before the next block is computed. 1024 (24 KB of
// weights) keeps rows of up to 1024 pixels in one pass: with 512, a
// 1024-wide output of 64 channels was written in two passes of half-rows,
// 10% slower on one thread than TensorFlow's row-at-a-time loop.
constexpr int64_t kColumnBlock = 1024;

// Calls fn(std::integral_constant<int, N>()) where `channels` is N, one of
// the counts whose channel loops are unrolled (common image and feature-map
// depths), else fn(std::integral_constant<int, 0>()): a count read at run time.
// kUnrollTwo also unrolls 2 channels: the float rows' callers ask for it. With
// the count read at run time, float 16x75x77x2 to 37x41 took 2x the time (C++
// driver, one thread), 0.9x TensorFlow's speed; unrolled for every type pair,
// it would lengthen every kernel's compile.
template <bool kUnrollTwo = false, typename Fn>
void WithUnrolledChannels(int64_t channels, const Fn& fn) {
  if constexpr (kUnrollTwo) {
    if (channels == 2) return fn(std::integral_constant<int, 2>());
  }
  switch (channels) {
    case 1:
      return fn(std::integral_constant<int, 1>());
    case 3:
      return fn(std::integral_constant<int, 3>());
    case 4:
      return fn(std::integral_constant<int, 4>());
    case 8:
      return fn(std::integral_constant<int, 8>());
    case 16:
      return fn(std::integral_constant<int, 16>());
    case 32:
      return fn(std::integral_constant<int, 32>());
    case 64:
      return fn(std::integral_constant<int, 64>());
    default:
      return fn(std::integral_constant<int, 0>());
  }
}

// Whether `channels` is one of the counts WithUnrolledChannels fixes.
inline bool IsUnrolledChannelCount(int64_t channels) {
  bool unrolled = false;
  WithUnrolledChannels(channels, [&](auto fixed_channels) {
    unrolled = decltype(fixed_channels)::value > 0;
  });
  return unrolled;
}

// Whether rows of kChannels-channel OutT pixels may be written with streaming
// stores: float pixels of whole 16-byte units (see bilinear_streaming_stores.h).
template <int kChannels, typename OutT>
constexpr bool kStreamable = kHaveStreamingStores &&
                             std::is_same<OutT, float>::value && kChannels > 0 &&
                             kChannels % 4 == 0;

// `kRows` (1 or 2) output rows of `width` pixels that read the same two
// input rows, `top` and `bottom`, with vertical weights `y_lerps`: each pair
// of horizontal blends serves every row of the group, so two rows that share
// their input rows (most rows of an up-sampling) take two blends per value
// instead of three, with the same expressions and bits. kChannels > 0 fixes
// the channel count at compile time so the innermost loop unrolls; 0 reads it
// from `channels`. Integer images are read directly and converted per value.
// kStream writes each pixel with streaming stores (the rows must then be
// 16-byte aligned; see kStreamable).
template <int kChannels, int kRows, bool kStream = false, typename T,
          typename OutT, typename A>
void ResizeRowGroup(const T* __restrict__ top, const T* __restrict__ bottom,
                    const A (&y_lerps)[2],
                    const AxisWeight<A>* __restrict__ columns, int64_t width,
                    int64_t channels, OutT* __restrict__ first_out,
                    OutT* __restrict__ second_out) {
  static_assert(kRows == 1 || kRows == 2, "one row or a pair");
  static_assert(!kStream || kStreamable<kChannels, OutT>, "streamable pixels");
  const int64_t c_count = kChannels > 0 ? kChannels : channels;
  for (int64_t x = 0; x < width; ++x) {
    const int64_t left = columns[x].lower * c_count;
    const int64_t right = columns[x].upper * c_count;
    const A x_lerp = columns[x].lerp;
    // With kStream, a pixel's values are gathered here, then stored.
    A first_values[kStream ? kChannels : 1];
    A second_values[kStream ? kChannels : 1];
    for (int64_t c = 0; c < c_count; ++c) {
      // TensorFlow's order of operations: horizontal first, then vertical.
      const A top_left = static_cast<A>(top[left + c]);
      const A top_right = static_cast<A>(top[right + c]);
      const A bottom_left = static_cast<A>(bottom[left + c]);
      const A bottom_right = static_cast<A>(bottom[right + c]);
      const A top_value = top_left + (top_right - top_left) * x_lerp;
      const A bottom_value = bottom_left + (bottom_right - bottom_left) * x_lerp;
      const A first = top_value + (bottom_value - top_value) * y_lerps[0];
      if constexpr (kStream) {
        first_values[c] = first;
      } else {
        first_out[c] = static_cast<OutT>(first);
      }
      if constexpr (kRows == 2) {
        const A second = top_value + (bottom_value - top_value) * y_lerps[1];
        if constexpr (kStream) {
          second_values[c] = second;
        } else {
          second_out[c] = static_cast<OutT>(second);
        }
      }
    }
    if constexpr (kStream) {
      for (int c = 0; c < kChannels; c += 4) {
        StreamFourFloats(first_values + c, first_out + c);
        if constexpr (kRows == 2) StreamFourFloats(second_values + c, second_out + c);
      }
    }
    first_out += c_count;
    if constexpr (kRows == 2) second_out += c_count;
  }
}

// One row of `width` output pixels (see ResizeRowGroup).
template <int kChannels, typename T, typename OutT, typename A>
void ResizeOneRow(const T* __restrict__ top, const T* __restrict__ bottom,
                  A y_lerp, const AxisWeight<A>* __restrict__ columns,
                  int64_t width, int64_t channels, OutT* __restrict__ out) {
  const A y_lerps[2] = {y_lerp, y_lerp};
  ResizeRowGroup<kChannels, 1>(top, bottom, y_lerps, columns, width, channels,
                               out, static_cast<OutT*>(nullptr));
}

// One row of 3-channel float pixels, each handled as one 4-lane vector whose
// 4th lane is ignored: a vector operation per lerp instead of three scalar
// ones. The lanes evaluate exactly the scalar formulas, so the result is
// bitwise that of ResizeOneRow<3>. The 4th lane reads the next input pixel and
// writes the next output pixel, which is written again later by this same
// call or by the next block of the same rows; `four_lane_columns` (a prefix of
// the block) keeps both inside their rows.
inline void ResizeThreeChannelFloatRow(const float* __restrict__ top,
                                       const float* __restrict__ bottom,
                                       float y_lerp,
                                       const AxisWeight<float>* __restrict__ columns,
                                       int64_t width, int64_t four_lane_columns,
                                       float* __restrict__ out) {
#if defined(__GNUC__)
  typedef float Float4 __attribute__((vector_size(16)));
  auto load = [](const float* source) {
    Float4 value;
    __builtin_memcpy(&value, source, sizeof(value));
    return value;
  };
  const Float4 y_lerp4 = {y_lerp, y_lerp, y_lerp, y_lerp};
  for (int64_t x = 0; x < four_lane_columns; ++x) {
    const int64_t left = columns[x].lower * 3;
    const int64_t right = columns[x].upper * 3;
    const float x_lerp = columns[x].lerp;
    const Float4 x_lerp4 = {x_lerp, x_lerp, x_lerp, x_lerp};
    const Float4 top_left = load(top + left);
    const Float4 top_right = load(top + right);
    const Float4 bottom_left = load(bottom + left);
    const Float4 bottom_right = load(bottom + right);
    const Float4 top_value = top_left + (top_right - top_left) * x_lerp4;
    const Float4 bottom_value = bottom_left + (bottom_right - bottom_left) * x_lerp4;
    const Float4 value = top_value + (bottom_value - top_value) * y_lerp4;
    __builtin_memcpy(out + x * 3, &value, sizeof(value));
  }
#else
  four_lane_columns = 0;
#endif
  ResizeOneRow<3>(top, bottom, y_lerp, columns + four_lane_columns,
                  width - four_lane_columns, 3, out + four_lane_columns * 3);
}

// Rows [begin_row, end_row) of the identity resize: a copy with a cast.
template <typename T, typename OutT>
void CopyRows(const ResizeGeometry& g, const T* images, int64_t begin_row,
              int64_t end_row, OutT* output) {
  // Nothing to copy (an empty batch, whose tensors may have no buffer at all:
  // memcpy must not be given a null pointer even for zero bytes).
  if (begin_row >= end_row) return;
  const int64_t row_size = g.in_width * g.channels;
  const T* in = images + begin_row * row_size;
  OutT* out = output + begin_row * row_size;
  const int64_t count = (end_row - begin_row) * row_size;
  if constexpr (std::is_same<T, OutT>::value) {
    std::memcpy(out, in, count * sizeof(T));
  } else {
    // Through the accumulator type: 16-bit storage types convert via float.
    using A = AccumulatorType<OutT>;
    for (int64_t i = 0; i < count; ++i) out[i] = static_cast<OutT>(static_cast<A>(in[i]));
  }
}

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

// The vertical pass: `count` values of two horizontally blended rows.
template <typename A, typename OutT>
void BlendRows(const A* __restrict__ top, const A* __restrict__ bottom, A y_lerp,
               int64_t count, OutT* __restrict__ out) {
  if constexpr (std::is_same<A, OutT>::value) {
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

// The row-reusing path's stack arrays, laid out so that what its loops load
// (column weights, the converted span) is 2 KB from what they store (the row
// buffers) modulo 4 KB. A load that follows a store to the same address
// modulo 4 KB waits for that store (4K aliasing), and the horizontal pass
// reads the weights and the span while it writes a row buffer, at offsets
// that drift slowly apart: where the compiler had put the span 64 bytes past
// a row buffer modulo 4 KB, half 8x64x64x4 to 80x80 took 1.2x longer (from
// Python). The rows are padded 64 bytes apart, so that they do not share the
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
// arrays (ResizeRows lends every path the same stack).
template <typename T, typename OutT>
void ResizeRowsReusingColumns(const ResizeGeometry& g, const T* images,
                              int64_t begin_row, int64_t end_row, OutT* output,
                              ReusedRowBuffers<AccumulatorType<OutT>>& frame) {
  using A = AccumulatorType<OutT>;
  const AxisSampler<A> row_sampler(g.in_height, g.out_height, g.align_corners,
                                   g.half_pixel_centers);
  const AxisSampler<A> column_sampler(g.in_width, g.out_width, g.align_corners,
                                      g.half_pixel_centers);
  const int64_t in_row_size = g.in_width * g.channels;
  const int64_t out_row_size = g.out_width * g.channels;
  const int64_t block_columns =
      std::min(kColumnBlock, kRowBufferElements<A> / g.channels);
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
                output + row * out_row_size + x0 * g.channels);
    });
    x0 += width;
  }
}

// Most channels whose float rows take the row-reusing path. With more, the
// direct path is vectorized along the channels and bound by the stores of the
// output, and adding a pass over the row buffers made it slower (measured).
constexpr int64_t kMaxReusedFloatChannels = 8;

// Whether T images into OutT output convert any value: images or output of
// another type than the accumulator.
template <typename T, typename OutT>
constexpr bool kConvertsValues = !std::is_same<T, AccumulatorType<OutT>>::value ||
                                 !std::is_same<OutT, AccumulatorType<OutT>>::value;

// Whether the direct path (ResizeRowsDirectly), which converts each value as
// it reads or writes it, is faster for T images into OutT output of
// `channels` than the buffered paths, which convert a span of input or a row
// of output in one vectorized loop. Only where its channel loop is unrolled
// or long enough to vectorize the conversions, and by type. C++ driver, one
// thread, 16x75x77xC to 37x41 (`up_sampled`: 16x37x41xC to 75x77), time of
// the direct path over the best buffered one, AVX2 or AVX-512:
// - float images into bfloat16: 0.6x to 0.9x at 32 and 64 channels,
//   up-sampled or not; 1.0x at 4 and 8 not up-sampled; 1.1x to 6x at the
//   other counts (1 to 24, 48);
// - float images into half: not up-sampled, 0.9x at 64 channels, 1.0x at 32,
//   1.3x to 10x below and at 48; up-sampled, 1.0x at 64, 1.4x to 12x below;
// - 16-bit integers into float: 0.8x to 1.0x from 16 channels, 1.2x to 4x
//   below; into half or bfloat16, 0.8x to 1.0x at 32 and 64;
// - 8-bit integers into float: 0.9x at 32 and 64 channels (AVX2), 1.1x to 4x
//   elsewhere; into half or bfloat16, 0.8x to 1.0x at 64, 1.5x to 15x below.
// Equal heights count as not up-sampled. Integer images up-sampled always
// take the row-reusing path.
template <typename T, typename OutT>
bool DirectPathConvertsFaster(int64_t channels, bool up_sampled) {
  using A = AccumulatorType<OutT>;
  const bool unrolled = IsUnrolledChannelCount(channels);
  if constexpr (std::is_same<T, A>::value) {  // A images into 16-bit output
    constexpr bool kIntoHalf = std::is_same<OutT, Float16>::value;
    return unrolled && channels >= (kIntoHalf && up_sampled ? 64 : 32);
  } else if constexpr (std::is_integral<T>::value) {
    if (up_sampled) return false;
    constexpr bool kIntoFloat = std::is_same<OutT, A>::value;
    if (sizeof(T) == 2 && kIntoFloat && channels >= 16) return true;
    return unrolled && channels >= (sizeof(T) == 1 && !kIntoFloat ? 64 : 32);
  }
  return false;
}

// Whether ResizeRows takes the row-reusing path: where output rows outnumber
// input rows, and either few channels or conversions of the images or the
// output that the direct path does not do faster (DirectPathConvertsFaster):
// they are then done once per input value, or in one loop per output row.
template <typename T, typename OutT>
bool ReusesColumnBlends(const ResizeGeometry& g) {
  using A = AccumulatorType<OutT>;
  if (g.out_height <= g.in_height || g.channels > kRowBufferElements<A>) return false;
  if (g.channels <= kMaxReusedFloatChannels) return true;
  if constexpr (!kConvertsValues<T, OutT>) return false;
  return !DirectPathConvertsFaster<T, OutT>(g.channels, /*up_sampled=*/true);
}

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
// or for 16-bit outputs into a row of A converted in one loop. Converted
// value by value as they were read, half down-sampling of 3 channels took 30
// times the float time. The same expressions, so the same bits. `frame`
// holds the arrays.
template <typename T, typename OutT>
void ResizeRowsFromConvertedSpans(
    const ResizeGeometry& g, const T* images, int64_t begin_row, int64_t end_row,
    OutT* output, SpanBuffersFor<T, OutT>& frame) {
  using A = AccumulatorType<OutT>;
  // A images (into 16-bit output) need no conversion: their rows are read in
  // place, and the frame holds no spans.
  constexpr bool kInPlace = std::is_same<T, A>::value;
  const AxisSampler<A> row_sampler(g.in_height, g.out_height, g.align_corners,
                                   g.half_pixel_centers);
  const AxisSampler<A> column_sampler(g.in_width, g.out_width, g.align_corners,
                                      g.half_pixel_centers);
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

// Whether ResizeRows takes ResizeRowsFromConvertedSpans: images or output of
// another type than A, whose height is not up-sampled, where two pixels'
// channels fit a span's buffer, no output column is more than
// kMaxSpanPixelsPerColumn input pixels from the next, and the direct path
// does not convert faster (DirectPathConvertsFaster). Not for 32-bit and
// 64-bit integer images: their span conversion is not vectorized on the AVX2
// path, and read value by value they measured faster (1.3x to 1.6x at 1 and
// 3 channels).
template <typename T, typename OutT>
bool ConvertsSpans(const ResizeGeometry& g) {
  using A = AccumulatorType<OutT>;
  if constexpr (!kConvertsValues<T, OutT>) return false;
  if constexpr (std::is_integral<T>::value && sizeof(T) > 2) return false;
  return g.out_height <= g.in_height && 2 * g.channels <= kRowBufferElements<A> &&
         g.in_width <= kMaxSpanPixelsPerColumn * g.out_width &&
         !DirectPathConvertsFaster<T, OutT>(g.channels, /*up_sampled=*/false);
}

// Whether a forward pass of T images into OutT output, one of them half or
// bfloat16, gains from 512-bit vectors (the AVX-512 path of
// RunOnBestCpuPath). It does where the channel loop is unrolled (C++ driver,
// one thread: 0.3x to 1.0x the AVX2 time, mixed types included). Where the
// count is read at run time, GCC's 512-bit code can lose, by how many channels
// are left over after 8-wide vectors (C % 8 of 4 to 7), by type and by path
// ("up-sampled": the height). 512-bit time over 256-bit time, C++ driver and
// a review from Python, 16x75x77xC to 37x41 and 16x37x41xC to 75x77:
// - half images: 1.1x to 1.7x where C % 8 >= 4 (5-7, 12-15, 20-23, 28-31, 36,
//   up-sampled or not), 0.92x to 1.08x otherwise;
// - bfloat16 images, not up-sampled: 1.2x to 1.4x for C = 5 to 7 and 12 to
//   15, 0.8x to 1.0x otherwise; up-sampled: 0.6x to 1.0x;
// - other images (float, uint8, int16) into half or bfloat16 output, on the
//   buffered paths: 1.1x to 1.6x where C % 8 >= 4 (5-7, 12, 13), 0.8x to
//   1.1x otherwise, but 0.5x to 0.8x at every count for bfloat16 output
//   up-sampled, where AVX2 is kept for simplicity (1.2x to 1.3x slower at 12
//   and 13 channels); on the direct path (see DirectPathConvertsFaster), 2x
//   to 3.6x at 9, 10, 12, 17 and 24 channels.
// The gradient measured no such loss and keeps AVX-512 everywhere.
template <typename T, typename OutT>
bool ForwardGainsFromAvx512(const ResizeGeometry& g) {
  if (IsUnrolledChannelCount(g.channels)) return true;
  const bool long_tail = g.channels % 8 >= 4;  // 4 to 7 channels left over
  if constexpr (std::is_same<T, Bfloat16>::value) {
    return g.out_height > g.in_height || g.channels > 15 || !long_tail;
  } else if constexpr (std::is_same<T, Float16>::value) {
    return !long_tail;
  } else {
    return !long_tail && (ReusesColumnBlends<T, OutT>(g) || ConvertsSpans<T, OutT>(g));
  }
}

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
  const AxisSampler<A> row_sampler(g.in_height, g.out_height, g.align_corners,
                                   g.half_pixel_centers);
  const AxisSampler<A> column_sampler(g.in_width, g.out_width, g.align_corners,
                                      g.half_pixel_centers);
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

// Writes output rows [begin_row, end_row), where row r is image r / out_height,
// row r % out_height. `images` ([batch, in_height, in_width, channels] of T)
// and `output` ([batch, out_height, out_width, channels] of OutT) are dense.
// Values are computed in AccumulatorType<OutT>. With OutputStores::kStreaming
// (see StoresForOutput), rows of float pixels of 4, 8, 16, 32 or 64 channels
// computed directly are written with streaming stores when `output` is
// 16-byte aligned; the row-reusing path's rows measured slower with them, and
// keep the cache. Any choice gives the same bits.
template <typename T, typename OutT>
void ResizeRows(const ResizeGeometry& g, const T* images, int64_t begin_row,
                int64_t end_row, OutT* output,
                OutputStores stores = OutputStores::kCached) {
  if (IsIdentity(g)) return CopyRows(g, images, begin_row, end_row, output);
  // One frame for whichever path runs. Left to find that the paths' arrays
  // may share the stack, GCC shared only some of them: 105 KB to 154 KB of
  // stack, where this takes 80 KB.
  union Frame {
    ReusedRowBuffers<AccumulatorType<OutT>> reused;
    SpanBuffersFor<T, OutT> spans;
    AxisWeight<AccumulatorType<OutT>> columns[kColumnBlock];
  } frame;
  if (ReusesColumnBlends<T, OutT>(g)) {
    return ResizeRowsReusingColumns(g, images, begin_row, end_row, output,
                                    frame.reused);
  }
  if (ConvertsSpans<T, OutT>(g)) {
    return ResizeRowsFromConvertedSpans(g, images, begin_row, end_row, output,
                                        frame.spans);
  }
  ResizeRowsDirectly(g, images, begin_row, end_row, output, stores, frame.columns);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_H_
