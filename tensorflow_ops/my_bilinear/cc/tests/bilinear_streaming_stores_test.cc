// Standalone test of how the kernels store their output: the sysfs
// cache-size parser, the last-level cache found in a sysfs-like folder (and
// never an L2) or set by TENSORFLOW_OPS_LAST_LEVEL_CACHE, StoresForOutput's
// rule, and the whole-line vertical blend against the plain one.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_buffers.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

BILINEAR_TEST(ParseCacheSize) {
  Expect(ParseCacheSize("32768K\n") == int64_t{32} << 20, "32768K");
  Expect(ParseCacheSize("1024K") == int64_t{1} << 20, "1024K");
  Expect(ParseCacheSize("2M") == int64_t{2} << 20, "2M");
  Expect(ParseCacheSize("1G") == int64_t{1} << 30, "1G");
  Expect(ParseCacheSize("512") == 512, "bytes");
  for (const char* bad :
       {"", "\n", "0K", "K", "-5K", "abc", "12Q", "12K extra", "32768K\n\n",
        "9223372036854775807K", "99999999999999999999", "2048G"}) {
    Expect(ParseCacheSize(bad) == 0, "ParseCacheSize(\"%s\") is not 0", bad);
  }
}

// A folder laid out as /sys/devices/system/cpu/cpu0/cache, with the caches
// given as (level, size text).
std::string FakeCacheFolder(const char* name,
                            std::initializer_list<std::pair<int, const char*>> caches) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string folder = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  mkdir(folder.c_str(), 0755);
  int index = 0;
  for (const auto& [level, size] : caches) {
    const std::string entry = folder + "/index" + std::to_string(index++);
    mkdir(entry.c_str(), 0755);
    std::ofstream(entry + "/level") << level << "\n";
    std::ofstream(entry + "/size") << size << "\n";
  }
  return folder;
}

BILINEAR_TEST(LastLevelCache) {
  const std::string with_l3 = FakeCacheFolder(
      "with_l3", {{1, "48K"}, {1, "32K"}, {2, "1024K"}, {3, "16384K"}});
  Expect(LastLevelCacheBytesIn(with_l3) == int64_t{16} << 20, "L3 from sysfs");
  // Without an L3 entry (or with an unreadable one), the fallback: the C
  // library's L3 figure or 32 MiB, never the 1 MiB L2.
  for (const std::string& folder :
       {FakeCacheFolder("without_l3", {{1, "48K"}, {2, "1024K"}}),
        FakeCacheFolder("bad_l3", {{2, "1024K"}, {3, "lots"}}),
        std::string("/nonexistent")}) {
    Expect(LastLevelCacheBytesIn(folder) > int64_t{1} << 20,
           "no L3 in sysfs: falls back past the L2");
  }
  Expect(LastLevelCacheBytes() >= int64_t{1} << 20, "this machine's cache");
}

// LastLevelCacheBytesFrom(setting, folder), and what it wrote to stderr.
std::pair<int64_t, std::string> CacheBytesAndWarning(
    const char* setting, const std::string& folder) {
  FILE* capture = std::tmpfile();
  if (capture == nullptr) return {-1, "no temporary file for stderr"};
  std::fflush(stderr);
  const int saved_stderr = dup(STDERR_FILENO);
  dup2(fileno(capture), STDERR_FILENO);
  const int64_t bytes = LastLevelCacheBytesFrom(setting, folder);
  std::fflush(stderr);
  dup2(saved_stderr, STDERR_FILENO);
  close(saved_stderr);
  std::string warning;
  std::rewind(capture);
  for (int c; (c = std::fgetc(capture)) != EOF;) {
    warning.push_back(static_cast<char>(c));
  }
  std::fclose(capture);
  return {bytes, warning};
}

