// What the standalone C++ tests of the math share: geometries in every
// attribute mode, random values, and a geometry's description for messages.
//
// TensorFlow-free, CUDA-free and header-only, so that the GPU harness (nvcc)
// and the libFuzzer target (clang, no main of ours) use it too; how a test
// checks and reports is bilinear_test_main.h.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_TESTS_BILINEAR_TEST_SUPPORT_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_TESTS_BILINEAR_TEST_SUPPORT_H_

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// The three valid (align_corners, half_pixel_centers) pairs.
constexpr bool kAttrModes[3][2] = {{true, false}, {false, false}, {false, true}};

// Calls check(geometry) for these sizes in each attribute mode.
template <typename Check>
void ForEachAttrMode(int64_t batch, int64_t in_height, int64_t in_width,
                     int64_t out_height, int64_t out_width, int64_t channels,
                     const Check& check) {
  for (const auto& mode : kAttrModes) {
    check(ResizeGeometry{batch, in_height, in_width, out_height, out_width,
                         channels, mode[0], mode[1]});
  }
}

// Calls check(geometry) for small geometries: a batch of 2, heights 1 to 13
// in and out, input widths 1, 4 and 7 into each of `out_widths`, each of
// `channel_counts`, in each attribute mode. Returns how many.
template <typename Check>
int64_t ForEachSmallGeometry(std::initializer_list<int64_t> out_widths,
                             std::initializer_list<int64_t> channel_counts,
                             const Check& check) {
  int64_t count = 0;
  for (const int64_t in_height : {1, 2, 3, 5, 8, 13})
    for (const int64_t out_height : {1, 2, 3, 5, 8, 13})
      for (const int64_t in_width : {1, 4, 7})
        for (const int64_t out_width : out_widths)
          for (const int64_t channels : channel_counts) {
            ForEachAttrMode(2, in_height, in_width, out_height, out_width,
                            channels, [&](const ResizeGeometry& g) {
                              check(g);
                              ++count;
                            });
          }
  return count;
}

// `size` values of T drawn uniformly from [low, high).
template <typename T>
std::vector<T> RandomValues(int64_t size, double low, double high,
                            std::mt19937* rng) {
  std::uniform_real_distribution<double> uniform(low, high);
  std::vector<T> values(size);
  for (T& v : values) v = static_cast<T>(uniform(*rng));
  return values;
}

// With `flush`, FTZ and DAZ set in MXCSR for the life of the object, as
// TensorFlow's executor sets them around CPU kernels (where the CPU has them;
// MXCSR is per thread).
class ScopedFlushDenormals {
 public:
  explicit ScopedFlushDenormals(bool flush) {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
    if (flush) _mm_setcsr(saved_ | 0x8040);  // FTZ (bit 15) and DAZ (bit 6)
#endif
  }
  ~ScopedFlushDenormals() {
#if defined(__SSE__)
    _mm_setcsr(saved_);
#endif
  }
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  unsigned saved_ = 0;
};

// "in HxW out HxW c=C b=B ac=0|1 hp=0|1": the geometry a message is about.
inline std::string Describe(const ResizeGeometry& g) {
  char text[192];
  std::snprintf(text, sizeof(text), "in %lldx%lld out %lldx%lld c=%lld b=%lld ac=%d hp=%d",
                static_cast<long long>(g.in_height), static_cast<long long>(g.in_width),
                static_cast<long long>(g.out_height), static_cast<long long>(g.out_width),
                static_cast<long long>(g.channels), static_cast<long long>(g.batch),
                g.align_corners, g.half_pixel_centers);
  return text;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_TESTS_BILINEAR_TEST_SUPPORT_H_
