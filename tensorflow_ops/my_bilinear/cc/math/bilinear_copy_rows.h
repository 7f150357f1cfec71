// The identity resize (equal sizes, bilinear_weights.h's IsIdentity): rows
// copied with a cast, by the forward pass and by the gradient alike.
//
// TensorFlow-free. A header of its own so that the gradient's instances
// (bilinear_resize_grad.h) need nothing of the forward pass's and do not
// recompile when it changes.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_COPY_ROWS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_COPY_ROWS_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

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

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_COPY_ROWS_H_
