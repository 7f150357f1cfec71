// Standalone test of the TensorFlow-free bilinear math (no TensorFlow, no gtest).
//
// For many geometries, attrs and channel counts it checks that:
//  - ResizeRows matches a naive double reference;
//  - ResizeGradRows is the adjoint: <R x, g> == <x, R^T g>, and matches a naive
//    scatter reference;
//  - any split of the rows gives bitwise-identical results (determinism), and
//    so do row pairs and streaming stores;
//  - nothing is read or written out of bounds: inputs sit between NaN guards
//    (a stray read turns an output into NaN, even with weight 0) and outputs
//    between canaries that must survive.
//  - the rules that choose 512-bit vectors and the direct path give the
//    choices that were measured faster.
// 16-bit and integer images are checked in bilinear_converted_images_test.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

constexpr int64_t kGuard = 64;  // elements of guard on each side of a buffer

// A buffer of `size` elements with `kGuard` elements of `guard` on each side.
template <typename T>
struct GuardedBuffer {
  GuardedBuffer(int64_t size, T guard) : data(size + 2 * kGuard, guard), guard(guard) {}
  T* begin() { return data.data() + kGuard; }
  int64_t size() const { return static_cast<int64_t>(data.size()) - 2 * kGuard; }
  bool GuardsIntact() const {
    for (int64_t i = 0; i < kGuard; ++i) {
      if (std::memcmp(&data[i], &guard, sizeof(T)) != 0 ||
          std::memcmp(&data[data.size() - 1 - i], &guard, sizeof(T)) != 0) {
        return false;
      }
    }
    return true;
  }
  std::vector<T> data;
  T guard;
};

// Source samples of the naive reference: neighbours floor(src) and floor(src)+1,
// both clamped, blended by src - floor(src).
struct NaiveSample {
  int64_t lower, upper;
  double weight;
};

NaiveSample Sample(int64_t i, int64_t in, int64_t out, bool ac, bool hp) {
  const double scale = (ac && out > 1) ? double(in - 1) / double(out - 1)
                                       : double(in) / double(out);
  const double src = hp ? (i + 0.5) * scale - 0.5 : i * scale;
  const double floor = std::floor(src);
  auto clamp = [in](double v) {
    return static_cast<int64_t>(std::min<double>(std::max<double>(v, 0), in - 1));
  };
  return {clamp(floor), clamp(floor + 1), src - floor};
}

std::vector<double> NaiveResize(const ResizeGeometry& g, const std::vector<double>& x) {
  std::vector<double> out(g.batch * g.out_height * g.out_width * g.channels);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t y = 0; y < g.out_height; ++y)
      for (int64_t xo = 0; xo < g.out_width; ++xo)
        for (int64_t c = 0; c < g.channels; ++c) {
          const NaiveSample sy = Sample(y, g.in_height, g.out_height,
                                        g.align_corners, g.half_pixel_centers);
          const NaiveSample sx = Sample(xo, g.in_width, g.out_width,
                                        g.align_corners, g.half_pixel_centers);
          auto at = [&](int64_t yy, int64_t xx) {
            return x[((b * g.in_height + yy) * g.in_width + xx) * g.channels + c];
          };
          out[((b * g.out_height + y) * g.out_width + xo) * g.channels + c] =
              (1 - sy.weight) * ((1 - sx.weight) * at(sy.lower, sx.lower) +
                                 sx.weight * at(sy.lower, sx.upper)) +
              sy.weight * ((1 - sx.weight) * at(sy.upper, sx.lower) +
                           sx.weight * at(sy.upper, sx.upper));
        }
  return out;
}

