// The 16-bit conversions of bilinear_storage_types.h against independent ones.
//
// Float16 is checked against GCC's _Float16 conversions (libgcc's software
// rounding in this baseline build) for every half, and for floats at and
// around every rounding boundary of every half plus an even spread of all the
// others; where the CPU has F16C, the array conversions (which use it) are
// checked against Float16 too. Bfloat16 is checked against a plain branchy
// rounding written here. NaN must stay NaN of the same sign and become quiet.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// `what` of `input` gave the bits `got`, which must be `want`. Compares before
// calling Fail, as these checks run millions of times.
void ExpectBits(const char* what, uint32_t input, uint32_t got, uint32_t want) {
  if (got != want) {
    Fail("%s of 0x%08x: got 0x%08x, want 0x%08x", what, input, got, want);
  }
}

uint32_t BitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float FloatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint16_t ReferenceHalfOf(float value) {
  const _Float16 half = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &half, sizeof(bits));
  return bits;
}

float ReferenceFloatOfHalf(uint16_t bits) {
  _Float16 half;
  std::memcpy(&half, &bits, sizeof(bits));
  return static_cast<float>(half);
}

void CheckFloatToHalf(uint32_t float_bits) {
  const float value = FloatOf(float_bits);
  ExpectBits("Float16(float)", float_bits, Float16(value).bits, ReferenceHalfOf(value));
#if BILINEAR_HAS_AVX2_PATH
  if (UseAvx2()) {
    ExpectBits("FloatToHalfF16c", float_bits, FloatToHalfF16c(value).bits,
               Float16(value).bits);
  }
#endif
}

BILINEAR_TEST(EveryHalfToFloat) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    Float16 half;
    half.bits = static_cast<uint16_t>(bits);
    const uint32_t got = BitsOf(static_cast<float>(half));
    const uint32_t want = BitsOf(ReferenceFloatOfHalf(static_cast<uint16_t>(bits)));
    ExpectBits("float(Float16)", bits, got, want);
  }
}

BILINEAR_TEST(FloatToHalfBoundaries) {
  // Every float whose low 13 bits (the ones a half drops) sit at or next to a
  // rounding boundary: 0, 1, just below, at and just above the midpoint, and
  // the last. This covers every half's rounding, overflow and subnormal bins.
  const uint32_t low_patterns[] = {0x0000, 0x0001, 0x0fff, 0x1000,
                                   0x1001, 0x1fff, 0x0800, 0x17ff};
  for (uint32_t high = 0; high < (1u << 19); ++high) {
    for (uint32_t low : low_patterns) CheckFloatToHalf((high << 13) | low);
  }
  // An even spread of all the others.
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 4099) {
    CheckFloatToHalf(static_cast<uint32_t>(bits));
  }
}

BILINEAR_TEST(F16cArrayConversions) {
  if (!UseAvx2()) {
    std::printf("no F16C on this CPU: the array conversions use Float16 itself\n");
    return;
  }
  std::vector<Float16> halves(65536);
  for (uint32_t bits = 0; bits < 65536; ++bits) halves[bits].bits = static_cast<uint16_t>(bits);
  std::vector<float> floats(65536);
  ConvertValues(halves.data(), 65536, floats.data());
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const uint32_t got = BitsOf(floats[bits]);
    const uint32_t want = BitsOf(static_cast<float>(halves[bits]));
    ExpectBits("ConvertValues(half to float)", bits, got, want);
  }
  std::vector<float> inputs;
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 65521) {
    inputs.push_back(FloatOf(static_cast<uint32_t>(bits)));
  }
  std::vector<Float16> rounded(inputs.size());
  ConvertValues(inputs.data(), static_cast<int64_t>(inputs.size()), rounded.data());
  for (size_t i = 0; i < inputs.size(); ++i) {
    ExpectBits("ConvertValues(float to half)", BitsOf(inputs[i]), rounded[i].bits,
               Float16(inputs[i]).bits);
  }
#if BILINEAR_HAS_AVX2_PATH
  // The one-value conversions of the loops' tails (and, in
  // CheckFloatToHalf, at every rounding boundary).
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const uint32_t got = BitsOf(HalfToFloatF16c(halves[bits]));
    const uint32_t want = BitsOf(static_cast<float>(halves[bits]));
    ExpectBits("HalfToFloatF16c", bits, got, want);
  }
  for (const float input : inputs) {
    ExpectBits("FloatToHalfF16c", BitsOf(input), FloatToHalfF16c(input).bits,
               Float16(input).bits);
  }
#endif
}

uint16_t ReferenceBfloat16Of(float value) {
  const uint32_t bits = BitsOf(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (bits >> 31) ? 0xffc0 : 0x7fc0;
  const uint32_t lower = bits & 0xffffu;
  uint32_t upper = bits >> 16;
  if (lower > 0x8000u || (lower == 0x8000u && (upper & 1u))) ++upper;
  return static_cast<uint16_t>(upper);
}

BILINEAR_TEST(Bfloat16) {
  for (uint64_t bits = 0; bits < (1ull << 32); bits += 997) {
    for (uint32_t low : {0x0000u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const uint32_t input = (static_cast<uint32_t>(bits) & 0xffff0000u) | low;
      const float value = FloatOf(input);
      ExpectBits("Bfloat16(float)", input, Bfloat16(value).bits,
                 ReferenceBfloat16Of(value));
    }
  }
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    Bfloat16 value;
    value.bits = static_cast<uint16_t>(bits);
    ExpectBits("float(Bfloat16)", bits, BitsOf(static_cast<float>(value)), bits << 16);
  }
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
