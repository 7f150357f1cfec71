// Which instruction set the CPU math runs with, decided once per process.
//
// TensorFlow-free. The library is built for baseline x86-64, so it loads on
// every machine that runs TensorFlow; where the CPU has AVX2, FMA and F16C the
// kernels run the math from functions compiled for them (RunOnBestCpuPath,
// below), and the 16-bit conversions use F16C. Results are
// the same bits on both paths. TENSORFLOW_OPS_CPU_PATH=baseline forces the
// baseline path (the tests use it to check that claim).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_FEATURES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_FEATURES_H_

#include <cstdlib>
#include <cstring>

namespace tensorflow_ops {
namespace bilinear {

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#define BILINEAR_HAS_AVX2_PATH 1
// Whether the AVX2/FMA/F16C path is taken.
inline bool UseAvx2() {
  static const bool use_avx2 = [] {
    const char* forced = std::getenv("TENSORFLOW_OPS_CPU_PATH");
    if (forced != nullptr && std::strcmp(forced, "baseline") == 0) return false;
    __builtin_cpu_init();
    // F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports
    // does not know the name.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c;
  }();
  return use_avx2;
}
#else
#define BILINEAR_HAS_AVX2_PATH 0
inline bool UseAvx2() { return false; }
#endif

#if BILINEAR_HAS_AVX2_PATH
template <typename Fn>
__attribute__((target("avx2,fma,f16c"), flatten)) void RunWithAvx2(const Fn& fn) {
  fn();
}

template <typename Fn>
__attribute__((flatten)) void RunBaseline(const Fn& fn) {
  fn();
}

// Runs `fn` (which calls the math) on the widest path this CPU supports:
// inlined (flatten) into a function compiled for AVX2, FMA and F16C, or into
// a baseline one.
template <typename Fn>
void RunOnBestCpuPath(const Fn& fn) {
  if (UseAvx2()) {
    RunWithAvx2(fn);
  } else {
    RunBaseline(fn);
  }
}
#else
template <typename Fn>
void RunOnBestCpuPath(const Fn& fn) {
  fn();
}
#endif

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_FEATURES_H_
