// libFuzzer target over the TensorFlow-free resize math (forward and gradient).
//
// Bytes become a geometry (sizes 1 to a few thousand, batch 0-3, channels 1-20,
// every attr mode), an element type and raw element bits (so NaN, Inf and
// denormals occur), and a split of the rows among two "threads". It checks, and
// aborts on failure, that:
//  - nothing is read or written outside the tensors (AddressSanitizer, with
//    buffers of exactly the tensors' sizes) and no undefined behaviour occurs
//    (UndefinedBehaviorSanitizer);
//  - any split of the rows gives the same bits as one call;
//  - equal sizes copy the input exactly;
//  - for finite inputs, every output lies between the smallest and the largest
//    input, and the gradient conserves the sum of the output gradients.
//
// Build and run (needs Debian's clang package):
//   tools/fuzz_bilinear_math.sh -max_total_time=3600
// which runs clang++ -fsanitize=fuzzer,address,undefined on this file.
// Built with -DBILINEAR_FUZZ_STANDALONE (as :bilinear_math_fuzz_test), it is a
// test case (bilinear_test_main.h) that runs a fixed set of pseudo-random
// inputs through the same checks, so `bazel test` and the sanitizer configs
// exercise it without clang. Either way a failed check aborts, as libFuzzer
// needs; the libFuzzer build uses only header-only helpers, since libFuzzer
// brings its own main().
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

#ifdef BILINEAR_FUZZ_STANDALONE
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#endif

