// Storage types the CPU math reads and writes for 16-bit floats.
//
// TensorFlow-free. The kernels hand their half and bfloat16 buffers to the
// math as these layout-identical types. Their conversions are written with
// integer operations and selects, no branches, so that GCC vectorizes every
// loop that converts, on the baseline path and the AVX2 path alike (GCC 12
// converts _Float16 one value at a time, and Eigen's types decide at compile
// time, falling back to software in a baseline build). They round to nearest
// even exactly as the hardware conversions do (F16C's vcvtps2ph and vcvtph2ps);
// bilinear_storage_types_test checks every half and every float against them.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_STORAGE_TYPES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_STORAGE_TYPES_H_

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"

#if BILINEAR_HAS_AVX2_PATH
#include <immintrin.h>
#endif

namespace tensorflow_ops {
namespace bilinear {

// `when_set` where `mask` is all ones, `when_clear` where it is zero: a select
// the vectorizer turns into a blend, where a ?: may stay a branch.
inline uint32_t Select(uint32_t mask, uint32_t when_set, uint32_t when_clear) {
  return (when_set & mask) | (when_clear & ~mask);
}
inline uint32_t MaskOf(bool condition) {
  return 0u - static_cast<uint32_t>(condition);
}
// Magnitudes (sign bit clear) compared as signed integers: SSE and AVX2 have
// signed vector compares only.
inline int32_t Signed(uint32_t magnitude) { return static_cast<int32_t>(magnitude); }

// IEEE half precision (TensorFlow's half, Eigen::half).
struct Float16 {
  uint16_t bits;

  Float16() = default;
  explicit Float16(float value) {
    const uint32_t u = __builtin_bit_cast(uint32_t, value);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t magnitude = u & 0x7fffffffu;
    // Normal halves: rebias the exponent from 127 to 15 and round the 13
    // dropped mantissa bits to nearest even (an odd result mantissa adds one).
    const uint32_t normal = (magnitude - ((127u - 15u) << 23) + 0xfffu +
                             ((magnitude >> 13) & 1u)) >> 13;
    // Subnormal halves and zero: adding 0.5 lines the value up with the half's
    // last mantissa bit in the float's, and the float addition rounds it.
    const float aligned = __builtin_bit_cast(float, magnitude) + 0.5f;
    const uint32_t subnormal = __builtin_bit_cast(uint32_t, aligned) - 0x3f000000u;
    // NaN keeps its sign and top payload bits and becomes quiet.
    const uint32_t nan = 0x7e00u | ((magnitude >> 13) & 0x3ffu);
    uint32_t half = Select(MaskOf(Signed(magnitude) < 0x38800000), subnormal, normal);
    half = Select(MaskOf(Signed(magnitude) >= 0x477ff000), 0x7c00u, half);  // overflow
    half = Select(MaskOf(Signed(magnitude) > 0x7f800000), nan, half);
    bits = static_cast<uint16_t>(half | sign);
  }
  explicit operator float() const {
    const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
    const uint32_t magnitude = bits & 0x7fffu;
    // Normal halves: the exponent rebiased from 15 to 127.
    uint32_t u = (magnitude << 13) + ((127u - 15u) << 23);
    // Inf and NaN: the largest exponent.
    u = Select(MaskOf(Signed(magnitude) >= 0x7c00), u + ((128u - 16u) << 23), u);
    // Subnormal halves and zero: mantissa * 2^-24, exact in float.
    const float subnormal =
        static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-24f;
    u = Select(MaskOf(Signed(magnitude) < 0x0400), __builtin_bit_cast(uint32_t, subnormal), u);
    u = Select(MaskOf(Signed(magnitude) > 0x7c00), u | 0x00400000u, u);  // quiet NaN
    return __builtin_bit_cast(float, u | sign);
  }
  explicit operator double() const { return static_cast<float>(*this); }
};
static_assert(sizeof(Float16) == 2, "half is two bytes");

// bfloat16: the upper half of a float. Converting from float rounds to
// nearest even and turns NaN into the quiet NaN of its sign, as TensorFlow does.
struct Bfloat16 {
  uint16_t bits;

