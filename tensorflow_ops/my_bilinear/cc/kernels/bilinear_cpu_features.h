// Which instruction set the CPU math runs with, decided once per process.
//
// TensorFlow-free. The library is built for baseline x86-64, so it loads on
// every machine that runs TensorFlow; where the CPU has AVX2, FMA and F16C the
// kernels run the math from functions compiled for them (RunOnBestCpuPath,
// below), and the 16-bit conversions use F16C; where it also has AVX-512, the
// kernels of 16-bit types run from functions compiled for it. Results are the
// same bits on every path. TENSORFLOW_OPS_CPU_PATH=baseline or =avx2 narrows
// the path (the tests use it to check that claim).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_FEATURES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_FEATURES_H_

#include <cstdlib>
#include <cstring>

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

// The instruction sets the math may be compiled for, narrowest first.
enum class CpuPath { kBaseline, kAvx2, kAvx512 };

#if defined(__GNUC__) && defined(__x86_64__)
#define BILINEAR_HAS_AVX2_PATH 1

// The widest path this CPU supports, narrowed by TENSORFLOW_OPS_CPU_PATH
// (baseline or avx2) where it is set. Decided once per process.
inline CpuPath WidestCpuPath() {
  static const CpuPath widest = [] {
    __builtin_cpu_init();
    // F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports
    // does not know the name.
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
    const bool avx2 = __builtin_cpu_supports("avx2") &&
                      __builtin_cpu_supports("fma") && f16c;
    // __builtin_cpu_supports also checks that the OS saves the registers.
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") &&
                        __builtin_cpu_supports("avx512dq");
    CpuPath path = avx512 ? CpuPath::kAvx512
                          : (avx2 ? CpuPath::kAvx2 : CpuPath::kBaseline);
    const char* forced = std::getenv("TENSORFLOW_OPS_CPU_PATH");
    if (forced != nullptr && std::strcmp(forced, "baseline") == 0) {
      path = CpuPath::kBaseline;
    } else if (forced != nullptr && std::strcmp(forced, "avx2") == 0 &&
               path == CpuPath::kAvx512) {
      path = CpuPath::kAvx2;
    }
    return path;
  }();
  return widest;
}
#else
#define BILINEAR_HAS_AVX2_PATH 0
inline CpuPath WidestCpuPath() { return CpuPath::kBaseline; }
#endif

// Whether AVX2, FMA and F16C may be used (the 16-bit conversions check it).
inline bool UseAvx2() { return WidestCpuPath() != CpuPath::kBaseline; }

#if BILINEAR_HAS_AVX2_PATH
template <typename Fn>
__attribute__((target("avx2,fma,f16c"), flatten)) void RunWithAvx2(const Fn& fn) {
  fn();
}

// 512-bit vectors: GCC needs to be told to prefer them (clang does by default,
// and does not know the option).
#if defined(__clang__)
#define BILINEAR_AVX512_TARGET "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c"
#else
#define BILINEAR_AVX512_TARGET \
  "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,prefer-vector-width=512"
#endif
template <typename Fn>
__attribute__((target(BILINEAR_AVX512_TARGET), flatten)) void RunWithAvx512(
    const Fn& fn) {
  fn();
}
#undef BILINEAR_AVX512_TARGET

template <typename Fn>
__attribute__((flatten)) void RunBaseline(const Fn& fn) {
  fn();
}

// Runs `fn` (which calls the math) on the widest path this CPU supports:
// inlined (flatten) into a function compiled for AVX2, FMA and F16C, or into
// a baseline one. With kAllowAvx512, AVX-512 (BW, VL, DQ) with 512-bit
// vectors where the CPU has it: the kernels ask for it where it measured
// faster (16-bit types, whose conversions dominate), not for float32, whose
// kernels are bound by memory and measured slower with it.
template <bool kAllowAvx512 = false, typename Fn>
void RunOnBestCpuPath(const Fn& fn) {
  const CpuPath path = WidestCpuPath();
  if (kAllowAvx512 && path == CpuPath::kAvx512) {
    RunWithAvx512(fn);
  } else if (path != CpuPath::kBaseline) {
    RunWithAvx2(fn);
  } else {
    RunBaseline(fn);
  }
}
#else
template <bool kAllowAvx512 = false, typename Fn>
void RunOnBestCpuPath(const Fn& fn) {
  fn();
}
#endif

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_FEATURES_H_