// Runs `rows_fn(input, begin_row, end_row, output)` over all `rows`, in one call
// or one row at a time from the last, reading a copy of `input` between NaN
// guards and writing between canaries; returns the output.
template <typename T, typename RowsFn>
std::vector<T> RunGuarded(const ResizeGeometry& g, const char* name,
                          const std::vector<T>& input, int64_t output_size,
                          int64_t rows, bool row_by_row_reversed, RowsFn rows_fn) {
  GuardedBuffer<T> guarded_input(input.size(), std::nan(""));
  std::copy(input.begin(), input.end(), guarded_input.begin());
  GuardedBuffer<T> output(output_size, T(-7));
  if (row_by_row_reversed) {
    for (int64_t r = rows - 1; r >= 0; --r) {
      rows_fn(guarded_input.begin(), r, r + 1, output.begin());
    }
  } else {
    rows_fn(guarded_input.begin(), 0, rows, output.begin());
  }
  if (!output.GuardsIntact()) Fail("%s: %s", name, Describe(g).c_str());
  return std::vector<T>(output.begin(), output.begin() + output.size());
}

template <typename T>
std::vector<T> RunResize(const ResizeGeometry& g, const std::vector<T>& x,
                         bool row_by_row_reversed) {
  return RunGuarded(g, "resize wrote out of bounds", x,
                    g.batch * g.out_height * g.out_width * g.channels,
                    g.batch * g.out_height, row_by_row_reversed,
                    [&](const T* in, int64_t begin, int64_t end, T* out) {
                      ResizeRows(g, in, begin, end, out);
                    });
}

template <typename T>
std::vector<T> RunResizeGrad(const ResizeGeometry& g, const std::vector<T>& grads,
                             bool row_by_row_reversed) {
  return RunGuarded(g, "gradient wrote out of bounds", grads,
                    g.batch * g.in_height * g.in_width * g.channels,
                    g.batch * g.in_height, row_by_row_reversed,
                    [&](const T* in, int64_t begin, int64_t end, T* out) {
                      ResizeGradRows(g, in, begin, end, out);
                    });
}

template <typename T>
double MaxAbsDiff(const std::vector<T>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(double(a[i]) - b[i]);
    worst = std::isnan(diff) ? INFINITY : std::max(worst, diff);
  }
  return worst;
}

template <typename T>
void CheckGeometry(const ResizeGeometry& g, double tolerance, std::mt19937* rng) {
  const std::vector<T> x =
      RandomValues<T>(g.batch * g.in_height * g.in_width * g.channels, -1, 1, rng);
  const std::vector<T> grads =
      RandomValues<T>(g.batch * g.out_height * g.out_width * g.channels, -1, 1, rng);

  const std::vector<T> resized = RunResize(g, x, false);
  const std::vector<double> x64(x.begin(), x.end());
  const double forward_error = MaxAbsDiff(resized, NaiveResize(g, x64));
  Expect(forward_error <= tolerance, "resize vs naive (%g): %s", forward_error,
         Describe(g).c_str());
  if (RunResize(g, x, true) != resized) {
    Fail("resize depends on the row split: %s", Describe(g).c_str());
  }

  const std::vector<T> images_grad = RunResizeGrad(g, grads, false);
  if (RunResizeGrad(g, grads, true) != images_grad) {
    Fail("gradient depends on the row split: %s", Describe(g).c_str());
  }
  // Adjoint identity, and a naive scatter reference.
  const std::vector<double> grads64(grads.begin(), grads.end());
  double lhs = 0, rhs = 0;
  const std::vector<double> resized64 = NaiveResize(g, x64);
  for (size_t i = 0; i < resized64.size(); ++i) lhs += resized64[i] * grads64[i];
  for (size_t i = 0; i < x64.size(); ++i) rhs += x64[i] * double(images_grad[i]);
  const double scale = 1.0 + double(grads.size());
  Expect(std::fabs(lhs - rhs) <= tolerance * scale, "gradient is not the adjoint (%g): %s",
         lhs - rhs, Describe(g).c_str());
  std::vector<double> naive_grad(x.size(), 0.0);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t y = 0; y < g.out_height; ++y)
      for (int64_t xo = 0; xo < g.out_width; ++xo)
        for (int64_t c = 0; c < g.channels; ++c) {
          const NaiveSample sy = Sample(y, g.in_height, g.out_height,
                                        g.align_corners, g.half_pixel_centers);
          const NaiveSample sx = Sample(xo, g.in_width, g.out_width,
                                        g.align_corners, g.half_pixel_centers);
          const double gv =
              grads64[((b * g.out_height + y) * g.out_width + xo) * g.channels + c];
          auto add = [&](int64_t yy, int64_t xx, double w) {
            naive_grad[((b * g.in_height + yy) * g.in_width + xx) * g.channels + c] +=
                w * gv;
          };
          add(sy.lower, sx.lower, (1 - sy.weight) * (1 - sx.weight));
          add(sy.lower, sx.upper, (1 - sy.weight) * sx.weight);
          add(sy.upper, sx.lower, sy.weight * (1 - sx.weight));
          add(sy.upper, sx.upper, sy.weight * sx.weight);
        }
  const double grad_error = MaxAbsDiff(images_grad, naive_grad);
  const double grad_tolerance = tolerance * (2.0 + 2.0 * g.out_height * g.out_width /
                                                       double(g.in_height * g.in_width));
  Expect(grad_error <= grad_tolerance, "gradient vs naive (%g): %s", grad_error,
         Describe(g).c_str());
}

