// Which instruction set the CPU math runs with, decided once per process.
//
// TensorFlow-free. The library is built for baseline x86-64, so it loads on
// every machine that runs TensorFlow; where the CPU has AVX2, FMA and F16C the
// kernels run the math from functions compiled for them (RunOnPath and
// BestCpuPath, below), and the 16-bit conversions use F16C; where it also has
// AVX-512, the forward kernels of 16-bit types and the bfloat16 gradient run
// from functions compiled for it.
// Results are the same bits on every path, but for the sign and payload of
// NaNs.
// TENSORFLOW_OPS_CPU_PATH=baseline or =avx2 (any case) narrows the path (the
// tests use it to check that claim). Only GCC builds have the wider paths:
// clang 14's flatten does not inline the math into the wrappers, so they would
// run baseline code under a wider name.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_CPU_FEATURES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_CPU_FEATURES_H_

#include <cstdio>
#include <cstdlib>
#include <strings.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

// The instruction sets the math may be compiled for, narrowest first.
enum class CpuPath { kBaseline, kAvx2, kAvx512 };

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define BILINEAR_HAS_AVX2_PATH 1

// The widest path this CPU supports, narrowed by TENSORFLOW_OPS_CPU_PATH
// (baseline or avx2, in any case; other values are ignored, with a warning).
// Decided once per process.
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
    if (forced == nullptr || *forced == '\0') return path;
    if (strcasecmp(forced, "baseline") == 0) return CpuPath::kBaseline;
    if (strcasecmp(forced, "avx2") == 0) {
      return path == CpuPath::kAvx512 ? CpuPath::kAvx2 : path;
    }
    std::fprintf(stderr,
                 "TENSORFLOW_OPS_CPU_PATH=%s is neither baseline nor avx2: "
                 "ignored\n",
                 forced);
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
// Under AddressSanitizer (the sanitizer tests, docs/testing.md) the wrappers
// do not flatten: the same C++ is checked, compiled once per type instead of
// once per path, in functions that the instrumented build compiles in
// minutes rather than the better part of an hour.
#if defined(__SANITIZE_ADDRESS__)
#define BILINEAR_INLINE_EVERYTHING
#else
#define BILINEAR_INLINE_EVERYTHING flatten
#endif

template <typename Fn>
__attribute__((target("avx2,fma,f16c"), BILINEAR_INLINE_EVERYTHING)) void RunWithAvx2(
    const Fn& fn) {
  fn();
}

// 512-bit vectors: GCC vectorizes with 256 bits unless told to prefer them.
template <typename Fn>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,"
                      "prefer-vector-width=512"),
               BILINEAR_INLINE_EVERYTHING)) void RunWithAvx512(const Fn& fn) {
  fn();
}

template <typename Fn>
__attribute__((BILINEAR_INLINE_EVERYTHING)) void RunBaseline(const Fn& fn) {
  fn();
}

// Runs `fn` (which calls the math) inlined (flatten) into a function compiled
// for kPath.
template <CpuPath kPath, typename Fn>
void RunOnPath(const Fn& fn) {
  if constexpr (kPath == CpuPath::kAvx512) {
    RunWithAvx512(fn);
  } else if constexpr (kPath == CpuPath::kAvx2) {
    RunWithAvx2(fn);
  } else {
    RunBaseline(fn);
  }
}
#else
template <CpuPath kPath, typename Fn>
void RunOnPath(const Fn& fn) {
  fn();
}
#endif

// The widest path this CPU supports for a kernel: AVX-512 only with
// kAllowAvx512 and `avx512_pays`. The kernels ask for it where it measured
// faster (the forward kernels of 16-bit types, whose conversions dominate, and
// the bfloat16 gradient), not for float32, whose kernels are bound by memory
// and measured slower with it; `avx512_pays` chooses it per call (see
// ForwardGainsFromAvx512 in bilinear_resize.h).
template <bool kAllowAvx512 = false>
CpuPath BestCpuPath(bool avx512_pays = true) {
  const CpuPath path = WidestCpuPath();
  if (path == CpuPath::kAvx512 && !(kAllowAvx512 && avx512_pays)) {
    return CpuPath::kAvx2;
  }
  return path;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_CPU_FEATURES_H_
