// Streaming (non-temporal) stores for outputs larger than the cache.
//
// TensorFlow-free. A regular store reads the line it writes into the cache
// first (read for ownership); an output larger than the last-level cache goes
// back to memory before anything reads it, so each of its bytes crosses the
// memory bus twice. A streaming store writes whole lines to memory without
// reading them. They are weakly ordered: a writer ends with
// FinishStreamingStores() before it tells another thread the output is done.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_STREAMING_STORES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_STREAMING_STORES_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

// How a kernel writes its output: through the cache; through the cache 64
// bytes at a time from each row's start (whole cache lines where rows are
// 64-byte aligned), where the output takes much of the cache, for the loops
// that have such a form; or streaming past it.
enum class OutputStores { kCached, kWholeLines, kStreaming };

// ThreadSanitizer sees neither streaming stores (GCC emits them as builtins
// it does not instrument) nor x86's rule that only a fence orders them before
// later stores. In its builds each one is reported to it as a write, and each
// thread counts those it has not fenced yet, which ExpectStreamingStoresFenced
// checks where a thread reports its rows done.
#if defined(__SANITIZE_THREAD__)
#define BILINEAR_CHECK_STREAMING_STORES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BILINEAR_CHECK_STREAMING_STORES 1
#endif
#endif
#ifndef BILINEAR_CHECK_STREAMING_STORES
#define BILINEAR_CHECK_STREAMING_STORES 0
#endif

#if BILINEAR_CHECK_STREAMING_STORES
extern "C" void __tsan_write_range(void* address, unsigned long size);

inline int64_t& UnfencedStreamingStores() {
  static thread_local int64_t count = 0;
  return count;
}
#endif

// Records, in ThreadSanitizer builds, that `bytes` at `out` were streamed.
inline void NoteStreamingStore(float* out, int bytes) {
#if BILINEAR_CHECK_STREAMING_STORES
  __tsan_write_range(out, static_cast<unsigned long>(bytes));
  ++UnfencedStreamingStores();
#else
  (void)out;
  (void)bytes;
#endif
}

// Aborts, in ThreadSanitizer builds, if this thread has streaming stores that
// no FinishStreamingStores() has ordered yet: called where a thread is about
// to report rows done.
inline void ExpectStreamingStoresFenced() {
#if BILINEAR_CHECK_STREAMING_STORES
  if (UnfencedStreamingStores() != 0) {
    std::fprintf(stderr,
                 "%lld streaming stores not fenced before their rows were "
                 "reported done (FinishStreamingStores missing)\n",
                 static_cast<long long>(UnfencedStreamingStores()));
    std::abort();
  }
#endif
}

#if defined(__SSE2__)
constexpr bool kHaveStreamingStores = true;

// Stores values[0..3] at `out`, which is 16-byte aligned, past the cache.
inline void StreamFourFloats(const float* values, float* out) {
  _mm_stream_ps(out, _mm_loadu_ps(values));
  NoteStreamingStore(out, 16);
}

// Orders this thread's streaming stores before its later stores (the release
// that tells another thread the rows are written).
inline void FinishStreamingStores() {
  _mm_sfence();
#if BILINEAR_CHECK_STREAMING_STORES
  UnfencedStreamingStores() = 0;
#endif
}
#else
constexpr bool kHaveStreamingStores = false;
inline void StreamFourFloats(const float* values, float* out) {
  for (int i = 0; i < 4; ++i) out[i] = values[i];
}
inline void FinishStreamingStores() {}
#endif

// Bytes in a cache size as sysfs writes it ("32768K": a count, then K, M or G
// or nothing, then an optional newline), or 0 when `text` is not a positive
// size of at most 1 TiB.
inline int64_t ParseCacheSize(const std::string& text) {
  constexpr int64_t kMaxBytes = int64_t{1} << 40;
  int64_t count = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    count = count * 10 + (text[i] - '0');
    if (count > kMaxBytes) return 0;
  }
  if (i == 0 || count == 0) return 0;
  int shift = 0;
  if (i < text.size() && (text[i] == 'K' || text[i] == 'M' || text[i] == 'G')) {
    shift = text[i] == 'K' ? 10 : (text[i] == 'M' ? 20 : 30);
    ++i;
  }
  if (i < text.size() && text[i] == '\n') ++i;
  if (i != text.size() || count > (kMaxBytes >> shift)) return 0;
  return count << shift;
}

