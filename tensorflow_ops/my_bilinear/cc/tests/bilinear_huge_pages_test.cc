// Standalone test of the huge-page advice of large outputs: which part of a
// buffer is advised, that outputs under the threshold and memory already
// resident are left alone, and that the advised range is marked for huge
// pages in /proc/self/smaps.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_huge_pages.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

BILINEAR_TEST(WholeHugePagesInside) {
  const uintptr_t huge = static_cast<uintptr_t>(kHugePageBytes);
  struct Case {
    uintptr_t start;
    int64_t bytes;
    uintptr_t begin, end;
  };
  const Case cases[] = {
      {huge * 4, 3 * kHugePageBytes, huge * 4, huge * 7},          // aligned
      {huge * 4 + 64, 3 * kHugePageBytes, huge * 5, huge * 7},     // head cut
      {huge * 4 + 64, 3 * kHugePageBytes - 128, huge * 5, huge * 6},
      {huge * 4 + 64, kHugePageBytes, huge * 5, huge * 5},         // none whole
      {huge * 4 + 64, 0, huge * 5, huge * 5},
  };
  for (const Case& c : cases) {
    uintptr_t begin = 0, end = 0;
    WholeHugePages(reinterpret_cast<const void*>(c.start), c.bytes, &begin, &end);
    Expect(begin == c.begin && end == c.end,
           "WholeHugePages(%#lx, %ld) = [%#lx, %#lx), expected [%#lx, %#lx)",
           static_cast<unsigned long>(c.start), static_cast<long>(c.bytes),
           static_cast<unsigned long>(begin), static_cast<unsigned long>(end),
           static_cast<unsigned long>(c.begin), static_cast<unsigned long>(c.end));
  }
}

// The VmFlags of the mapping of /proc/self/smaps that holds `address`.
std::string VmFlagsAt(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long low = 0, high = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> low >> dash >> high && dash == '-') {
      inside = low <= address && address < high;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Whether the running kernel gives madvised memory huge pages ("always" or
// "madvise" in sysfs); "never" (or no THP at all) ignores the advice.
bool KernelHonoursAdvice() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(enabled, text);
  return text.find("[always]") != std::string::npos ||
         text.find("[madvise]") != std::string::npos;
}

BILINEAR_TEST(AdvisesLargeOutputsOnly) {
  const int64_t bytes = kMinHugePageAdviceBytes + 3 * kHugePageBytes;
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) CannotRun("mmap of %ld bytes failed", static_cast<long>(bytes));
  // An output that starts 64 bytes into the mapping, as a tensor's might.
  char* output = static_cast<char*>(mapped) + 64;
  const int64_t output_bytes = bytes - 64;
  uintptr_t begin = 0, end = 0;
  WholeHugePages(output, output_bytes, &begin, &end);

  Expect(!AdviseHugePages(nullptr, output_bytes), "advised a null output");
  Expect(!AdviseHugePages(output, kMinHugePageAdviceBytes - 1),
         "advised an output under kMinHugePageAdviceBytes");
  Expect(VmFlagsAt(begin).find(" hg") == std::string::npos,
         "a small output's refusal still marked its memory: %s",
         VmFlagsAt(begin).c_str());

  const bool advised = AdviseHugePages(output, output_bytes);
  // The advice is taken wherever the kernel has transparent huge pages (even
  // set to "never", madvise succeeds and is ignored), and marks the whole huge
  // pages only: the partial one at the head keeps small pages.
  const std::string inside = VmFlagsAt(begin);
  const std::string head = VmFlagsAt(reinterpret_cast<uintptr_t>(output));
  if (KernelHonoursAdvice()) {
    Expect(advised, "AdviseHugePages refused a %ld-byte output",
           static_cast<long>(output_bytes));
    Expect(inside.find(" hg") != std::string::npos,
           "the advised range is not marked hg: %s", inside.c_str());
    Expect(head.find(" hg") == std::string::npos,
           "the partial huge page at the head was advised: %s", head.c_str());
  }
  // Contents are the program's whatever the backing.
  std::memset(output, 0x5a, output_bytes);
  Expect(output[0] == 0x5a && output[output_bytes - 1] == 0x5a,
         "the advised output does not hold what was written");
  munmap(mapped, bytes);
}

BILINEAR_TEST(LeavesResidentMemoryAlone) {
  // A block the allocator hands out again is already faulted in: no advice.
  const int64_t bytes = kMinHugePageAdviceBytes + 2 * kHugePageBytes;
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) CannotRun("mmap of %ld bytes failed", static_cast<long>(bytes));
  std::memset(mapped, 1, bytes);
  uintptr_t begin = 0, end = 0;
  WholeHugePages(mapped, bytes, &begin, &end);
  Expect(!AdviseHugePages(mapped, bytes), "advised memory already resident");
  Expect(VmFlagsAt(begin).find(" hg") == std::string::npos,
         "resident memory was marked hg: %s", VmFlagsAt(begin).c_str());
  munmap(mapped, bytes);
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
