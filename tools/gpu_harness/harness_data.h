// What the GPU harness (bilinear_harness.cu) checks against: its geometries,
// its test data, and the CPU math's results for them, with denormals
// flushed or kept.
#ifndef TOOLS_GPU_HARNESS_HARNESS_DATA_H_
#define TOOLS_GPU_HARNESS_HARNESS_DATA_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace harness {

inline int64_t InputSize(const ResizeGeometry& g) {
  return g.batch * g.in_height * g.in_width * g.channels;
}
inline int64_t OutputSize(const ResizeGeometry& g) {
  return g.batch * g.out_height * g.out_width * g.channels;
}

template <typename T>
const char* TypeName() {
  if constexpr (std::is_same<T, float>::value) return "float";
  if constexpr (std::is_same<T, double>::value) return "double";
  if constexpr (std::is_same<T, Float16>::value) return "half";
  if constexpr (std::is_same<T, Bfloat16>::value) return "bfloat16";
  if constexpr (std::is_same<T, uint8_t>::value) return "uint8";
  if constexpr (std::is_same<T, int8_t>::value) return "int8";
  if constexpr (std::is_same<T, uint16_t>::value) return "uint16";
  if constexpr (std::is_same<T, int16_t>::value) return "int16";
  if constexpr (std::is_same<T, int32_t>::value) return "int32";
  if constexpr (std::is_same<T, int64_t>::value) return "int64";
  return "?";
}

// "[4,2048,2048,3]->256x256 hp": a benchmark shape and its attr mode.
inline std::string ShapeName(const ResizeGeometry& g) {
  char text[96];
  std::snprintf(text, sizeof(text), "[%lld,%lld,%lld,%lld]->%lldx%lld %s",
                static_cast<long long>(g.batch), static_cast<long long>(g.in_height),
                static_cast<long long>(g.in_width), static_cast<long long>(g.channels),
                static_cast<long long>(g.out_height), static_cast<long long>(g.out_width),
                g.align_corners ? "ac" : (g.half_pixel_centers ? "hp" : "plain"));
  return text;
}

// Slices of the CPU math test's small geometries (ForEachSmallGeometry), by
// output widths and channels.
enum class Matrix { kFull, kReduced, kDenormal, kNonFinite, kQuick };

// Calls check(geometry, name of the slice) over slice `m`.
template <typename Check>
void ForEachGeometry(Matrix m, const Check& check) {
  auto named = [&](const char* name) {
    return [&check, name](const ResizeGeometry& g) { check(g, std::string(name)); };
  };
  if (m == Matrix::kFull) {
    ForEachSmallGeometry({1, 4, 10}, {1, 3, 4, 17}, named("matrix w1,4,10 c1,3,4,17"));
  } else if (m == Matrix::kReduced) {
    ForEachSmallGeometry({1, 10}, {1, 3, 17}, named("matrix w1,10 c1,3,17"));
  } else if (m == Matrix::kDenormal) {
    ForEachSmallGeometry({1, 4}, {1, 3}, named("matrix w1,4 c1,3"));
  } else if (m == Matrix::kNonFinite) {
    ForEachSmallGeometry({1, 4, 10}, {3}, named("matrix w1,4,10 c3"));
  } else {
    ForEachSmallGeometry({4}, {3}, named("matrix w4 c3"));
  }
}

// Whether this host can compute the CPU math with denormals flushed.
constexpr bool kCanFlush =
#if defined(__SSE__)
    true;
#else
    false;
#endif
constexpr bool kFlush = true, kKeep = false;

// Calls work(begin, end) over row ranges covering [0, rows): on every core
// from a million elements up (the large cases would take seconds on one), on
// this thread below. MXCSR is per thread, so each one flushes for itself.
template <typename Work>
void ForRowRanges(int64_t rows, int64_t elements, bool flush, const Work& work) {
  auto run = [&](int64_t begin, int64_t end) {
    const ScopedFlushDenormals flushing(flush);
    work(begin, end);
  };
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  const int64_t threads = elements < (int64_t{1} << 20) ? 1 : std::min(rows, cores);
  if (threads <= 1) return run(0, rows);
  std::vector<std::thread> workers;
  for (int64_t t = 0; t < threads; ++t) {
    workers.emplace_back(run, rows * t / threads, rows * (t + 1) / threads);
  }
  for (std::thread& worker : workers) worker.join();
}

// The CPU math's forward of `images` (ResizeRows), denormals flushed or kept.
template <typename T, typename OutT>
std::vector<OutT> CpuResize(const ResizeGeometry& g, const std::vector<T>& images,
                            bool flush) {
  std::vector<OutT> want(OutputSize(g));
  ForRowRanges(g.batch * g.out_height, OutputSize(g), flush,
               [&](int64_t begin, int64_t end) {
                 ResizeRows(g, images.data(), begin, end, want.data());
               });
  return want;
}

// The CPU math's gradient of `grads` (ResizeGradRows).
template <typename T>
std::vector<T> CpuResizeGrad(const ResizeGeometry& g, const std::vector<T>& grads,
                             bool flush) {
  std::vector<T> want(InputSize(g));
  ForRowRanges(g.batch * g.in_height, InputSize(g) + OutputSize(g), flush,
               [&](int64_t begin, int64_t end) {
                 ResizeGradRows(g, grads.data(), begin, end, want.data());
               });
  return want;
}

enum class Data { kRandom, kDenormal, kNonFinite };

// SplitMix64: a hash of the case and the index, fast enough to fill the 268M
// elements of the grid-stride cases in about a second.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

// The smallest normal of Scale: float's for half and bfloat16, whose sums
// are formed in float.
template <typename Scale>
constexpr double SmallestNormal() {
  if constexpr (std::is_floating_point<Scale>::value) {
    return std::numeric_limits<Scale>::min();
  } else {
    return std::numeric_limits<float>::min();
  }
}

// `count` values of T for case `seed`: every bit pattern for integers,
// uniform in [-100, 100) otherwise. kDenormal scales every third value by
// min/1024 and the next by min/64, as bilinear_gpu_grid_test does, `min`
// being Scale's smallest normal; kNonFinite makes one value in 8 a NaN,
// +inf or -inf.
template <typename T, typename Scale = T>
std::vector<T> Values(int64_t count, uint64_t seed, Data data = Data::kRandom) {
  std::vector<T> values(count);
  const uint64_t stream = Mix(seed);
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t bits = Mix(stream + static_cast<uint64_t>(i));
    if constexpr (std::is_integral<T>::value) {
      values[i] = static_cast<T>(bits);
    } else {
      double value = -100 + 200 * (static_cast<double>(bits >> 11) * 0x1p-53);
      if (data == Data::kDenormal && i % 3 != 0) {
        value *= SmallestNormal<Scale>() / (i % 3 == 1 ? 1024 : 64);
      }
      const uint64_t special = data == Data::kNonFinite ? bits & 31 : 31;
      if (special < 2) value = std::numeric_limits<double>::quiet_NaN();
      if (special == 2 || special == 3) {
        value = (special == 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
      }
      values[i] = static_cast<T>(value);
    }
  }
  return values;
}

}  // namespace harness
}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TOOLS_GPU_HARNESS_HARNESS_DATA_H_
