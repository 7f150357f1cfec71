"""The C++ files of a generated op (see tools/new_op.py); those of its GPU
kernels are in tools/new_op_gpu.py.

The op is an element-wise scaled copy, y = scale * x, with a float attr
`scale`; its gradient op computes scale * grads. Each template is the text of
one file with $-placeholders (tools/new_op_names.py); parts that depend on
--grad and --gpu are joined in by the functions below.
"""

from typing import Dict

from tools import new_op_cc_tests as cc_tests
from tools import new_op_layout
from tools.new_op_names import OpNames

_OPS_CC = """\
// Op registrations of $Op$and_grad_op, with their shape functions. The kernels
// live in ../kernels; this file only describes the interface.
#include "absl/status/status.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::shape_inference::InferenceContext;
$shape_handle
// y has the shape of x.
// TODO(you): your output's shape, from the input shapes (and, for inputs whose
// values are known when the graph is built, from c->input_tensor(i)). Keep it
// in step with what the kernel allocates.
absl::Status ${Op}Shape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}
$grad_shape
}  // namespace

// TODO(you): your op's inputs, outputs, attrs and documentation.
REGISTER_OP("$Op")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .Attr("scale: float = 1.0")
    .SetShapeFn(${Op}Shape)
    .Doc(R"doc(
Multiplies every element of a tensor by a constant: y = scale * x.

x: A tensor of any shape.
y: scale * x, with the shape and dtype of x.
scale: A finite number.
)doc");
$grad_op
}  // namespace tensorflow_ops
"""

_GRAD_SHAPE = """
// x_grad has the shape of x, which grads must have too: a mismatch known when
// the graph is built fails here already.
absl::Status ${OpGrad}Shape(InferenceContext* c) {
  ShapeHandle shape;
  TF_RETURN_IF_ERROR(c->Merge(c->input(0), c->input(1), &shape));
  c->set_output(0, shape);
  return absl::OkStatus();
}
"""

_GRAD_OP = """
REGISTER_OP("$OpGrad")
    .Input("grads: T")
    .Input("x: T")
    .Output("x_grad: T")
    .Attr("T: {float, double}")
    .Attr("scale: float = 1.0")
    .SetShapeFn(${OpGrad}Shape)
    .Doc(R"doc(
Computes the gradient of $Op with respect to x.

grads: The gradient of the loss with respect to $Op's output y.
x: $Op's input, of the shape of grads.
x_grad: The gradient of the loss with respect to x: scale * grads.
scale: The scale of the $Op being differentiated.
)doc");
"""

_MATH_H = """\
// $Op's math, free of TensorFlow, so that a plain C++ test can run it$and_cuda.
#ifndef ${guard}_H_
#define ${guard}_H_

#include <cstdint>
$host_device
namespace tensorflow_ops {
namespace $name {

// One element of $Op.
// TODO(you): your op's math, for one element.
template <typename T>
${element_prefix}T ${Op}Element(T x, float scale) {
  return static_cast<T>(scale) * x;
}
$grad_element
// $Op of elements [begin, end) of `x` into `y`: the CPU kernel hands each of
// its threads one such range.
template <typename T>
void ${Op}Range(const T* x, float scale, int64_t begin, int64_t end, T* y) {
  for (int64_t i = begin; i < end; ++i) y[i] = ${Op}Element(x[i], scale);
}
$grad_range
}  // namespace $name
}  // namespace tensorflow_ops

#endif  // ${guard}_H_
"""

_HOST_DEVICE = """
// Functions that the CUDA kernels call too are __host__ __device__ under nvcc,
// plain functions for the host compiler.
#if defined(__CUDACC__)
#define $HOST_DEVICE __host__ __device__
#else
#define $HOST_DEVICE
#endif
"""

_GRAD_ELEMENT = """
// One element of $OpGrad: the gradient with respect to x, from `grad`, the
// gradient with respect to y.
// TODO(you): the derivative of your math. dy/dx = scale does not depend on x,
// so x is unused here; most derivatives read it.
template <typename T>
${element_prefix}T ${OpGrad}Element(T grad, T /*x*/, float scale) {
  return static_cast<T>(scale) * grad;
}
"""

_GRAD_RANGE = """
// $OpGrad of elements [begin, end) into `x_grad`.
template <typename T>
void ${OpGrad}Range(const T* grads, const T* x, float scale,
     ${_OpGrad}      int64_t begin, int64_t end, T* x_grad) {
  for (int64_t i = begin; i < end; ++i) {
    x_grad[i] = ${OpGrad}Element(grads[i], x[i], scale);
  }
}
"""

