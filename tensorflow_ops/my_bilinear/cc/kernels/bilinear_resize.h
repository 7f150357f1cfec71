// Bilinear resize of NHWC images, one range of output rows at a time.
//
// TensorFlow-free. A caller builds a ResizePlan once per call and hands disjoint
// row ranges to as many threads as it likes: every output row is written by
// exactly one call and reads only the input, so any split gives the same bits.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Interpolation weights for every output row and column of one resize.
template <typename A>
struct ResizePlan {
  ResizeGeometry geometry;
  std::vector<AxisWeight<A>> rows;     // one per output row
  std::vector<AxisWeight<A>> columns;  // one per output column
  // How many output columns, from the left, may read and write a 3-channel
  // pixel as 4 values without leaving their row: not the last output column,
  // and neighbours left of the last input column. A prefix, as `upper` never
  // decreases.
  int64_t four_lane_columns = 0;
};

template <typename A>
ResizePlan<A> MakeResizePlan(const ResizeGeometry& geometry) {
  ResizePlan<A> plan{
      geometry,
      ComputeAxisWeights<A>(geometry.in_height, geometry.out_height,
                            geometry.align_corners, geometry.half_pixel_centers),
      ComputeAxisWeights<A>(geometry.in_width, geometry.out_width,
                            geometry.align_corners, geometry.half_pixel_centers)};
  while (plan.four_lane_columns < geometry.out_width - 1 &&
         plan.columns[plan.four_lane_columns].upper < geometry.in_width - 1) {
    ++plan.four_lane_columns;
  }
  return plan;
}

// One output row. kChannels > 0 fixes the channel count at compile time so the
// innermost loop unrolls; 0 reads it from `channels`.
template <int kChannels, typename T, typename A>
void ResizeOneRow(const T* __restrict__ top, const T* __restrict__ bottom,
                  A y_lerp, const AxisWeight<A>* __restrict__ columns,
                  int64_t out_width, int64_t channels, T* __restrict__ out) {
  const int64_t c_count = kChannels > 0 ? kChannels : channels;
  for (int64_t x = 0; x < out_width; ++x) {
    const int64_t left = columns[x].lower * c_count;
    const int64_t right = columns[x].upper * c_count;
    const A x_lerp = columns[x].lerp;
    for (int64_t c = 0; c < c_count; ++c) {
      // TensorFlow's order of operations: horizontal first, then vertical.
      const A top_left = static_cast<A>(top[left + c]);
      const A top_right = static_cast<A>(top[right + c]);
      const A bottom_left = static_cast<A>(bottom[left + c]);
      const A bottom_right = static_cast<A>(bottom[right + c]);
      const A top_value = top_left + (top_right - top_left) * x_lerp;
      const A bottom_value = bottom_left + (bottom_right - bottom_left) * x_lerp;
      out[c] = static_cast<T>(top_value + (bottom_value - top_value) * y_lerp);
    }
    out += c_count;
  }
}

// One output row of 3-channel float pixels, each handled as one 4-lane vector
// whose 4th lane is ignored: a vector operation per lerp instead of three
// scalar ones. The lanes evaluate exactly the scalar formulas, so the result
// is bitwise that of ResizeOneRow<3>. The 4th lane reads the next input pixel
// and writes the next output pixel (which is written again after it); see
// ResizePlan::four_lane_columns for why this stays inside the row.
inline void ResizeThreeChannelFloatRow(const float* __restrict__ top,
                                       const float* __restrict__ bottom,
                                       float y_lerp,
                                       const AxisWeight<float>* __restrict__ columns,
                                       int64_t out_width, int64_t four_lane_columns,
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
                  out_width - four_lane_columns, 3, out + four_lane_columns * 3);
}

// Writes output rows [begin_row, end_row), where row r is image r / out_height,
// row r % out_height. `images` and `output` are dense NHWC buffers.
template <typename T, typename A>
void ResizeRows(const ResizePlan<A>& plan, const T* images, int64_t begin_row,
                int64_t end_row, T* output) {
  const ResizeGeometry& g = plan.geometry;
  const int64_t in_row_size = g.in_width * g.channels;
  const int64_t out_row_size = g.out_width * g.channels;
  for (int64_t row = begin_row; row < end_row; ++row) {
    const int64_t b = row / g.out_height;
    const AxisWeight<A>& y = plan.rows[row % g.out_height];
    const T* image = images + b * g.in_height * in_row_size;
    const T* top = image + y.lower * in_row_size;
    const T* bottom = image + y.upper * in_row_size;
    T* out = output + row * out_row_size;
    const AxisWeight<A>* columns = plan.columns.data();
    switch (g.channels) {
      case 1:
        ResizeOneRow<1>(top, bottom, y.lerp, columns, g.out_width, 1, out);
        break;
      case 3:
        if constexpr (std::is_same<T, float>::value) {
          ResizeThreeChannelFloatRow(top, bottom, y.lerp, columns, g.out_width,
                                     plan.four_lane_columns, out);
        } else {
          ResizeOneRow<3>(top, bottom, y.lerp, columns, g.out_width, 3, out);
        }
        break;
      case 4:
        ResizeOneRow<4>(top, bottom, y.lerp, columns, g.out_width, 4, out);
        break;
      default:
        ResizeOneRow<0>(top, bottom, y.lerp, columns, g.out_width, g.channels,
                        out);
    }
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_H_
