// Transparent huge pages for large fresh outputs.
//
// TensorFlow-free. An output of tens of megabytes is usually memory the C
// library has just mapped: each 4 KiB page faults on its first store, and the
// kernel's fault path (clearing, cgroup charge, LRU) cost more than the
// resize itself (docs/cpu_performance.md#fresh-outputs-and-page-faults). Where
// Linux's transparent huge pages are "madvise" (the usual default) or
// "always", advising the output makes those faults one per 2 MiB. The advice
// never changes the memory's contents, only how it is backed.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_HUGE_PAGES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_HUGE_PAGES_H_

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

// The size of an x86-64 transparent huge page.
constexpr int64_t kHugePageBytes = int64_t{2} << 20;

// Outputs from this size are advised: glibc usually maps a block this large
// afresh (32 MiB is its largest mmap threshold) and unmaps it when freed, so
// the advice goes with the tensor. Smaller blocks mostly come back from its
// heap already faulted in, where advice would gain nothing.
constexpr int64_t kMinHugePageAdviceBytes = int64_t{32} << 20;

// The whole huge pages inside [data, data + bytes): [*begin, *end), empty
// (begin == end) where there is none.
inline void WholeHugePages(const void* data, int64_t bytes, uintptr_t* begin,
                           uintptr_t* end) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(data);
  const uintptr_t mask = static_cast<uintptr_t>(kHugePageBytes) - 1;
  *begin = (start + mask) & ~mask;
  *end = (start + static_cast<uintptr_t>(bytes)) & ~mask;
  if (*end < *begin) *end = *begin;
}

// Advises the whole huge pages of an output of `bytes` bytes at `data` that
// the kernel is about to write in full, if it is at least
// kMinHugePageAdviceBytes and its first whole huge page is not resident yet.
// Returns whether advice was given and taken; where it was not (smaller or
// reused outputs, other systems, huge pages compiled out of the kernel),
// nothing changes.
inline bool AdviseHugePages(void* data, int64_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < kMinHugePageAdviceBytes) return false;
  uintptr_t begin = 0, end = 0;
  WholeHugePages(data, bytes, &begin, &end);
  if (begin == end) return false;
  // Memory already faulted in (a block the allocator reuses) gains nothing,
  // and advice there would stay on the allocator's memory after the tensor.
  unsigned char resident = 0;
  if (mincore(reinterpret_cast<void*>(begin), 1, &resident) == 0 &&
      (resident & 1) != 0) {
    return false;
  }
  return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
#else
  (void)data;
  (void)bytes;
  return false;
#endif
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_HUGE_PAGES_H_