// TENSORFLOW_OPS_LAST_LEVEL_CACHE's value replaces the sysfs figure when it
// is a size; unset or empty leaves it silently, a bad value with a warning.
BILINEAR_TEST(LastLevelCacheSetting) {
  const std::string with_l3 =
      FakeCacheFolder("setting_l3", {{2, "1024K"}, {3, "16384K"}});
  const int64_t sysfs = int64_t{16} << 20;
  const std::pair<const char*, int64_t> settings[] = {
      {nullptr, sysfs}, {"", sysfs}, {"32M", int64_t{32} << 20},
      {"4096K", int64_t{4} << 20}, {"65536", 65536}, {"1", 1}};
  for (const auto& [setting, expected] : settings) {
    const auto [bytes, warning] = CacheBytesAndWarning(setting, with_l3);
    Expect(bytes == expected && warning.empty(),
           "the setting \"%s\": %lld, \"%s\"",
           setting == nullptr ? "(unset)" : setting,
           static_cast<long long>(bytes), warning.c_str());
  }
  const std::string long_value(1000, '9');
  for (const char* bad : {"0", "0M", "-32M", "32 M", "32MB", "32m", "lots",
                          "2048G", long_value.c_str()}) {
    const auto [bytes, warning] = CacheBytesAndWarning(bad, with_l3);
    Expect(bytes == sysfs, "the setting \"%.40s\" is not ignored", bad);
    Expect(warning.find("TENSORFLOW_OPS_LAST_LEVEL_CACHE=") == 0 &&
               warning.find(": ignored\n") != std::string::npos &&
               warning.size() < 160,
           "the setting \"%.40s\": no short warning, got \"%s\"", bad,
           warning.c_str());
  }
}

BILINEAR_TEST(StoresForOutput) {
  const int64_t threshold = LastLevelCacheBytes() / 4 * 3;
  const OutputStores large = kHaveStreamingStores ? OutputStores::kStreaming
                                                  : OutputStores::kCached;
  Expect(StoresForOutput(threshold, threshold / 4) == large, "at the threshold");
  // Outputs from a quarter of the cache that do not stream: whole lines.
  Expect(StoresForOutput(threshold - 1, 1) == OutputStores::kWholeLines,
         "below the threshold, past a quarter of the cache");
  Expect(StoresForOutput(threshold, threshold + 1) == OutputStores::kWholeLines,
         "input larger than the output, both within twice the cache");
  const int64_t cache = LastLevelCacheBytes();
  Expect(StoresForOutput(cache / 4, 2 * cache - cache / 4) == large,
         "input and output together at twice the cache");
  Expect(StoresForOutput(cache / 4, 2 * cache - cache / 4 - 1) ==
             OutputStores::kWholeLines,
         "input and output together below twice the cache");
  Expect(StoresForOutput(cache / 4 - 1, cache / 4) == OutputStores::kCached,
         "below a quarter of the cache");
  Expect(StoresForOutput(0, 0) == OutputStores::kCached, "an empty output");
}

// BlendRows with whole lines gives the plain loop's bits for every count
// (whole lines, a tail, both or neither) and writes nothing past `count`.
template <typename A>
void CheckWholeLineBlends(std::mt19937* rng) {
  constexpr int64_t kMaxCount = 100;
  constexpr int64_t kGuard = 32;
  constexpr A kCanary = A(-7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<A> top(kMaxCount), bottom(kMaxCount);
  for (int64_t i = 0; i < kMaxCount; ++i) {
    top[i] = static_cast<A>(uniform(*rng));
    bottom[i] = static_cast<A>(uniform(*rng) * 1000);
  }
  for (const A y_lerp : {A(0), A(0.3), A(0.999), A(1)}) {
    for (int64_t count = 0; count <= kMaxCount; ++count) {
      std::vector<A> plain(count + 2 * kGuard, kCanary);
      std::vector<A> lines(count + 2 * kGuard, kCanary);
      BlendRows(top.data(), bottom.data(), y_lerp, count, plain.data() + kGuard,
                /*whole_lines=*/false);
      BlendRows(top.data(), bottom.data(), y_lerp, count, lines.data() + kGuard,
                /*whole_lines=*/true);
      Expect(std::memcmp(plain.data(), lines.data(), plain.size() * sizeof(A)) == 0,
             "%zu-byte values, count %lld, lerp %g: whole lines differ from the "
             "plain loop, or wrote outside the row",
             sizeof(A), static_cast<long long>(count), double{y_lerp});
      bool canaries_intact = true;
      for (int64_t i = 0; i < kGuard; ++i) {
        canaries_intact &= plain[i] == kCanary && plain[kGuard + count + i] == kCanary;
      }
      Expect(canaries_intact, "count %lld: the plain loop wrote outside the row",
             static_cast<long long>(count));
    }
  }
}

BILINEAR_TEST(WholeLineBlends) {
  std::mt19937 rng(11);
  CheckWholeLineBlends<float>(&rng);
  CheckWholeLineBlends<double>(&rng);
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