// Where Linux lists the first CPU's caches (index*/level, index*/size).
constexpr char kSysfsCacheFolder[] = "/sys/devices/system/cpu/cpu0/cache";

// The size of the last-level cache of the first CPU, from the sysfs folder
// `cache_folder` (its index*/level and index*/size): the highest level of at
// least 3, which is one L3 slice of the chip as the kernel exposes it. Else
// the C library's L3 figure (on AMD chips it may add up the slices of the
// whole socket), else 32 MiB. An L2 is never taken for it: with it, outputs
// of a few MiB would stream.
inline int64_t LastLevelCacheBytesIn(const std::string& cache_folder) {
  int64_t best_level = 0, best_size = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string folder = cache_folder + "/index" + std::to_string(index);
    std::ifstream level_file(folder + "/level"), size_file(folder + "/size");
    int64_t level = 0;
    std::string size_text;
    if (!(level_file >> level) || !std::getline(size_file, size_text)) continue;
    const int64_t size = ParseCacheSize(size_text);
    if (level >= 3 && level > best_level && size > 0) {
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
}

// The cache size that `setting` (TENSORFLOW_OPS_LAST_LEVEL_CACHE's value, a
// size as ParseCacheSize reads it) gives, else LastLevelCacheBytesIn. A
// virtual machine may list its host's whole L3 for a few CPUs; only the
// stores, never the results, depend on the figure. Unset or empty leaves the
// sysfs figure; any other value that ParseCacheSize refuses is reported on
// stderr and ignored, as TENSORFLOW_OPS_CPU_PATH's is.
inline int64_t LastLevelCacheBytesFrom(const char* setting,
                                       const std::string& cache_folder) {
  if (setting != nullptr && *setting != '\0') {
    const int64_t bytes = ParseCacheSize(setting);
    if (bytes > 0) return bytes;
    std::fprintf(stderr,
                 "TENSORFLOW_OPS_LAST_LEVEL_CACHE=%.40s is not a size from 1 "
                 "byte to 1T such as 32M: ignored\n",
                 setting);
  }
  return LastLevelCacheBytesIn(cache_folder);
}

// LastLevelCacheBytesFrom for the environment and this machine's first CPU,
// read once (by each library that includes this: the op and JAX libraries
// each warn once about a bad value).
inline int64_t LastLevelCacheBytes() {
  static const int64_t bytes =
      LastLevelCacheBytesFrom(std::getenv("TENSORFLOW_OPS_LAST_LEVEL_CACHE"),
                              kSysfsCacheFolder);
  return bytes;
}

// The stores for a kernel that writes `output_bytes` and reads `input_bytes`:
// streaming, where the CPU has them, when either
// - the output reaches 3/4 of the last-level cache, where glibc's memcpy
//   switches to them too (glibc commit d3c5702, 2020), and is at least as
//   large as the input, so that writes dominate the memory traffic; or
// - input and output together reach twice the cache, so that at most about
//   half of the output would still be cached when the kernel returns.
// Smaller outputs stay in the cache for the op that reads them next
// (docs/cpu_performance.md#storesforoutput); from a quarter of it, they are
// written 64 bytes at a time where a loop can
// (docs/cpu_performance.md#wholelines).
inline OutputStores StoresForOutput(int64_t output_bytes, int64_t input_bytes) {
  const int64_t cache_bytes = LastLevelCacheBytes();
  const bool outgrows_cache =
      output_bytes >= input_bytes && output_bytes >= cache_bytes / 4 * 3;
  const bool evicted_anyway = input_bytes + output_bytes >= 2 * cache_bytes;
  if (kHaveStreamingStores && (outgrows_cache || evicted_anyway)) {
    return OutputStores::kStreaming;
  }
  return output_bytes >= cache_bytes / 4 ? OutputStores::kWholeLines
                                         : OutputStores::kCached;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_STREAMING_STORES_H_
