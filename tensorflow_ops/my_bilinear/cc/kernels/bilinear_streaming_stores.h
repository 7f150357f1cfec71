// Streaming (non-temporal) stores for outputs larger than the cache.
//
// TensorFlow-free. A regular store reads the line it writes into the cache
// first (read for ownership); an output larger than the last-level cache goes
// back to memory before anything reads it, so each of its bytes crosses the
// memory bus twice. A streaming store writes whole lines to memory without
// reading them. They are weakly ordered: a writer ends with
// FinishStreamingStores() before it tells another thread the output is done.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_STREAMING_STORES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_STREAMING_STORES_H_

#include <cstdint>
#include <fstream>
#include <string>

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

// How a kernel writes its output: through the cache, or streaming past it.
enum class OutputStores { kCached, kStreaming };

#if defined(__SSE2__)
constexpr bool kHaveStreamingStores = true;

// Stores values[0..3] at `out`, which is 16-byte aligned, past the cache.
inline void StreamFourFloats(const float* values, float* out) {
  _mm_stream_ps(out, _mm_loadu_ps(values));
}

// Orders this thread's streaming stores before its later stores (the release
// that tells another thread the rows are written).
inline void FinishStreamingStores() { _mm_sfence(); }
#else
constexpr bool kHaveStreamingStores = false;
inline void StreamFourFloats(const float* values, float* out) {
  for (int i = 0; i < 4; ++i) out[i] = values[i];
}
inline void FinishStreamingStores() {}
#endif

// The size in bytes of the largest cache the first CPU reports in Linux's
// sysfs (its last level: one L3 slice of the chip, as the kernel exposes it),
// else the C library's figure (which, on AMD chips, may add up the slices of
// the whole socket), else 32 MiB. Read once.
inline int64_t LastLevelCacheBytes() {
  static const int64_t bytes = [] {
    int64_t best_level = 0, best_size = 0;
    for (int index = 0; index < 8; ++index) {
      const std::string folder =
          "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
      std::ifstream level_file(folder + "/level"), size_file(folder + "/size");
      int64_t level = 0, size = 0;
      std::string unit;
      if (!(level_file >> level) || !(size_file >> size)) continue;
      size_file >> unit;  // "K" or "M", or nothing for bytes.
      if (unit == "K") size <<= 10;
      if (unit == "M") size <<= 20;
      if (level > best_level && size > 0) {
        best_level = level;
        best_size = size;
      }
    }
    if (best_size > 0) return best_size;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    const long reported = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (reported > 0) return int64_t{reported};
#endif
    return int64_t{32} << 20;
  }();
  return bytes;
}

// The stores for a kernel that writes `output_bytes` and reads `input_bytes`:
// streaming when the output reaches 3/4 of the last-level cache, where glibc's
// memcpy switches to them too (glibc commit d3c5702, 2020), and is at least
// as large as the input, so that writes dominate the memory traffic; and only
// where the CPU has them. Smaller outputs stay in the cache for the op that
// reads them next. Measured on one thread (AMD Zen 5, 32 MiB L3): 32 MiB and
// 64 MiB up-sampled outputs took 0.66x the time with streaming stores; a
// 72 MiB output down-sampled from 134 MiB of input took 1.1x.
inline OutputStores StoresForOutput(int64_t output_bytes, int64_t input_bytes) {
  return kHaveStreamingStores && output_bytes >= input_bytes &&
                 output_bytes >= LastLevelCacheBytes() / 4 * 3
             ? OutputStores::kStreaming
             : OutputStores::kCached;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_STREAMING_STORES_H_