_VALIDATION_H = """\
// Checks shared by the CPU$and_gpu kernels of $Op$and_grad_op.
//
// Every check returns InvalidArgument naming the bad value, so that a bad call
// (a direct call of the generated op function too, which bypasses the Python
// wrapper) fails cleanly instead of computing garbage.
#ifndef ${guard}_VALIDATION_H_
#define ${guard}_VALIDATION_H_

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
$tensor_shape_include
namespace tensorflow_ops {

// Base of the $Op$and_grad_op kernels: reads and checks the `scale` attr once,
// when the kernel is created, rather than on every call.
class ${Op}OpKernel : public tensorflow::OpKernel {
 protected:
  explicit ${Op}OpKernel(tensorflow::OpKernelConstruction* context);

  float scale() const { return scale_; }

 private:
  float scale_ = 1.0f;
};

// `scale` must be finite.
// TODO(you): the checks of your op's attrs.
absl::Status Validate${Op}Scale(float scale);
$grad_declaration
}  // namespace tensorflow_ops

#endif  // ${guard}_VALIDATION_H_
"""

_GRAD_DECLARATION = """
// $OpGrad: `grads` must have the shape of `x`, since it is the gradient with
// respect to $Op's output, which has that shape.
absl::Status Validate${OpGrad}Shapes(const tensorflow::TensorShape& grads,
                            ${_OpGrad}const tensorflow::TensorShape& x);
"""

_VALIDATION_CC = """\
#include "$folder/cc/kernels/${name}_validation.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
$tensor_shape_include
namespace tensorflow_ops {

${Op}OpKernel::${Op}OpKernel(tensorflow::OpKernelConstruction* context)
    : OpKernel(context) {
  OP_REQUIRES_OK(context, context->GetAttr("scale", &scale_));
  OP_REQUIRES_OK(context, Validate${Op}Scale(scale_));
}

absl::Status Validate${Op}Scale(float scale) {
  // A NaN or infinite scale turns every element into NaN or Inf, which no
  // caller means; refusing it names the mistake where it was made.
  if (!std::isfinite(scale)) {
    return absl::InvalidArgumentError(
        absl::StrCat("scale must be finite, got ", scale));
  }
  return absl::OkStatus();
}
$grad_definition
}  // namespace tensorflow_ops
"""

_GRAD_DEFINITION = """
absl::Status Validate${OpGrad}Shapes(const tensorflow::TensorShape& grads,
                            ${_OpGrad}const tensorflow::TensorShape& x) {
  if (!grads.IsSameSize(x)) {
    return absl::InvalidArgumentError(
        absl::StrCat("grads must have the shape of x, got grads shape ",
                     grads.DebugString(), " and x shape ", x.DebugString()));
  }
  return absl::OkStatus();
}
"""

_CPU_KERNEL = """\
// CPU kernel of $Op: allocates the output and hands ranges of elements to the
// math in $name.h on TensorFlow's thread pool. The attr is checked once, when
// the kernel is created (${Op}OpKernel in ${name}_validation.h).
#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/work_sharder.h"
#include "$folder/cc/kernels/$name.h"
#include "$folder/cc/kernels/${name}_validation.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;

// Rough cycles per element (a load, a multiply, a store), from which Shard
// decides how many threads a tensor is worth: small ones stay on one thread.
// TODO(you): your math's cost per element.
constexpr int64_t kCyclesPerElement = 2;

template <typename T>
class ${Op}Op : public ${Op}OpKernel {
 public:
  explicit ${Op}Op(OpKernelConstruction* context)
      : ${Op}OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& x = context->input(0);
    // TODO(you): check your inputs before allocating (see
    // ${name}_validation.h), and allocate the shape your shape function gives.
    Tensor* y = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &y));
    const int64_t count = x.NumElements();
    if (count == 0) return;

    const T* x_data = x.flat<T>().data();
    T* y_data = y->flat<T>().data();
    const float scale = this->scale();
    auto compute_range = [&](int64_t begin, int64_t end) {
      ${name}::${Op}Range(x_data, scale, begin, end, y_data);
    };
    const auto& workers = *context->device()->tensorflow_cpu_worker_threads();
    tensorflow::Shard(workers.num_threads, workers.workers, count,
                      kCyclesPerElement, compute_range);
  }
};

#define REGISTER_${NAME}_CPU(T)                                       \\
  REGISTER_KERNEL_BUILDER(                                          \\
      Name("$Op").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \\
      ${Op}Op<T>);

REGISTER_${NAME}_CPU(float);
REGISTER_${NAME}_CPU(double);

#undef REGISTER_${NAME}_CPU

}  // namespace
}  // namespace tensorflow_ops
"""

