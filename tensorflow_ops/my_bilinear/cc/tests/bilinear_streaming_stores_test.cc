// Standalone test of when the kernels choose streaming stores: the sysfs
// cache-size parser, the last-level cache found in a sysfs-like folder (and
// never an L2), and StoresForOutput's rule.
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
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

BILINEAR_TEST(StoresForOutput) {
  const int64_t threshold = LastLevelCacheBytes() / 4 * 3;
  const OutputStores large = kHaveStreamingStores ? OutputStores::kStreaming
                                                  : OutputStores::kCached;
  Expect(StoresForOutput(threshold, threshold / 4) == large, "at the threshold");
  Expect(StoresForOutput(threshold - 1, 1) == OutputStores::kCached,
         "below the threshold");
  Expect(StoresForOutput(threshold, threshold + 1) == OutputStores::kCached,
         "input larger than the output, both within twice the cache");
  const int64_t cache = LastLevelCacheBytes();
  Expect(StoresForOutput(cache / 4, 2 * cache - cache / 4) == large,
         "input and output together at twice the cache");
  Expect(StoresForOutput(cache / 4, 2 * cache - cache / 4 - 1) ==
             OutputStores::kCached,
         "input and output together below twice the cache");
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
