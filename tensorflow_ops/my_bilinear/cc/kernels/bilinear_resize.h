// Bilinear resize of NHWC images, one range of output rows at a time.
//
// TensorFlow-free. A caller builds a ResizePlan once per call and hands disjoint
// row ranges to as many threads as it likes: every output row is written by
// exactly one call and reads only the input, so any split gives the same bits.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_H_

#include <cstdint>
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
};

template <typename A>
ResizePlan<A> MakeResizePlan(const ResizeGeometry& geometry) {
  return ResizePlan<A>{
      geometry,
      ComputeAxisWeights<A>(geometry.in_height, geometry.out_height,
                            geometry.align_corners, geometry.half_pixel_centers),
      ComputeAxisWeights<A>(geometry.in_width, geometry.out_width,
                            geometry.align_corners, geometry.half_pixel_centers)};
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
        ResizeOneRow<3>(top, bottom, y.lerp, columns, g.out_width, 3, out);
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
