// Edge shapes of the TensorFlow-free math, for the sanitizer builds.
//
// Run under `bazel test --config=asan --config=ubsan` (see .bazelrc), every
// buffer here is a heap allocation of exactly the tensor's size, so any read
// or write outside a tensor, any signed overflow in the index math and any
// out-of-range float-to-int conversion is reported. The shapes are the ones
// where index math goes wrong: 1x1 images, outputs of size 1, down-sampling
// 1000 to 1, channels 1 and 17, and scales of 2^17 up and down; forward and
// gradient, in every attr mode. Values are checked by properties that hold for
// any correct bilinear resize: every output lies between the smallest and the
// largest input (a convex combination), and the gradient conserves the sum of
// the output gradients (each output's four weights sum to 1).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// A heap array of exactly `size` elements: one past its end is outside any
// allocation, which AddressSanitizer reports.
template <typename T>
std::unique_ptr<T[]> Exact(int64_t size) {
  return std::unique_ptr<T[]>(new T[size]);
}

// Values in [-1, 1] that differ between neighbours (a fixed pattern, no RNG).
double Pattern(int64_t i) { return std::sin(0.7 * static_cast<double>(i) + 0.3); }

template <typename T, typename OutT>
void CheckForward(const ResizeGeometry& g) {
  const int64_t in_size = g.batch * g.in_height * g.in_width * g.channels;
  const int64_t out_size = g.batch * g.out_height * g.out_width * g.channels;
  auto images = Exact<T>(in_size);
  auto output = Exact<OutT>(out_size);
  double low = INFINITY, high = -INFINITY;
  for (int64_t i = 0; i < in_size; ++i) {
    images[i] = static_cast<T>(std::is_integral<T>::value ? 100 + 100 * Pattern(i)
                                                     : Pattern(i));
    low = std::min(low, static_cast<double>(images[i]));
    high = std::max(high, static_cast<double>(images[i]));
  }
  // Two calls on a split of the rows, as the thread pool would make.
  const int64_t rows = g.batch * g.out_height;
  ResizeRows(g, images.get(), 0, rows / 2, output.get());
  ResizeRows(g, images.get(), rows / 2, rows, output.get());
  const double slack = 1e-5 * std::max(1.0, std::fabs(high) + std::fabs(low));
  for (int64_t i = 0; i < out_size; ++i) {
    const double value = static_cast<double>(output[i]);
    if (!(value >= low - slack && value <= high + slack)) {
      return Fail("output outside the input's range (%g): %s", value, Describe(g).c_str());
    }
  }
}

template <typename T>
void CheckGradient(const ResizeGeometry& g) {
  const int64_t in_size = g.batch * g.in_height * g.in_width * g.channels;
  const int64_t out_size = g.batch * g.out_height * g.out_width * g.channels;
  auto grads = Exact<T>(out_size);
  auto images_grad = Exact<T>(in_size);
  double total = 0, magnitude = 0;
  for (int64_t i = 0; i < out_size; ++i) {
    grads[i] = static_cast<T>(Pattern(i));
    total += static_cast<double>(grads[i]);
    magnitude += std::fabs(static_cast<double>(grads[i]));
  }
  const int64_t rows = g.batch * g.in_height;
  ResizeGradRows(g, grads.get(), 0, rows / 2, images_grad.get());
  ResizeGradRows(g, grads.get(), rows / 2, rows, images_grad.get());
  double sum = 0;
  for (int64_t i = 0; i < in_size; ++i) sum += static_cast<double>(images_grad[i]);
  const double tolerance = (std::is_same<T, double>::value ? 1e-12 : 1e-5) * (1 + magnitude);
  Expect(std::fabs(sum - total) <= tolerance, "gradient does not conserve the sum (%g): %s",
         sum - total, Describe(g).c_str());
}

void CheckShape(int64_t batch, int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                int64_t channels) {
  ForEachAttrMode(batch, in_h, in_w, out_h, out_w, channels,
                  [](const ResizeGeometry& g) {
                    CheckForward<float, float>(g);
                    CheckForward<double, double>(g);
                    CheckForward<uint8_t, float>(g);
                    CheckForward<int64_t, double>(g);
                    CheckGradient<float>(g);
                    CheckGradient<double>(g);
                  });
}

// An empty batch may come with no buffers at all (TensorFlow's empty tensors
// can have none): every kernel, the identity's copy included, must then touch
// nothing, nor hand a null pointer to memcpy (UBSan's nonnull check).
BILINEAR_TEST(EmptyBatchWithoutBuffers) {
  for (const bool identity : {true, false}) {
    ForEachAttrMode(0, 4, 5, identity ? 4 : 7, identity ? 5 : 3, 3,
                    [](const ResizeGeometry& g) {
                      ResizeRows(g, static_cast<const float*>(nullptr), 0, 0,
                                 static_cast<float*>(nullptr));
                      ResizeRows(g, static_cast<const uint8_t*>(nullptr), 0, 0,
                                 static_cast<float*>(nullptr));
                      ResizeGradRows(g, static_cast<const float*>(nullptr), 0, 0,
                                     static_cast<float*>(nullptr));
                      ResizeGradRows(g, static_cast<const double*>(nullptr), 0, 0,
                                     static_cast<double*>(nullptr));
                    });
  }
}

