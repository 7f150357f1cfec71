// ZeroOut's math, free of TensorFlow so that a plain C++ test can run it.
#ifndef TENSORFLOW_OPS_ZERO_OUT_CC_KERNELS_ZERO_OUT_H_
#define TENSORFLOW_OPS_ZERO_OUT_CC_KERNELS_ZERO_OUT_H_

#include <cstdint>

namespace tensorflow_ops {
namespace zero_out {

// Writes `input[0]` to `output[0]` and zeros to `output[1..size-1]`.
// An empty input (size 0) writes nothing.
template <typename T>
void ZeroOut(const T* input, int64_t size, T* output) {
  for (int64_t i = 1; i < size; ++i) output[i] = T(0);
  if (size > 0) output[0] = input[0];
}

}  // namespace zero_out
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_ZERO_OUT_CC_KERNELS_ZERO_OUT_H_