// The checks above over every small geometry, in double and float.
BILINEAR_TEST(SmallGeometries) {
  std::mt19937 rng(20261129);
  const int64_t geometries = ForEachSmallGeometry(
      {1, 3, 10}, {1, 2, 3, 4, 5}, [&](const ResizeGeometry& g) {
        CheckGeometry<double>(g, 1e-12, &rng);
        CheckGeometry<float>(g, 2e-5, &rng);
      });
  std::printf("checked %lld geometries in float and double\n",
              static_cast<long long>(geometries));
}

// Equal sizes copy: Inf, -0 and denormals survive, forward and gradient, in
// every attr mode (interpolating with weight 0 would give NaN, +0 and 0).
BILINEAR_TEST(IdentityIsExact) {
  const float denormal = std::numeric_limits<float>::denorm_min();
  const std::vector<float> values = {INFINITY, -0.0f, denormal, 1.0f,
                                     -INFINITY, 3.5f};
  ForEachAttrMode(1, 2, 3, 2, 3, 1, [&](const ResizeGeometry& g) {
    for (const bool gradient : {false, true}) {
      const std::vector<float> result = gradient ? RunResizeGrad(g, values, false)
                                                 : RunResize(g, values, false);
      if (std::memcmp(result.data(), values.data(), values.size() * sizeof(float))) {
        Fail("%s is not a copy: %s", gradient ? "identity gradient" : "identity",
             Describe(g).c_str());
      }
    }
  });
}

// Geometries past one block of columns and one tile of channels.
BILINEAR_TEST(LargeTiles) {
  std::mt19937 rng(11);
  const int64_t shapes[][5] = {
      // in_h, in_w, out_h, out_w, channels
      {3, 1200, 5, 2200, 1},  // three column blocks, widening
      {4, 2600, 2, 1400, 3},  // two blocks, narrowing, 4 lanes across blocks
      {3, 900, 4, 2500, 1},   // two gradient column blocks
      {5, 300, 3, 290, 17},   // 120-column tiles
      {2, 3, 3, 2, 8300},     // channels past one tile
      {7, 2, 2, 5, 4100},     // tiles of one column
      {3, 3000, 4, 2000, 5},  // two gradient tiles of input columns
      {2, 300, 3, 1000, 64},  // gradient tiles narrowed by their columns
      {2, 2, 3, 5000, 8},     // several gradient column blocks per pixel
  };
  for (const auto& s : shapes) {
    ForEachAttrMode(1, s[0], s[1], s[2], s[3], s[4], [&](const ResizeGeometry& g) {
      CheckGeometry<double>(g, 1e-12, &rng);
      // float coordinates are off by up to about size * 2^-24 pixels.
      const double size = std::max({g.in_height, g.in_width, g.out_height, g.out_width});
      CheckGeometry<float>(g, 2e-5 + 4e-7 * size, &rng);
    });
  }
}

