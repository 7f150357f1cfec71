// Standalone test of the TensorFlow-free bilinear math (no TensorFlow, no gtest):
// 16-bit and integer images, and float images into 16-bit output, give the bits
// of the same values resized as float, then rounded to the output type.
//
// Apart from bilinear_math_test.cc, which resizes float and double, because
// under the sanitizers their one file was the longest compile: as two, the
// two cores share it (docs/testing.md#fuzzing-and-sanitizers).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// Random values of T: halves and bfloat16s of floats in [-300, 300), or
// integers over T's whole range.
template <typename T>
std::vector<T> RandomImageValues(int64_t count, std::mt19937* rng) {
  std::vector<T> values(count);
  if constexpr (std::is_integral<T>::value) {
    std::uniform_int_distribution<int64_t> value(std::numeric_limits<T>::min(),
                                                 std::numeric_limits<T>::max());
    for (T& v : values) v = static_cast<T>(value(*rng));
  } else {
    std::uniform_real_distribution<float> value(-300.0f, 300.0f);
    for (T& v : values) v = T(value(*rng));
  }
  return values;
}

// Images or output of another type than the accumulator (16-bit floats and
// integers, float images into 16-bit output) give the bits of the same values
// resized as float, then rounded to OutT: whether they are converted a span
// or a row at a time (the row-reusing path, its blocks narrowed to fit the
// span's buffer, and the span path), or value by value as they are read and
// written (past kMaxSpanPixelsPerColumn input pixels per column, more
// channels than a row buffer holds, and the counts where the direct path
// converts faster). Rows are split at random, as threads split them.
template <typename T, typename OutT>
void CheckConvertedImagesOf(const char* type_name, std::mt19937* rng) {
  const int64_t shapes[][5] = {
      // in_h, in_w, out_h, out_w, channels
      {5, 7, 9, 4, 3},        // up-sampling rows
      {9, 2600, 4, 1300, 3},  // down-sampling, blocks narrowed to the span
      {6, 700, 3, 330, 16},   // narrowed blocks of 16 channels
      {4, 5000, 2, 200, 3},   // 25 pixels per column: value by value
      {4, 300, 4, 700, 4},    // equal heights, widening
      {3, 2100, 3, 1100, 5},  // equal heights, narrowing
      {4, 9, 2, 5, 4100},     // more channels than a row buffer
      {5, 40, 2, 17, 1},      // channel counts each path takes, by type
      {5, 40, 2, 17, 2},
      {5, 40, 2, 17, 8},
      {5, 40, 2, 17, 9},
      {5, 40, 2, 17, 16},
      {5, 40, 2, 17, 33},
      {4, 30, 2, 17, 64},
      {3, 20, 5, 17, 9},
      {3, 20, 5, 17, 32},
  };
  int64_t geometries = 0;
  for (const auto& s : shapes) {
    ForEachAttrMode(2, s[0], s[1], s[2], s[3], s[4], [&](const ResizeGeometry& g) {
      const int64_t in_size = g.batch * g.in_height * g.in_width * g.channels;
      const int64_t out_size = g.batch * g.out_height * g.out_width * g.channels;
      const int64_t rows = g.batch * g.out_height;
      const std::vector<T> images = RandomImageValues<T>(in_size, rng);
      std::vector<float> as_float(in_size);
      for (int64_t i = 0; i < in_size; ++i) as_float[i] = static_cast<float>(images[i]);
      std::vector<float> from_floats(out_size);
      ResizeRows(g, as_float.data(), 0, rows, from_floats.data());
      std::vector<OutT> expected(out_size), result(out_size);
      for (int64_t i = 0; i < out_size; ++i) expected[i] = static_cast<OutT>(from_floats[i]);
      const int64_t split = std::uniform_int_distribution<int64_t>(0, rows)(*rng);
      ResizeRows(g, images.data(), 0, split, result.data());
      ResizeRows(g, images.data(), split, rows, result.data());
      if (std::memcmp(result.data(), expected.data(), out_size * sizeof(OutT)) != 0) {
        Fail("%s images differ from float's, rows split at %lld: %s", type_name,
             static_cast<long long>(split), Describe(g).c_str());
      }
      ++geometries;
    });
  }
  std::printf("checked %lld geometries of %s images\n",
              static_cast<long long>(geometries), type_name);
}

BILINEAR_TEST(ConvertedImages) {
  std::mt19937 rng(7);
  CheckConvertedImagesOf<Float16, Float16>("half", &rng);
  CheckConvertedImagesOf<Bfloat16, Bfloat16>("bfloat16", &rng);
  CheckConvertedImagesOf<uint8_t, float>("uint8", &rng);
  CheckConvertedImagesOf<int16_t, float>("int16", &rng);
  CheckConvertedImagesOf<int64_t, float>("int64", &rng);
  CheckConvertedImagesOf<float, Float16>("float into half", &rng);
  CheckConvertedImagesOf<float, Bfloat16>("float into bfloat16", &rng);
  CheckConvertedImagesOf<uint8_t, Float16>("uint8 into half", &rng);
  CheckConvertedImagesOf<int16_t, Bfloat16>("int16 into bfloat16", &rng);
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
