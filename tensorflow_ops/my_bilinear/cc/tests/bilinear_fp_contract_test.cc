// The resize math stays bitwise equal to TensorFlow's float arithmetic when it
// is compiled with FMA instructions enabled.
//
// Built with -mfma on top of the op libraries' flags (tf_cc_test), and with
// -fexpensive-optimizations, the pass that fuses, which the ASan config's -O1
// turns off. Without -ffp-contract=off among those flags, GCC fuses
// `a + (b - a) * t` into one multiply-add, which rounds once where TensorFlow
// rounds twice, and this test fails. The reference rounds every product explicitly, so no compiler
// setting can fuse it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

#ifndef __FMA__
#error "bilinear_fp_contract_test must be compiled with -mfma"
#endif

namespace tensorflow_ops {
namespace bilinear {
namespace {

// A float product, rounded to float before anything else happens to it: the
// volatile store cannot be fused with the add that follows.
float RoundedProduct(float a, float b) {
  volatile float product = a * b;
  return product;
}

float ReferenceLerp(float from, float to, float t) {
  return from + RoundedProduct(to - from, t);
}

// TensorFlow's source coordinate of output index i, every step rounded.
float ReferenceCoordinate(int64_t i, int64_t in, int64_t out, bool ac, bool hp) {
  const float scale = (ac && out > 1) ? float(in - 1) / float(out - 1)
                                      : float(in) / float(out);
  return hp ? RoundedProduct(float(i) + 0.5f, scale) - 0.5f
            : RoundedProduct(float(i), scale);
}

std::vector<float> ReferenceResize(const ResizeGeometry& g,
                                   const std::vector<float>& x) {
  std::vector<float> out(g.batch * g.out_height * g.out_width * g.channels);
  auto clamp = [](int64_t v, int64_t size) {
    return v < 0 ? 0 : (v > size - 1 ? size - 1 : v);
  };
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t y = 0; y < g.out_height; ++y) {
      const float in_y = ReferenceCoordinate(y, g.in_height, g.out_height,
                                             g.align_corners, g.half_pixel_centers);
      const int64_t top = clamp(int64_t(std::floor(in_y)), g.in_height);
      const int64_t bottom = clamp(int64_t(std::ceil(in_y)), g.in_height);
      const float y_lerp = in_y - std::floor(in_y);
      for (int64_t xo = 0; xo < g.out_width; ++xo) {
        const float in_x = ReferenceCoordinate(xo, g.in_width, g.out_width,
                                               g.align_corners, g.half_pixel_centers);
        const int64_t left = clamp(int64_t(std::floor(in_x)), g.in_width);
        const int64_t right = clamp(int64_t(std::ceil(in_x)), g.in_width);
        const float x_lerp = in_x - std::floor(in_x);
        for (int64_t c = 0; c < g.channels; ++c) {
          auto at = [&](int64_t yy, int64_t xx) {
            return x[((b * g.in_height + yy) * g.in_width + xx) * g.channels + c];
          };
          const float top_value = ReferenceLerp(at(top, left), at(top, right), x_lerp);
          const float bottom_value =
              ReferenceLerp(at(bottom, left), at(bottom, right), x_lerp);
          out[((b * g.out_height + y) * g.out_width + xo) * g.channels + c] =
              ReferenceLerp(top_value, bottom_value, y_lerp);
        }
      }
    }
  return out;
}

// A CPU without FMA cannot run the check, which fails then: passing would
// claim an exactness nothing checked.
BILINEAR_TEST(BitwiseEqualWithFma) {
  if (!__builtin_cpu_supports("fma")) {
    CannotRun("this CPU has no FMA instructions");
  }
  std::mt19937 rng(20261130);
  std::uniform_real_distribution<float> uniform(-1, 1);
  const int64_t sizes[][4] = {{5, 7, 9, 4},   {8, 8, 3, 5},   {3, 4, 11, 13},
                              {13, 9, 6, 10}, {2, 17, 7, 3},  {10, 10, 21, 19},
                              {1, 6, 4, 9},   {33, 30, 32, 29}, {4, 4, 7, 7}};
  int geometries = 0, differing = 0;
  for (const auto& s : sizes)
    for (const int64_t channels : {1, 3, 4}) {
      ForEachAttrMode(1, s[0], s[1], s[2], s[3], channels, [&](const ResizeGeometry& g) {
        std::vector<float> x(g.in_height * g.in_width * channels);
        for (float& v : x) v = uniform(rng);
        std::vector<float> resized(g.out_height * g.out_width * channels);
        ResizeRows(g, x.data(), 0, g.out_height, resized.data());
        const std::vector<float> expected = ReferenceResize(g, x);
        ++geometries;
        if (std::memcmp(resized.data(), expected.data(),
                        expected.size() * sizeof(float)) != 0) {
          ++differing;
          Fail("%s differs", Describe(g).c_str());
        }
      });
    }
  std::printf("%d of %d geometries differ from the reference\n", differing, geometries);
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