// A call for rows [row, row + 1) writes that row and no other: a pair that
// ran past end_row would rewrite the next range's first row with the same
// values, which no comparison of whole outputs sees, but which races with the
// thread that owns that row.
void CheckOneRowRangesWriteOnlyTheirRow(const ResizeGeometry& g,
                                        const std::vector<float>& x,
                                        OutputStores stores) {
  const int64_t rows = g.batch * g.out_height;
  const int64_t row_size = g.out_width * g.channels;
  GuardedBuffer<float> output(rows * row_size, -7.0f);
  float* out = output.begin();
  auto untouched = [&](int64_t row) {
    return row < 0 || row >= rows ||
           std::all_of(out + row * row_size, out + (row + 1) * row_size,
                       [](float v) { return v == -7.0f; });
  };
  for (int64_t row = 0; row < rows; ++row) {
    ResizeRows(g, x.data(), row, row + 1, out, stores);
    if (!untouched(row - 1) || !untouched(row + 1)) {
      Fail("a one-row range (row %lld) wrote a neighbouring row: %s",
           static_cast<long long>(row), Describe(g).c_str());
    }
    std::fill(out + row * row_size, out + (row + 1) * row_size, -7.0f);
  }
}

// Rows of more than 8 float channels are computed directly, two at a time
// where both read the same input rows; streaming stores write them when asked
// and the output is 16-byte aligned (4 and 8 channels too, when the height is
// not up-sampled). Up-sampled rows of 4 and 8 channels are written whole lines
// at a time with any stores but kCached. Every way gives the bits of one row
// at a time through the cache (RunResize's row-by-row run makes no pairs).
BILINEAR_TEST(RowPairsAndStreamingStores) {
  std::mt19937 rng(5);
  const int64_t geometries = ForEachSmallGeometry(
      {3, 10}, {4, 8, 12, 16, 32, 64}, [&](const ResizeGeometry& g) {
        CheckGeometry<float>(g, 2e-5, &rng);
        const std::vector<float> x = RandomValues<float>(
            g.batch * g.in_height * g.in_width * g.channels, -1, 1, &rng);
        const int64_t rows = g.batch * g.out_height;
        const int64_t size = rows * g.out_width * g.channels;
        const std::vector<float> one_row_at_a_time = RunResize(g, x, true);
        for (const bool reversed : {false, true}) {
          const std::vector<float> streamed = RunGuarded(
              g, "streaming stores wrote out of bounds", x, size, rows, reversed,
              [&](const float* in, int64_t begin, int64_t end, float* out) {
                ResizeRows(g, in, begin, end, out, OutputStores::kStreaming);
              });
          Expect(streamed == one_row_at_a_time, "streaming stores differ (reversed %d): %s",
                 reversed, Describe(g).c_str());
        }
        // An output that is not 16-byte aligned takes the cache.
        std::vector<float> unaligned(size + 4);
        float* out = unaligned.data() + 1;
        if (reinterpret_cast<uintptr_t>(out) % 16 == 0) ++out;
        ResizeRows(g, x.data(), 0, rows, out, OutputStores::kStreaming);
        Expect(std::equal(out, out + size, one_row_at_a_time.begin()),
               "unaligned streaming output differs: %s", Describe(g).c_str());
        for (const OutputStores stores : {OutputStores::kCached,
                                          OutputStores::kWholeLines,
                                          OutputStores::kStreaming}) {
          CheckOneRowRangesWriteOnlyTheirRow(g, x, stores);
        }
        std::vector<float> whole_lines(size);
        ResizeRows(g, x.data(), 0, rows, whole_lines.data(),
                   OutputStores::kWholeLines);
        Expect(whole_lines == one_row_at_a_time, "whole-line stores differ: %s",
               Describe(g).c_str());
      });
  std::printf("checked %lld geometries with row pairs and streaming stores\n",
              static_cast<long long>(geometries));
}

