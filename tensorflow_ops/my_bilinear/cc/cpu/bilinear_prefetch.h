// Cache hints for memory that a kernel reads soon, in an order the hardware
// prefetcher does not follow. TensorFlow-free; a hint changes no result.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_PREFETCH_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_PREFETCH_H_

#include <cstdint>

namespace tensorflow_ops {
namespace bilinear {

// Asks for the cache line holding `address`: a hint, which changes no result.
inline void PrefetchLine(const char* address) {
#if defined(__GNUC__) && \
    (defined(__x86_64__) || (defined(__i386__) && defined(__SSE__)))
  // As an instruction (SSE's, which every x86-64 has): GCC 12 was seen to
  // delete loops of __builtin_prefetch once inlined into the gradient's
  // templates, as if they did nothing.
  asm volatile("prefetcht0 %0" : : "m"(*address));
#elif defined(__GNUC__)
  __builtin_prefetch(address, 0, 3);
#else
  (void)address;
#endif
}

// Asks for `rows` runs of `bytes` bytes, `stride` bytes apart from `first`.
inline void PrefetchRuns(const char* first, int64_t rows, int64_t stride,
                         int64_t bytes) {
  for (int64_t y = 0; y < rows; ++y) {
    for (int64_t i = 0; i < bytes; i += 64) PrefetchLine(first + y * stride + i);
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_PREFETCH_H_