// Sizes of 1 on every axis, 1000 down to 1, and last columns that two pixels
// share, in each channel count.
BILINEAR_TEST(SmallShapes) {
  for (const int64_t channels : {1, 3, 4, 17}) {
    CheckShape(2, 1, 1, 1, 1, channels);        // 1x1 to 1x1 (identity)
    CheckShape(1, 1, 1, 5, 7, channels);        // 1x1 input
    CheckShape(2, 6, 9, 1, 1, channels);        // 1x1 output
    CheckShape(1, 7, 5, 1, 3, channels);        // output height 1
    CheckShape(1, 5, 7, 4, 1, channels);        // output width 1
    CheckShape(1, 1000, 3, 1, 3, channels);     // 1000 rows down to 1
    CheckShape(1, 3, 1000, 3, 1, channels);     // 1000 columns down to 1
    // 2 columns up to 42 and 50 with align_corners: the last two pixels both
    // read the last two output columns (float and double rounding).
    CheckShape(1, 1, 2, 1, 42, channels);
    CheckShape(1, 1, 2, 1, 50, channels);
    CheckShape(0, 4, 4, 9, 9, channels);        // empty batch
  }
}

// Extreme scales: 2^17 with one channel, 2^12 with 17 (the same code paths
// at a seventeenth of the cost, which matters under the sanitizers).
BILINEAR_TEST(ExtremeScales) {
  for (const int64_t channels : {1, 17}) {
    const int64_t n = channels == 1 ? int64_t{1} << 17 : int64_t{1} << 12;
    CheckShape(1, 1, 2, 1, n, channels);   // 2^16 times wider
    CheckShape(1, 1, n, 1, 2, channels);   // 2^16 times narrower
    CheckShape(1, n, 1, 3, 1, channels);   // 2^17 rows to 3
    CheckShape(1, 2, 1, n / 2, 1, channels);  // 2 rows to 2^16
  }
  CheckShape(1, 1000, 1000, 1, 1, 1);      // 10^6 pixels to 1
}

// Input rows that gather what the row before them did (each pair of rows of
// a half-pixel 2x down-sampling, in the channel counts that copy and past
// them) copy that row: the same bits as each row computed in a call of its
// own, with no row before it to copy, and as calls that start inside a pair.
// Also where one image's last row and the next one's first read the same
// output row (out_height 1), which must not copy across images; with rows of
// several tiles; and with NaN and Inf among the upstream gradient's values.
template <typename T>
void CheckCopiedGradientRows(const char* type_name) {
  const int64_t shapes[][5] = {
      // batch, in_h, in_w, out_h, out_w
      {2, 10, 9, 5, 4},     // pairs of rows, across two images
      {3, 4, 26, 1, 13},    // one output row per image
      {2, 25, 16, 1, 8},    // the same, rows that read it differently
      {1, 4, 5000, 2, 2500},  // rows of several tiles
  };
  for (const auto& s : shapes) {
    for (int64_t channels = 1; channels <= 17; ++channels) {
      if (s[2] > 1000 && channels != 1 && channels != 3) continue;
      ForEachAttrMode(s[0], s[1], s[2], s[3], s[4], channels, [&](const ResizeGeometry& g) {
        const int64_t in_rows = g.batch * g.in_height;
        const int64_t in_size = in_rows * g.in_width * channels;
        const int64_t out_size = g.batch * g.out_height * g.out_width * channels;
        auto grads = Exact<T>(out_size);
        for (int64_t i = 0; i < out_size; ++i) {
          const double special = i % 3 == 0 ? HUGE_VAL : std::nan("");
          grads[i] = static_cast<T>(i % 29 == 5 ? special : Pattern(i));
        }
        auto whole = Exact<T>(in_size), by_row = Exact<T>(in_size),
             from_odd = Exact<T>(in_size);
        ResizeGradRows(g, grads.get(), 0, in_rows, whole.get());
        for (int64_t row = 0; row < in_rows; ++row) {
          ResizeGradRows(g, grads.get(), row, row + 1, by_row.get());
        }
        ResizeGradRows(g, grads.get(), 0, 3, from_odd.get());
        ResizeGradRows(g, grads.get(), 3, in_rows, from_odd.get());
        const size_t bytes = static_cast<size_t>(in_size) * sizeof(T);
        Expect(std::memcmp(whole.get(), by_row.get(), bytes) == 0 &&
                   std::memcmp(whole.get(), from_odd.get(), bytes) == 0,
               "%s gradient rows differ from rows computed alone: %s", type_name,
               Describe(g).c_str());
      });
    }
  }
}

BILINEAR_TEST(CopiedGradientRows) {
  CheckCopiedGradientRows<float>("float");
  CheckCopiedGradientRows<double>("double");
  CheckCopiedGradientRows<Float16>("half");
  CheckCopiedGradientRows<Bfloat16>("bfloat16");
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
