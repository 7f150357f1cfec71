// The transpose of an AxisSampler (bilinear_weights.h): for one input index,
// the output indices that read it and the weight each one reads it with.
//
// TensorFlow-free. The CPU gradient (bilinear_resize_grad.h), the GPU one
// (bilinear_grad_passes.h) and the XLA kernels' tables
// (bilinear_adjoint_terms.h) all start from these, so that they add the same
// terms; being this small, the XLA kernels, the longest compile of the op
// library, do not recompile when the CPU math changes.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_AXIS_ADJOINT_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_AXIS_ADJOINT_H_

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// The output rows [*begin, *end) that read input row `in_y`. Every output row
// blends two neighbouring (or equal) input rows, and both never decrease with
// the output row, so the rows with upper >= in_y and lower <= in_y are
// contiguous, and each of them reads `in_y`.
template <typename A>
void OutputRowsReading(const AxisSampler<A>& rows, int64_t out_height,
                       int64_t in_y, int64_t* begin, int64_t* end) {
  auto first = [&](auto is_past) {  // the first output row where is_past holds
    int64_t low = 0, high = out_height;
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (is_past(rows.At(middle))) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    return low;
  };
  *begin = first([in_y](const AxisWeight<A>& w) { return w.upper >= in_y; });
  *end = first([in_y](const AxisWeight<A>& w) { return w.lower > in_y; });
}

// The weight with which an output index of weight `w` reads input index `in`,
// one of its two neighbours: exactly 1 where both neighbours are `in`, since
// the forward pass then returns that value unchanged. Rows and columns, and
// the CPU, GPU and XLA gradients, all weigh their terms with it.
template <typename A>
BILINEAR_HOST_DEVICE A WeightOfNeighbour(const AxisWeight<A>& w, int64_t in) {
  return w.lower == w.upper ? A(1) : (w.lower == in ? A(1) - w.lerp : w.lerp);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_AXIS_ADJOINT_H_
