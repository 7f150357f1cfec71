// The innermost loops of the forward pass: one or two output rows blended
// from two input rows, TensorFlow's expressions value by value (horizontal
// first, then vertical), with the channel count fixed at compile time where it
// is a common one. Every row path (bilinear_resize.h) is built from these.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ROW_BLENDS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ROW_BLENDS_H_

#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Output columns whose weights are computed at once; a block's weights serve
// every row of the range before the next block is computed. 1024 (24 KB of
// weights) keeps rows of up to 1024 pixels in one pass
// (docs/cpu_performance.md#kcolumnblock).
constexpr int64_t kColumnBlock = 1024;

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

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ROW_BLENDS_H_
