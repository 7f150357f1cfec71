// Standalone test of the TensorFlow-free math of OpTemplate (no TensorFlow, no
// gtest): lengths 0 to 9, float and double, each split into two ranges as the
// CPU kernel's threads split it, against a plain double reference, with
// canaries around the output that must survive (a write out of bounds would
// overwrite them).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "tensorflow_ops/op_template/cc/math/op_template_ranges.h"

namespace tensorflow_ops {
namespace op_template {
namespace {

constexpr int64_t kGuard = 8;
constexpr double kCanary = -12345.0;

// TODO(you): your op's math, written plainly in double.
double Reference(double x, double scale) { return scale * x; }
// --grad: begin

// TODO(you): the derivative of your math, written plainly in double.
double GradReference(double grad, double /*x*/, double scale) {
  return scale * grad;
}
// --grad: end

// Relative error of one rounding to T, with room for a few operations.
template <typename T>
double Tolerance() {
  return sizeof(T) == sizeof(float) ? 1e-6 : 1e-14;
}

bool Close(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * (1.0 + std::fabs(want));
}

// Runs `run(begin, end, out)` over [0, split) and [split, size) of an output
// between canaries; false if a canary changed.
template <typename T, typename Run>
bool RunInTwoRanges(int64_t size, Run run, std::vector<T>* out) {
  std::vector<T> buffer(size + 2 * kGuard, static_cast<T>(kCanary));
  const int64_t split = size / 3;
  run(0, split, buffer.data() + kGuard);
  run(split, size, buffer.data() + kGuard);
  out->assign(buffer.begin() + kGuard, buffer.begin() + kGuard + size);
  for (int64_t i = 0; i < kGuard; ++i) {
    if (buffer[i] != static_cast<T>(kCanary) ||
        buffer[kGuard + size + i] != static_cast<T>(kCanary)) {
      return false;
    }
  }
  return true;
}

template <typename T>
int CheckLengths(const char* type_name) {
  int failures = 0;
  for (const float scale : {2.5f, -0.1f, 0.0f}) {
    for (int64_t size = 0; size < 10; ++size) {
      std::vector<T> x(size);
      for (int64_t i = 0; i < size; ++i) x[i] = static_cast<T>(0.75 * i - 3.0);
      auto range = [&](int64_t begin, int64_t end, T* out) {
        OpTemplateRange(x.data(), scale, begin, end, out);
      };
      std::vector<T> y;
      bool ok = RunInTwoRanges<T>(size, range, &y);
      for (int64_t i = 0; i < size; ++i) {
        ok = ok && Close(y[i], Reference(x[i], scale), Tolerance<T>());
      }
      // --grad: begin
      std::vector<T> grads(size);
      for (int64_t i = 0; i < size; ++i) {
        grads[i] = static_cast<T>(1.5 - 0.5 * i);
      }
      auto grad_range = [&](int64_t begin, int64_t end, T* out) {
        OpTemplateGradRange(grads.data(), x.data(), scale, begin, end, out);
      };
      std::vector<T> x_grad;
      ok = RunInTwoRanges<T>(size, grad_range, &x_grad) && ok;
      for (int64_t i = 0; i < size; ++i) {
        ok = ok && Close(x_grad[i], GradReference(grads[i], x[i], scale),
                         Tolerance<T>());
      }
      // --grad: end
      if (!ok) {
        std::printf("FAIL %s size %lld scale %g\n", type_name,
                    static_cast<long long>(size), scale);
        ++failures;
      }
    }
  }
  return failures;
}

}  // namespace
}  // namespace op_template
}  // namespace tensorflow_ops

int main() {
  using tensorflow_ops::op_template::CheckLengths;
  const int failures =
      CheckLengths<float>("float") + CheckLengths<double>("double");
  std::printf("%s\n", failures == 0 ? "PASS" : "FAILED");
  return failures == 0 ? 0 : 1;
}