_CPU_GRAD_KERNEL = """\
// CPU kernel of $OpGrad: checks that grads and x agree, allocates, and hands
// ranges of elements to the math in $name.h on TensorFlow's thread pool.
#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/work_sharder.h"
#include "$folder/cc/kernels/$name.h"
#include "$folder/cc/kernels/${name}_validation.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;

// Rough cycles per element (two loads, a multiply, a store), for Shard.
// TODO(you): your derivative's cost per element.
constexpr int64_t kCyclesPerElement = 3;

template <typename T>
class ${OpGrad}Op : public ${Op}OpKernel {
 public:
  explicit ${OpGrad}Op(OpKernelConstruction* context)
      : ${Op}OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& grads = context->input(0);
    const Tensor& x = context->input(1);
    // The shape function checks this only where both shapes are known when
    // the graph is built; eager calls and unknown shapes are checked here.
    OP_REQUIRES_OK(context,
                   Validate${OpGrad}Shapes(grads.shape(), x.shape()));
    Tensor* x_grad = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, x.shape(), &x_grad));
    const int64_t count = x.NumElements();
    if (count == 0) return;

    const T* grads_data = grads.flat<T>().data();
    const T* x_data = x.flat<T>().data();
    T* x_grad_data = x_grad->flat<T>().data();
    const float scale = this->scale();
    auto compute_range = [&](int64_t begin, int64_t end) {
      ${name}::${OpGrad}Range(grads_data, x_data, scale, begin, end,
      ${_name}  ${_OpGrad}      x_grad_data);
    };
    const auto& workers = *context->device()->tensorflow_cpu_worker_threads();
    tensorflow::Shard(workers.num_threads, workers.workers, count,
                      kCyclesPerElement, compute_range);
  }
};

#define REGISTER_${NAME}_GRAD_CPU(T)                                  \\
  REGISTER_KERNEL_BUILDER(                                          \\
      Name("$OpGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \\
      ${OpGrad}Op<T>);

REGISTER_${NAME}_GRAD_CPU(float);
REGISTER_${NAME}_GRAD_CPU(double);

#undef REGISTER_${NAME}_GRAD_CPU

}  // namespace
}  // namespace tensorflow_ops
"""


def cc_files(names: OpNames) -> Dict[str, str]:
    """The C++ files, GPU kernels apart, by path in the op folder."""
    grad, gpu = names.grad, names.gpu
    and_grad_op = " and $OpGrad" if grad else ""
    kernels = "cc/kernels/"
    files = {
        "cc/ops/${name}_ops.cc": names.fill(
            _OPS_CC, and_grad_op=and_grad_op,
            shape_handle=("using ::tensorflow::shape_inference::ShapeHandle;\n"
                          if grad else ""),
            grad_shape=_GRAD_SHAPE if grad else "",
            grad_op=_GRAD_OP if grad else ""),
        kernels + "${name}.h": names.fill(
            _MATH_H,
            and_cuda=" and the CUDA kernels share it" if gpu else "",
            host_device=_HOST_DEVICE if gpu else "",
            element_prefix="$HOST_DEVICE inline " if gpu else "inline ",
            grad_element=_GRAD_ELEMENT if grad else "",
            grad_range=_GRAD_RANGE if grad else ""),
        kernels + "${name}_math_test.cc": names.fill(
            cc_tests.MATH_TEST, grad_reference=cc_tests.GRAD_REFERENCE if grad else "",
            grad_check=cc_tests.GRAD_CHECK if grad else ""),
        kernels + "${name}_validation.h": names.fill(
            _VALIDATION_H, and_gpu=" and GPU" if gpu else "",
            and_grad_op=and_grad_op,
            tensor_shape_include=('#include "tensorflow/core/framework/tensor_shape.h"\n'
                                  if grad else ""),
            grad_declaration=_GRAD_DECLARATION if grad else ""),
        kernels + "${name}_validation.cc": names.fill(
            _VALIDATION_CC,
            tensor_shape_include=('#include "tensorflow/core/framework/tensor_shape.h"\n'
                                  if grad else ""),
            grad_definition=_GRAD_DEFINITION if grad else ""),
        kernels + "${name}_op.cc": names.fill(_CPU_KERNEL),
    }
    if grad:
        files[kernels + "${name}_grad_op.cc"] = names.fill(_CPU_GRAD_KERNEL)
    return {names.fill(path): new_op_layout.tidy_cc(text)
            for path, text in files.items()}