// The gradient's streaming stores (float rows of whole 8-float groups) give
// the bits of cached stores, on any split of the rows, 2x down-samplings with
// their single-term tiles and row pairs included.
BILINEAR_TEST(GradStreamingStores) {
  std::mt19937 rng(6);
  auto check = [&](const ResizeGeometry& g) {
    const std::vector<float> grads = RandomValues<float>(
        g.batch * g.out_height * g.out_width * g.channels, -1, 1, &rng);
    const std::vector<float> cached = RunResizeGrad(g, grads, false);
    for (const bool reversed : {false, true}) {
      const std::vector<float> streamed = RunGuarded(
          g, "streamed gradient wrote out of bounds", grads,
          g.batch * g.in_height * g.in_width * g.channels, g.batch * g.in_height,
          reversed, [&](const float* in, int64_t begin, int64_t end, float* out) {
            ResizeGradRows(g, in, begin, end, out, OutputStores::kStreaming);
          });
      Expect(std::memcmp(streamed.data(), cached.data(), cached.size() * sizeof(float)) ==
                 0,
             "streamed gradient differs (reversed %d): %s", reversed,
             Describe(g).c_str());
    }
  };
  int64_t geometries =
      ForEachSmallGeometry({2, 3, 8}, {8, 24, 64}, [&](const ResizeGeometry& g) { check(g); });
  for (const int64_t size : {16, 28}) {
    for (const int64_t channels : {8, 16, 32}) {
      ForEachAttrMode(2, size, size, size / 2, size / 2, channels,
                      [&](const ResizeGeometry& g) {
                        check(g);
                        ++geometries;
                      });
    }
  }
  std::printf("checked %lld geometries' gradients with streaming stores\n",
              static_cast<long long>(geometries));
}

// Which forward kernels with 16-bit images or output take 512-bit vectors
// (ForwardGainsFromAvx512 says why): unrolled channel loops always; other
// counts by image type, channel count, whether the height is up-sampled, and
// for other images, the path.
BILINEAR_TEST(ForwardAvx512Rule) {
  const std::vector<int64_t> unrolled = {1, 3, 4, 8, 16, 32, 64};
  // Counts read at run time, by what was measured for each.
  const std::vector<int64_t> half_wins = {9, 10, 11, 17, 18, 40, 48, 96};
  const std::vector<int64_t> half_loses = {5, 6, 7, 12, 13, 14, 15, 20, 23, 28, 31, 36};
  // Float and integer images into 16-bit output, on the buffered paths.
  const std::vector<int64_t> other_wins = {9, 10, 17, 24, 48};
  const std::vector<int64_t> other_loses = {5, 6, 7, 12, 13};
  auto in = [](const std::vector<int64_t>& list, int64_t c) {
    return std::find(list.begin(), list.end(), c) != list.end();
  };
  for (int64_t channels = 1; channels <= 96; ++channels) {
    for (const bool up_sampled : {false, true}) {
      const ResizeGeometry g{1, 10, 10, up_sampled ? 11 : 9, 10, channels, false, true};
      const bool half = ForwardGainsFromAvx512<Float16, Float16>(g);
      const bool bfloat16 = ForwardGainsFromAvx512<Bfloat16, Bfloat16>(g);
      // Buffered at every count but 64, which is unrolled.
      const bool other = ForwardGainsFromAvx512<uint8_t, Float16>(g);
      // The direct path: 20 input pixels per output column, not up-sampled.
      const ResizeGeometry sparse_columns{1, 10, 200, 9, 10, channels, false, true};
      const bool other_direct = ForwardGainsFromAvx512<uint8_t, Float16>(sparse_columns);
      bool wrong = false;
      if (in(unrolled, channels)) {
        wrong = !half || !bfloat16 || !other || !other_direct;
      } else {
        wrong = other_direct ||
                (in(other_wins, channels) && !other) ||
                (in(other_loses, channels) && other) ||
                (in(half_wins, channels) && !half) ||
                (in(half_loses, channels) && half) ||
                (up_sampled && !bfloat16) ||
                (!up_sampled && (channels >= 5 && channels <= 7) && bfloat16) ||
                (!up_sampled && (channels >= 12 && channels <= 15) && bfloat16) ||
                (!up_sampled && (channels == 9 || channels == 10 || channels >= 16) &&
                 !bfloat16);
      }
      Expect(!wrong, "ForwardGainsFromAvx512, %lld channels, up-sampled %d",
             static_cast<long long>(channels), up_sampled);
    }
  }
}

