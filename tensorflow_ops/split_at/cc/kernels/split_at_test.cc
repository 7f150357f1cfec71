// Standalone test of the TensorFlow-free SplitAt math (no TensorFlow, no gtest):
// every index of vectors of length 0 to 7, with canaries around both outputs
// that must survive (a write out of bounds would overwrite them).
#include <cstdint>
#include <cstdio>
#include <vector>

#include "tensorflow_ops/split_at/cc/kernels/split_at.h"

namespace tensorflow_ops {
namespace split_at {
namespace {

constexpr int64_t kGuard = 8;
constexpr double kCanary = -12345.0;

bool CanariesIntact(const std::vector<double>& buffer) {
  for (int64_t i = 0; i < kGuard; ++i) {
    if (buffer[i] != kCanary || buffer[buffer.size() - 1 - i] != kCanary) {
      return false;
    }
  }
  return true;
}

int CheckAllSplits() {
  int failures = 0;
  for (int64_t length = 0; length < 8; ++length) {
    std::vector<double> values(length);
    for (int64_t i = 0; i < length; ++i) values[i] = 0.5 + i;
    for (int64_t index = 0; index <= length; ++index) {
      std::vector<double> head(index + 2 * kGuard, kCanary);
      std::vector<double> tail(length - index + 2 * kGuard, kCanary);
      SplitAt(values.data(), length, index, head.data() + kGuard,
              tail.data() + kGuard);
      bool ok = CanariesIntact(head) && CanariesIntact(tail);
      for (int64_t i = 0; i < length; ++i) {
        const double got = i < index ? head[kGuard + i] : tail[kGuard + i - index];
        ok = ok && got == values[i];
      }
      if (!ok) {
        std::printf("FAIL length %lld index %lld\n", static_cast<long long>(length),
                    static_cast<long long>(index));
        ++failures;
      }
    }
  }
  return failures;
}

}  // namespace
}  // namespace split_at
}  // namespace tensorflow_ops

int main() {
  const int failures = tensorflow_ops::split_at::CheckAllSplits();
  std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
  return failures == 0 ? 0 : 1;
}