  Bfloat16() = default;
  explicit Bfloat16(float value) {
    const uint32_t u = __builtin_bit_cast(uint32_t, value);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t nan = (u >> 31) != 0 ? 0xffc0u : 0x7fc0u;
    bits = static_cast<uint16_t>(
        Select(MaskOf(Signed(u & 0x7fffffffu) > 0x7f800000), nan, rounded));
  }
  explicit operator float() const {
    return __builtin_bit_cast(float, static_cast<uint32_t>(bits) << 16);
  }
  explicit operator double() const { return static_cast<float>(*this); }
};
static_assert(sizeof(Bfloat16) == 2, "bfloat16 is two bytes");

// Converts `count` values, as static_cast<To> of each does.
template <typename From, typename To>
void ConvertValues(const From* __restrict__ from, int64_t count,
                   To* __restrict__ to) {
  for (int64_t i = 0; i < count; ++i) to[i] = static_cast<To>(from[i]);
}

// out[i] = To(top[i] + (bottom[i] - top[i]) * lerp) for `count` values: the
// row-reusing path's vertical blend into a 16-bit type, converted as it is
// stored, in one pass rather than through a float buffer
// (docs/cpu_performance.md#blendandconvert).
template <typename To>
void BlendAndConvert(const float* __restrict__ top, const float* __restrict__ bottom,
                     float lerp, int64_t count, To* __restrict__ out) {
  for (int64_t i = 0; i < count; ++i) {
    out[i] = static_cast<To>(top[i] + (bottom[i] - top[i]) * lerp);
  }
}

#if BILINEAR_HAS_AVX2_PATH
// Eight halves from `values`, as floats: F16C converts 8 halves per
// instruction, exactly, as Float16 does.
__attribute__((target("avx,f16c"))) inline __m256 HalvesF16c(const Float16* values) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(values)));
}

// One value each way by F16C: the same results as the 8-wide conversions,
// for loop tails, where Float16's own conversion takes several times as long
// (one-column half outputs spent 60% of their time in it).
__attribute__((target("avx,f16c"))) inline float HalfToFloatF16c(Float16 half) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(half.bits)));
}
__attribute__((target("avx,f16c"))) inline Float16 FloatToHalfF16c(float value) {
  Float16 half;
  half.bits = static_cast<uint16_t>(
      _mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(value), _MM_FROUND_TO_NEAREST_INT)));
  return half;
}

__attribute__((target("avx,f16c"))) inline void HalvesToFloatsF16c(
    const Float16* from, int64_t count, float* to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) _mm256_storeu_ps(to + i, HalvesF16c(from + i));
  for (; i < count; ++i) to[i] = HalfToFloatF16c(from[i]);
}

__attribute__((target("avx,f16c"))) inline void FloatsToHalvesF16c(
    const float* from, int64_t count, Float16* to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(from + i),
                                           _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), halves);
  }
  for (; i < count; ++i) to[i] = FloatToHalfF16c(from[i]);
}

__attribute__((target("avx,f16c"))) inline void BlendToHalvesF16c(
    const float* top, const float* bottom, float lerp, int64_t count,
    Float16* out) {
  const __m256 lerps = _mm256_set1_ps(lerp);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 t = _mm256_loadu_ps(top + i);
    const __m256 b = _mm256_loadu_ps(bottom + i);
    const __m256 value = _mm256_add_ps(t, _mm256_mul_ps(_mm256_sub_ps(b, t), lerps));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < count; ++i) out[i] = FloatToHalfF16c(top[i] + (bottom[i] - top[i]) * lerp);
}

template <>
inline void BlendAndConvert(const float* __restrict__ top,
                            const float* __restrict__ bottom, float lerp,
                            int64_t count, Float16* __restrict__ out) {
  if (UseAvx2()) return BlendToHalvesF16c(top, bottom, lerp, count, out);
  for (int64_t i = 0; i < count; ++i) {
    out[i] = Float16(top[i] + (bottom[i] - top[i]) * lerp);
  }
}

template <>
inline void ConvertValues(const Float16* from, int64_t count, float* to) {
  if (UseAvx2()) return HalvesToFloatsF16c(from, count, to);
  for (int64_t i = 0; i < count; ++i) to[i] = static_cast<float>(from[i]);
}

template <>
inline void ConvertValues(const float* from, int64_t count, Float16* to) {
  if (UseAvx2()) return FloatsToHalvesF16c(from, count, to);
  for (int64_t i = 0; i < count; ++i) to[i] = Float16(from[i]);
}
#endif

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_STORAGE_TYPES_H_
