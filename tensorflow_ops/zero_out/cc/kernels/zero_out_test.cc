// Standalone test of the TensorFlow-free ZeroOut math (no TensorFlow, no gtest):
// every length from 0 to 9, both dtypes, with canaries around the output that
// must survive (a write out of bounds would overwrite them).
#include <cstdint>
#include <cstdio>
#include <vector>

#include "tensorflow_ops/zero_out/cc/kernels/zero_out.h"

namespace tensorflow_ops {
namespace zero_out {
namespace {

constexpr int64_t kGuard = 8;

template <typename T>
int CheckLengths(const char* type_name, T canary) {
  int failures = 0;
  for (int64_t size = 0; size < 10; ++size) {
    std::vector<T> input(size);
    for (int64_t i = 0; i < size; ++i) input[i] = static_cast<T>(7 + 3 * i);
    std::vector<T> output(size + 2 * kGuard, canary);
    ZeroOut(input.data(), size, output.data() + kGuard);
    for (int64_t i = 0; i < size; ++i) {
      const T expected = i == 0 ? input[0] : T(0);
      if (output[kGuard + i] != expected) {
        std::printf("FAIL %s size %lld: element %lld\n", type_name,
                    static_cast<long long>(size), static_cast<long long>(i));
        ++failures;
      }
    }
    for (int64_t i = 0; i < kGuard; ++i) {
      if (output[i] != canary || output[kGuard + size + i] != canary) {
        std::printf("FAIL %s size %lld: canary overwritten\n", type_name,
                    static_cast<long long>(size));
        ++failures;
        break;
      }
    }
  }
  return failures;
}

}  // namespace
}  // namespace zero_out
}  // namespace tensorflow_ops

int main() {
  using tensorflow_ops::zero_out::CheckLengths;
  const int failures =
      CheckLengths<int32_t>("int32", -99) + CheckLengths<float>("float", -99.5f);
  std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
  return failures == 0 ? 0 : 1;
}
