// The channel counts whose loops the forward pass unrolls, and the switch
// that turns a count read at run time into one fixed at compile time.
//
// TensorFlow-free. A header of its own because the kernels (their row split)
// ask it too: they then do not recompile when the row loops
// (bilinear_row_blends.h) change.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_UNROLLED_CHANNELS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_UNROLLED_CHANNELS_H_

#include <cstdint>
#include <type_traits>

namespace tensorflow_ops {
namespace bilinear {

// Calls fn(std::integral_constant<int, N>()) where `channels` is N, one of
// the counts whose channel loops are unrolled (common image and feature-map
// depths), else fn(std::integral_constant<int, 0>()): a count read at run time.
// kUnrollTwo also unrolls 2 channels: only the float rows' callers ask for it,
// as unrolling it for every type pair would lengthen every kernel's compile
// (docs/cpu_performance.md#withunrolledchannels).
template <bool kUnrollTwo = false, typename Fn>
void WithUnrolledChannels(int64_t channels, const Fn& fn) {
  if constexpr (kUnrollTwo) {
    if (channels == 2) return fn(std::integral_constant<int, 2>());
  }
  switch (channels) {
    case 1:
      return fn(std::integral_constant<int, 1>());
    case 3:
      return fn(std::integral_constant<int, 3>());
    case 4:
      return fn(std::integral_constant<int, 4>());
    case 8:
      return fn(std::integral_constant<int, 8>());
    case 16:
      return fn(std::integral_constant<int, 16>());
    case 32:
      return fn(std::integral_constant<int, 32>());
    case 64:
      return fn(std::integral_constant<int, 64>());
    default:
      return fn(std::integral_constant<int, 0>());
  }
}

// Whether `channels` is one of the counts WithUnrolledChannels fixes.
inline bool IsUnrolledChannelCount(int64_t channels) {
  bool unrolled = false;
  WithUnrolledChannels(channels, [&](auto fixed_channels) {
    unrolled = decltype(fixed_channels)::value > 0;
  });
  return unrolled;
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_UNROLLED_CHANNELS_H_
