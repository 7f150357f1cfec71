// OpTemplate's CPU math: a range of elements, which is what each thread of the
// CPU kernels computes. Any split of a tensor into ranges gives the same
// result.
#ifndef TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_RANGES_H_
#define TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_RANGES_H_

#include <cstdint>

#include "tensorflow_ops/op_template/cc/math/op_template_elements.h"

namespace tensorflow_ops {
namespace op_template {

// OpTemplate of elements [begin, end) of `x` into `y`.
template <typename T>
void OpTemplateRange(const T* x, float scale, int64_t begin, int64_t end,
                     T* y) {
  for (int64_t i = begin; i < end; ++i) y[i] = OpTemplateElement(x[i], scale);
}
// --grad: begin

// OpTemplateGrad of elements [begin, end) into `x_grad`.
template <typename T>
void OpTemplateGradRange(const T* grads, const T* x, float scale, int64_t begin,
                         int64_t end, T* x_grad) {
  for (int64_t i = begin; i < end; ++i) {
    x_grad[i] = OpTemplateGradElement(grads[i], x[i], scale);
  }
}
// --grad: end

}  // namespace op_template
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_OP_TEMPLATE_CC_MATH_OP_TEMPLATE_RANGES_H_
