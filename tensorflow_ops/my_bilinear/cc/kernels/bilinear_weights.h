// Interpolation weights of a bilinear resize along one axis.
//
// TensorFlow-free: shared by the CPU kernels, the GPU kernels and the standalone
// tests. The formulas are TensorFlow's ResizeBilinear ones, evaluated in the same
// precision (float for every type but double), so float results match it bit for bit.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_WEIGHTS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_WEIGHTS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tensorflow_ops {
namespace bilinear {

// The type coordinates and sums are computed in: float for half, bfloat16 and
// float images, double for double images.
template <typename T>
struct AccumulatorTypeOf {
  using type = float;
};
template <>
struct AccumulatorTypeOf<double> {
  using type = double;
};
template <typename T>
using AccumulatorType = typename AccumulatorTypeOf<T>::type;

// Sizes of one resize: input [batch, in_height, in_width, channels] to
// output [batch, out_height, out_width, channels]. All sizes are positive except
// batch, which may be 0.
struct ResizeGeometry {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
  int64_t channels = 0;
  bool align_corners = true;
  bool half_pixel_centers = false;
};

// How one output row (or column) reads the input: it blends input index `lower`
// with weight 1 - lerp and input index `upper` with weight lerp.
template <typename A>
struct AxisWeight {
  int64_t lower;
  int64_t upper;
  A lerp;
};

// Input spacing per output step. With align_corners the corner pixels of input
// and output coincide, so the scale is (in - 1) / (out - 1); a single output pixel
// falls back to in / out, which also avoids dividing by zero.
template <typename A>
A ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return (align_corners && out_size > 1)
             ? static_cast<A>(in_size - 1) / static_cast<A>(out_size - 1)
             : static_cast<A>(in_size) / static_cast<A>(out_size);
}

// One weight per output index along an axis of `in_size` -> `out_size` pixels.
template <typename A>
std::vector<AxisWeight<A>> ComputeAxisWeights(int64_t in_size, int64_t out_size,
                                              bool align_corners,
                                              bool half_pixel_centers) {
  const A scale = ResizeScale<A>(in_size, out_size, align_corners);
  std::vector<AxisWeight<A>> weights(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const A in = half_pixel_centers
                     ? (static_cast<A>(i) + A(0.5)) * scale - A(0.5)
                     : static_cast<A>(i) * scale;
    const A in_floor = std::floor(in);
    // The clamps keep both neighbours inside the input even where rounding
    // pushes `in` past an edge; half-pixel centres give in < 0 near the start.
    weights[i].lower = std::clamp<int64_t>(static_cast<int64_t>(in_floor), 0,
                                           in_size - 1);
    weights[i].upper = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(in)),
                                           0, in_size - 1);
    weights[i].lerp = in - in_floor;
  }
  return weights;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_WEIGHTS_H_
