// Storage types the CPU math reads and writes for 16-bit floats.
//
// TensorFlow-free. The kernels hand their half and bfloat16 buffers to the
// math as these layout-identical types, whose conversions compile to single
// instructions where the CPU has them (F16C for half, integer ops for
// bfloat16), in the dispatched code paths too; Eigen's types decide at
// compile time and fall back to software conversions in a baseline build.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_STORAGE_TYPES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_STORAGE_TYPES_H_

#include <cstdint>
#include <cstring>

namespace tensorflow_ops {
namespace bilinear {

// bfloat16: the upper half of a float. Converting from float rounds to
// nearest even and turns NaN into the quiet NaN of its sign, as TensorFlow does.
struct Bfloat16 {
  uint16_t bits;

  Bfloat16() = default;
  explicit Bfloat16(float value) {
    uint32_t u;
    std::memcpy(&u, &value, sizeof(u));
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN: TensorFlow's quiet NaN
      bits = (u >> 31) ? 0xffc0u : 0x7fc0u;
      return;
    }
    bits = static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  explicit operator float() const {
    const uint32_t u = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &u, sizeof(value));
    return value;
  }
  explicit operator double() const { return static_cast<float>(*this); }
};
static_assert(sizeof(Bfloat16) == 2, "bfloat16 is two bytes");

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_STORAGE_TYPES_H_
