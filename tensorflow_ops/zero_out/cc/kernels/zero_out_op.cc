// CPU kernel of ZeroOut: checks the input, allocates, and calls the math in
// zero_out.h.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow_ops/zero_out/cc/kernels/zero_out.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernel;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::TensorShapeUtils;
using ::tensorflow::register_kernel::Name;

template <typename T>
class ZeroOutOp : public OpKernel {
 public:
  explicit ZeroOutOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input = context->input(0);
    // The shape function checks this only where the rank is known when the
    // graph is built; a direct eager call or an unknown shape reaches here.
    OP_REQUIRES(context, TensorShapeUtils::IsVector(input.shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "to_zero must be 1-D, got shape ",
                    input.shape().DebugString())));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context,
                   context->allocate_output(0, input.shape(), &output));
    zero_out::ZeroOut(input.flat<T>().data(), input.NumElements(),
                      output->flat<T>().data());
  }
};

REGISTER_KERNEL_BUILDER(
    Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    ZeroOutOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("ZeroOut").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    ZeroOutOp<float>);

}  // namespace
}  // namespace tensorflow_ops
