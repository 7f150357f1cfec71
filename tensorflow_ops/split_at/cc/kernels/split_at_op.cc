// CPU kernel of SplitAt: checks both inputs, allocates both outputs, and calls
// the math in split_at.h.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow_ops/split_at/cc/kernels/split_at.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernel;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::TensorShape;
using ::tensorflow::TensorShapeUtils;
using ::tensorflow::register_kernel::Name;

// The shape function checks these only for what is known when the graph is
// built; eager calls and unknown shapes or values are checked here.
absl::Status ValidateSplitAtInputs(const Tensor& values, const Tensor& index) {
  if (!TensorShapeUtils::IsVector(values.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "values must be 1-D, got shape ", values.shape().DebugString()));
  }
  if (!TensorShapeUtils::IsScalar(index.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index must be a scalar, got shape ", index.shape().DebugString()));
  }
  const int64_t split = index.scalar<int32_t>()();
  const int64_t length = values.dim_size(0);
  if (split < 0 || split > length) {
    return absl::InvalidArgumentError(
        absl::StrCat("index ", split, " is out of range [0, ", length,
                     "] for values of length ", length));
  }
  return absl::OkStatus();
}

template <typename T>
class SplitAtOp : public OpKernel {
 public:
  explicit SplitAtOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& values = context->input(0);
    const Tensor& index = context->input(1);
    OP_REQUIRES_OK(context, ValidateSplitAtInputs(values, index));
    const int64_t length = values.dim_size(0);
    const int64_t split = index.scalar<int32_t>()();

    Tensor* head = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, TensorShape({split}), &head));
    Tensor* tail = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(
                                1, TensorShape({length - split}), &tail));
    split_at::SplitAt(values.flat<T>().data(), length, split,
                      head->flat<T>().data(), tail->flat<T>().data());
  }
};

#define REGISTER_SPLIT_AT_CPU(T)                                          \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("SplitAt").Device(DEVICE_CPU).TypeConstraint<T>("T"),          \
      SplitAtOp<T>);

REGISTER_SPLIT_AT_CPU(float);
REGISTER_SPLIT_AT_CPU(double);

#undef REGISTER_SPLIT_AT_CPU

}  // namespace
}  // namespace tensorflow_ops
