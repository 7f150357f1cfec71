// SplitAt's math, free of TensorFlow so that a plain C++ test can run it.
#ifndef TENSORFLOW_OPS_SPLIT_AT_CC_KERNELS_SPLIT_AT_H_
#define TENSORFLOW_OPS_SPLIT_AT_CC_KERNELS_SPLIT_AT_H_

#include <algorithm>
#include <cstdint>

namespace tensorflow_ops {
namespace split_at {

// Copies values[0, index) to `head` and values[index, size) to `tail`.
// Requires 0 <= index <= size (the kernel checks it before calling).
template <typename T>
void SplitAt(const T* values, int64_t size, int64_t index, T* head, T* tail) {
  std::copy(values, values + index, head);
  std::copy(values + index, values + size, tail);
}

}  // namespace split_at
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_SPLIT_AT_CC_KERNELS_SPLIT_AT_H_
