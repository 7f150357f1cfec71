// Interpolation weights of a bilinear resize along one axis.
//
// TensorFlow-free: shared by the CPU kernels, the GPU kernels and the standalone
// tests. The formulas are TensorFlow's ResizeBilinear ones, evaluated in the same
// precision (float for every output type but double), so float results match it
// bit for bit as long as the compiler does not fuse multiply-adds (the build
// macros pass -ffp-contract=off; bilinear_fp_contract_test checks it).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_WEIGHTS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_WEIGHTS_H_

#include <cstdint>

// Functions that the GPU kernels call per element, and the host code too.
#if defined(__CUDACC__)
#define BILINEAR_HOST_DEVICE __host__ __device__
#else
#define BILINEAR_HOST_DEVICE
#endif

namespace tensorflow_ops {
namespace bilinear {

// The type coordinates and sums are computed in, chosen by the output type:
// float for half, bfloat16 and float results, double for double results.
template <typename OutT>
struct AccumulatorTypeOf {
  using type = float;
};
template <>
struct AccumulatorTypeOf<double> {
  using type = double;
};
template <typename OutT>
using AccumulatorType = typename AccumulatorTypeOf<OutT>::type;

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

// Equal sizes: every scale is 1 and the resize is the identity (a cast). It is
// computed as a copy, as TensorFlow does: interpolating with weight 0 would turn
// Inf into NaN and -0 into +0, and lose exactness past 2^24 pixels.
BILINEAR_HOST_DEVICE inline bool IsIdentity(const ResizeGeometry& g) {
  return g.in_height == g.out_height && g.in_width == g.out_width;
}

// How one output row (or column) reads the input: it blends input index `lower`
// with weight 1 - lerp and input index `upper` with weight lerp.
template <typename A>
struct AxisWeight {
  int64_t lower;
  int64_t upper;
  A lerp;
};

// The weights of every output index along one axis, computed on demand: a
// table of them would cost 24 bytes per output column, more than a narrow
// half-precision output itself.
template <typename A>
class AxisSampler {
 public:
  // Input spacing per output step. With align_corners the corner pixels of
  // input and output coincide, so the scale is (in - 1) / (out - 1); a single
  // output pixel falls back to in / out, which also avoids dividing by zero.
  BILINEAR_HOST_DEVICE AxisSampler(int64_t in_size, int64_t out_size,
                                   bool align_corners, bool half_pixel_centers)
      : in_size_(in_size),
        scale_((align_corners && out_size > 1)
                   ? static_cast<A>(in_size - 1) / static_cast<A>(out_size - 1)
                   : static_cast<A>(in_size) / static_cast<A>(out_size)),
        half_pixel_centers_(half_pixel_centers) {}

  // The weight of output index `i`. `lower` and `upper` never decrease with
  // `i` (every step is a monotone rounding), which the gradient relies on.
  BILINEAR_HOST_DEVICE AxisWeight<A> At(int64_t i) const {
    const A in = half_pixel_centers_
                     ? (static_cast<A>(i) + A(0.5)) * scale_ - A(0.5)
                     : static_cast<A>(i) * scale_;
    // floor(in) and ceil(in) without a libm call (x86-64 has no rounding
    // instruction before SSE4.1): truncation, corrected below zero. Exact: a
    // float of magnitude 2^24 or more is an integer, and smaller integers
    // convert exactly.
    int64_t in_floor = static_cast<int64_t>(in);
    if (static_cast<A>(in_floor) > in) --in_floor;
    const A lerp = in - static_cast<A>(in_floor);
    // The clamps keep both neighbours inside the input even where rounding
    // pushes `in` past an edge; half-pixel centres give in < 0 near the start.
    return {Clamp(in_floor), Clamp(lerp > A(0) ? in_floor + 1 : in_floor), lerp};
  }

  // About the output index whose input coordinate is `coordinate`, within
  // [0, out_size]: the inverse of At's mapping, for the gradient's index ranges
  // to start from (they then step to the exact bound, which monotonicity
  // makes correct for any start). A zero scale (align_corners from a single
  // input pixel) maps every index to 0.
  BILINEAR_HOST_DEVICE int64_t IndexNear(A coordinate, int64_t out_size) const {
    if (!(scale_ > A(0))) return 0;
    const A index = half_pixel_centers_ ? (coordinate + A(0.5)) / scale_ - A(0.5)
                                        : coordinate / scale_;
    if (!(index > A(0))) return 0;
    if (index >= static_cast<A>(out_size)) return out_size;
    return static_cast<int64_t>(index);
  }

 private:
  BILINEAR_HOST_DEVICE int64_t Clamp(int64_t index) const {
    return index < 0 ? 0 : (index > in_size_ - 1 ? in_size_ - 1 : index);
  }

  int64_t in_size_;
  A scale_;
  bool half_pixel_centers_;
};

// The row and column weights of one resize, built once per call (CPU) or
// per thread (GPU).
template <typename A>
struct Samplers {
  AxisSampler<A> rows;
  AxisSampler<A> columns;
};

template <typename A>
BILINEAR_HOST_DEVICE Samplers<A> SamplersFor(const ResizeGeometry& g) {
  return {AxisSampler<A>(g.in_height, g.out_height, g.align_corners,
                         g.half_pixel_centers),
          AxisSampler<A>(g.in_width, g.out_width, g.align_corners,
                         g.half_pixel_centers)};
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_WEIGHTS_H_