// The gradient's AVX-512 rule against what was measured: bfloat16 as fast or
// faster with it, half and float32 not (docs/cpu_performance.md).
BILINEAR_TEST(GradAvx512Rule) {
  Expect(kHasGradAvx512Path<Bfloat16>, "the bfloat16 gradient has no AVX-512 path");
  Expect(!kHasGradAvx512Path<Float16>, "the half gradient has an AVX-512 path");
  Expect(!kHasGradAvx512Path<float> && !kHasGradAvx512Path<double>,
         "a float or double gradient has an AVX-512 path");
}

// DirectPathConvertsFaster against what the C++ driver measured (see its
// comment): for each type pair and direction, the counts where the direct
// path was faster and those where a buffered path was, ties left out.
template <typename T, typename OutT>
void CheckDirectPathRuleFor(const char* name, bool up_sampled,
                            const std::vector<int64_t>& direct_faster,
                            const std::vector<int64_t>& buffered_faster) {
  for (const auto* counts : {&direct_faster, &buffered_faster}) {
    for (const int64_t channels : *counts) {
      Expect(DirectPathConvertsFaster<T, OutT>(channels, up_sampled) ==
                 (counts == &direct_faster),
             "DirectPathConvertsFaster, %s, %lld channels, up-sampled %d", name,
             static_cast<long long>(channels), up_sampled);
    }
  }
}

BILINEAR_TEST(DirectPathRule) {
  CheckDirectPathRuleFor<float, Float16>("float into half", false, {64},
                                         {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 24, 48});
  CheckDirectPathRuleFor<float, Float16>("float into half", true, {},
                                         {9, 10, 12, 13, 16, 17, 24, 32, 48});
  CheckDirectPathRuleFor<float, Bfloat16>("float into bfloat16", false, {32, 64},
                                          {1, 2, 3, 5, 6, 7, 9, 10, 12, 13, 16, 17, 24, 48});
  CheckDirectPathRuleFor<float, Bfloat16>("float into bfloat16", true, {32, 64},
                                          {9, 10, 12, 13, 16, 17, 24});
  CheckDirectPathRuleFor<uint8_t, float>("uint8 into float", false, {32, 64},
                                         {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 24, 48});
  CheckDirectPathRuleFor<int16_t, float>("int16 into float", false, {16, 17, 32, 48, 64},
                                         {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13});
  CheckDirectPathRuleFor<uint8_t, Float16>("uint8 into half", false, {},
                                           {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 16, 17, 24, 32, 48});
  CheckDirectPathRuleFor<uint8_t, Bfloat16>("uint8 into bfloat16", false, {64},
                                            {4, 16, 17, 24, 32, 48});
  CheckDirectPathRuleFor<int16_t, Float16>("int16 into half", false, {64},
                                           {8, 16, 17, 24, 48});
  for (const int64_t channels : {9, 10, 12, 13, 16, 17, 24, 32, 48, 64}) {
    CheckDirectPathRuleFor<uint8_t, Float16>("uint8 into half", true, {}, {channels});
    CheckDirectPathRuleFor<uint8_t, Bfloat16>("uint8 into bfloat16", true, {}, {channels});
  }
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