namespace tensorflow_ops {
namespace bilinear {
namespace {

// Bounds on the work of one input, so that the fuzzer runs many per second.
constexpr int64_t kMaxElements = int64_t{1} << 18;

// Reads values from the fuzzer's bytes; zeros once they run out.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t Bits(int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) {
      value = (value << 8) | (offset_ < size_ ? data_[offset_++] : 0);
    }
    return value;
  }
  int64_t InRange(int64_t low, int64_t high) {  // inclusive
    return low + static_cast<int64_t>(Bits(4) % static_cast<uint64_t>(high - low + 1));
  }
  const uint8_t* rest() const { return data_ + offset_; }
  size_t rest_size() const { return size_ - offset_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
};

[[noreturn]] void Abort(const ResizeGeometry& g, const char* what) {
  std::fprintf(stderr, "%s: %s\n", what, Describe(g).c_str());
  std::abort();
}

// A size: mostly small, sometimes up to a few thousand (scales of 10^3).
int64_t Size(ByteReader* reader) {
  return reader->InRange(0, 3) == 0 ? reader->InRange(1, 4096) : reader->InRange(1, 40);
}

// `count` values of T whose bits come from the reader's remaining bytes.
template <typename T>
std::vector<T> Values(int64_t count, const ByteReader& reader, uint64_t salt) {
  std::vector<T> values(count);
  const uint8_t* bytes = reader.rest();
  const size_t available = reader.rest_size();
  for (int64_t i = 0; i < count; ++i) {
    unsigned char raw[sizeof(T)];
    for (size_t k = 0; k < sizeof(T); ++k) {
      const uint64_t index = (static_cast<uint64_t>(i) * sizeof(T) + k + salt);
      raw[k] = available ? bytes[index % available]
                         : static_cast<unsigned char>(index * 131);
    }
    std::memcpy(&values[i], raw, sizeof(T));
  }
  return values;
}

template <typename T>
bool AllFinite(const std::vector<T>& values) {
  for (const T& v : values) {
    if (!std::isfinite(static_cast<double>(v))) return false;
  }
  return true;
}

template <typename T, typename OutT>
void CheckForward(const ResizeGeometry& g, const ByteReader& reader, int64_t split) {
  const std::vector<T> images =
      Values<T>(g.batch * g.in_height * g.in_width * g.channels, reader, 0);
  const int64_t out_size = g.batch * g.out_height * g.out_width * g.channels;
  const int64_t rows = g.batch * g.out_height;
  std::vector<OutT> whole(out_size), parts(out_size);
  ResizeRows(g, images.data(), 0, rows, whole.data());
  // Two calls, as two threads would make (callers never pass empty ranges).
  split = 1 + split % rows;
  if (split < rows) ResizeRows(g, images.data(), split, rows, parts.data());
  ResizeRows(g, images.data(), 0, split, parts.data());
  if (std::memcmp(whole.data(), parts.data(), out_size * sizeof(OutT)) != 0) {
    Abort(g, "resize depends on the row split");
  }
  if (IsIdentity(g)) {
    for (int64_t i = 0; i < out_size; ++i) {
      const OutT expected = static_cast<OutT>(images[i]);
      if (std::memcmp(&expected, &whole[i], sizeof(OutT)) != 0) {
        Abort(g, "identity resize is not a copy");
      }
    }
    return;
  }
  if (!AllFinite(images) || images.empty()) return;
  const auto [low, high] = std::minmax_element(images.begin(), images.end());
  const double lo = static_cast<double>(*low), hi = static_cast<double>(*high);
  // Inputs past float's range give Inf in float; rounding allows a little slack.
  if (std::max(std::fabs(lo), std::fabs(hi)) > 1e37) return;
  const double slack = 1e-5 * std::max(std::fabs(lo), std::fabs(hi)) + 1e-30;
  for (const OutT& v : whole) {
    const double value = static_cast<double>(v);
    if (!(value >= lo - slack && value <= hi + slack)) {
      Abort(g, "output outside the input's range");
    }
  }
}

template <typename T>
void CheckGradient(const ResizeGeometry& g, const ByteReader& reader, int64_t split) {
  const std::vector<T> grads =
      Values<T>(g.batch * g.out_height * g.out_width * g.channels, reader, 7);
  const int64_t in_size = g.batch * g.in_height * g.in_width * g.channels;
  const int64_t rows = g.batch * g.in_height;
  std::vector<T> whole(in_size), parts(in_size);
  ResizeGradRows(g, grads.data(), 0, rows, whole.data());
  split = 1 + split % rows;
  if (split < rows) {
    ResizeGradRows(g, grads.data(), split, rows, parts.data());
  }
  ResizeGradRows(g, grads.data(), 0, split, parts.data());
  if (std::memcmp(whole.data(), parts.data(), in_size * sizeof(T)) != 0) {
    Abort(g, "gradient depends on the row split");
  }
  if (!AllFinite(grads)) return;
  // Totals in long double, so that summing up to 2^18 terms adds no error that
  // could be blamed on the kernel.
  long double total = 0, magnitude = 0, sum = 0;
  for (const T& v : grads) {
    total += static_cast<long double>(v);
    magnitude += std::fabs(static_cast<long double>(v));
  }
  if (magnitude > 1e30) return;  // sums that may overflow in float
  for (const T& v : whole) sum += static_cast<long double>(v);
  // Each input value sums at most `depth` weighted terms, each rounded once,
  // with weights whose two halves add up to 1 within one rounding.
  const long double depth = (g.out_height / g.in_height + 2.0L) *
                            (g.out_width / g.in_width + 2.0L);
  const long double epsilon = std::is_same<T, double>::value ? 2.3e-16L : 1.2e-7L;
  // Subnormal values are rounded to absolute steps of denorm_min instead.
  const long double subnormal_slack = 4 * depth * static_cast<long double>(whole.size()) *
                                      std::numeric_limits<T>::denorm_min();
  if (!(std::fabs(sum - total) <= 2 * epsilon * depth * magnitude + subnormal_slack)) {
    Abort(g, "gradient does not conserve the sum");
  }
}

void FuzzOne(const uint8_t* data, size_t size) {
  ByteReader reader(data, size);
  ResizeGeometry g;
  g.batch = reader.InRange(0, 3);
  g.in_height = Size(&reader);
  g.in_width = Size(&reader);
  g.out_height = reader.InRange(0, 3) == 0 ? g.in_height : Size(&reader);
  g.out_width = reader.InRange(0, 3) == 0 ? g.in_width : Size(&reader);
  g.channels = reader.InRange(0, 7) == 0 ? reader.InRange(1, 20) : reader.InRange(1, 4);
  const int64_t attr = reader.InRange(0, 2);
  g.align_corners = attr == 0;
  g.half_pixel_centers = attr == 2;
  const int64_t type = reader.InRange(0, 4);
  const int64_t split = reader.InRange(0, 1 << 30);
  const int64_t in_elements = g.batch * g.in_height * g.in_width * g.channels;
  const int64_t out_elements = g.batch * g.out_height * g.out_width * g.channels;
  if (in_elements > kMaxElements || out_elements > kMaxElements) return;
  // An empty batch has nothing to compute; the kernels return before the math.
  if (g.batch == 0) return;
  switch (type) {
    case 0:
      CheckForward<float, float>(g, reader, split);
      CheckGradient<float>(g, reader, split);
      break;
    case 1:
      CheckForward<double, double>(g, reader, split);
      CheckGradient<double>(g, reader, split);
      break;
    case 2:
      CheckForward<uint8_t, float>(g, reader, split);
      break;
    case 3:
      CheckForward<int16_t, double>(g, reader, split);
      break;
    default:
      CheckForward<float, double>(g, reader, split);
  }
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow_ops::bilinear::FuzzOne(data, size);
  return 0;
}

#ifdef BILINEAR_FUZZ_STANDALONE
// A fixed set of pseudo-random inputs (a linear congruential generator, so the
// same everywhere), for builds without libFuzzer.
BILINEAR_TEST(FixedInputs) {
  constexpr int kInputs = 3000;
  uint64_t state = 20261130;
  std::vector<uint8_t> input;
  for (int n = 0; n < kInputs; ++n) {
    input.resize(16 + n % 200);
    for (uint8_t& byte : input) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      byte = static_cast<uint8_t>(state >> 56);
    }
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("checked %d inputs\n", kInputs);
}
#endif
