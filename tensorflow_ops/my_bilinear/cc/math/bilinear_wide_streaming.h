// Float output rows streamed to memory a whole vector at a time.
//
// TensorFlow-free. ResizeRowGroup with kStream gathers each pixel's values on
// the stack and streams them 16 bytes at a time, so that it compiles for any
// x86-64 CPU. For pixels of many channels those extra stores and loads cost
// more than the arithmetic. Here the same expressions run on 8 floats (AVX2)
// or 16 (AVX-512) at a time, from functions compiled for those instruction
// sets, and each vector is streamed as soon as it is computed
// (docs/cpu_performance.md#widestreaminglanes). Same expressions, so the same bits (NaNs aside, as on every path; see
// bilinear_cpu_features.h): target("avx512f") enables FMA, and the build
// macros' -ffp-contract=off keeps GCC from fusing the products.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_WIDE_STREAMING_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_WIDE_STREAMING_H_

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

#if BILINEAR_HAS_AVX2_PATH
#include <immintrin.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

#if BILINEAR_HAS_AVX2_PATH
// Floats in one vector of each wide path.
typedef float EightFloats __attribute__((vector_size(32)));
typedef float SixteenFloats __attribute__((vector_size(64)));

// Streams `values` to `out`, aligned to the vector's size. Compiled for the
// vector's instruction set; inlined where the caller is compiled for it too.
// The vector comes by reference: passed by value, a caller compiled without
// inlining (-O0) would put it on the stack where these read a register.
__attribute__((target("avx2"))) inline void StreamFloats(const EightFloats& values,
                                                         float* out) {
  _mm256_stream_ps(out, values);
  NoteStreamingStore(out, 32);
}
__attribute__((target("avx512f"))) inline void StreamFloats(
    const SixteenFloats& values, float* out) {
  _mm512_stream_ps(out, values);
  NoteStreamingStore(out, 64);
}

// ResizeRowGroup<kChannels, kRows, /*kStream=*/true> for float images and
// output, on vectors of type Floats, whose lane count divides kChannels.
// Inlined (flatten) into the wrappers below, which compile it for their
// vector's instruction set.
template <typename Floats, int kChannels, int kRows>
void StreamRowGroupOf(const float* __restrict__ top,
                      const float* __restrict__ bottom, const float (&y_lerps)[2],
                      const AxisWeight<float>* __restrict__ columns, int64_t width,
                      float* __restrict__ first_out, float* __restrict__ second_out) {
  constexpr int kLanes = sizeof(Floats) / sizeof(float);
  static_assert(kChannels % kLanes == 0, "whole vectors per pixel");
  // `value - Floats{}` has `value` in every lane: x - 0 is x for every float,
  // -0 included, so the compiler drops the subtraction and broadcasts.
  const Floats first_y = y_lerps[0] - Floats{};
  const Floats second_y = y_lerps[1] - Floats{};
  for (int64_t x = 0; x < width; ++x) {
    const int64_t left = columns[x].lower * kChannels;
    const int64_t right = columns[x].upper * kChannels;
    const Floats x_lerp = columns[x].lerp - Floats{};
    for (int c = 0; c < kChannels; c += kLanes) {
      Floats top_left, top_right, bottom_left, bottom_right;
      __builtin_memcpy(&top_left, top + left + c, sizeof(Floats));
      __builtin_memcpy(&top_right, top + right + c, sizeof(Floats));
      __builtin_memcpy(&bottom_left, bottom + left + c, sizeof(Floats));
      __builtin_memcpy(&bottom_right, bottom + right + c, sizeof(Floats));
      // TensorFlow's order of operations: horizontal first, then vertical.
      const Floats top_value = top_left + (top_right - top_left) * x_lerp;
      const Floats bottom_value =
          bottom_left + (bottom_right - bottom_left) * x_lerp;
      StreamFloats(top_value + (bottom_value - top_value) * first_y,
                   first_out + x * kChannels + c);
      if constexpr (kRows == 2) {
        StreamFloats(top_value + (bottom_value - top_value) * second_y,
                     second_out + x * kChannels + c);
      }
    }
  }
}

template <int kChannels, int kRows>
__attribute__((target("avx2"), flatten)) void StreamRowGroupAvx2(
    const float* top, const float* bottom, const float (&y_lerps)[2],
    const AxisWeight<float>* columns, int64_t width, float* first_out,
    float* second_out) {
  StreamRowGroupOf<EightFloats, kChannels, kRows>(top, bottom, y_lerps, columns,
                                                  width, first_out, second_out);
}

template <int kChannels, int kRows>
__attribute__((target("avx512f"), flatten)) void StreamRowGroupAvx512(
    const float* top, const float* bottom, const float (&y_lerps)[2],
    const AxisWeight<float>* columns, int64_t width, float* first_out,
    float* second_out) {
  StreamRowGroupOf<SixteenFloats, kChannels, kRows>(
      top, bottom, y_lerps, columns, width, first_out, second_out);
}
#endif  // BILINEAR_HAS_AVX2_PATH

// The widest vectors, in floats, that rows of `channels`-channel float pixels
// at `output` can be streamed with on this CPU: 16 (AVX-512) or 8 (AVX2)
// where they divide the channel count and `output` is aligned to them, else
// 0 (ResizeRowGroup's 16-byte streaming stores, or the cache). Every row
// starts a whole number of vectors past `output`.
inline int WideStreamingLanes(int64_t channels, const float* output) {
  const CpuPath path = WidestCpuPath();
  const uintptr_t address = reinterpret_cast<uintptr_t>(output);
  if (!BILINEAR_HAS_AVX2_PATH || channels <= 0) return 0;
  if (channels % 16 == 0 && path == CpuPath::kAvx512 && address % 64 == 0) {
    return 16;
  }
  if (channels % 8 == 0 && path != CpuPath::kBaseline && address % 32 == 0) {
    return 8;
  }
  return 0;
}

// Writes kRows (1 or 2) output rows as ResizeRowGroup<kChannels, kRows> does,
// streamed `lanes` floats at a time (a nonzero WideStreamingLanes).
#if BILINEAR_HAS_AVX2_PATH
template <int kChannels, int kRows>
void StreamRowGroupWide(int lanes, const float* top, const float* bottom,
                        const float (&y_lerps)[2],
                        const AxisWeight<float>* columns, int64_t width,
                        float* first_out, float* second_out) {
  if constexpr (kChannels > 0 && kChannels % 16 == 0) {
    if (lanes == 16) {
      return StreamRowGroupAvx512<kChannels, kRows>(top, bottom, y_lerps, columns,
                                                    width, first_out, second_out);
    }
  }
  if constexpr (kChannels > 0 && kChannels % 8 == 0) {
    StreamRowGroupAvx2<kChannels, kRows>(top, bottom, y_lerps, columns, width,
                                         first_out, second_out);
  }
}
#else
// Never called: WideStreamingLanes is 0 without the wide paths.
template <int kChannels, int kRows>
void StreamRowGroupWide(int, const float*, const float*, const float (&)[2],
                        const AxisWeight<float>*, int64_t, float*, float*) {}
#endif

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_WIDE_STREAMING_H_
