// CPU kernel of MyBilinearGrad: validates, allocates, and hands ranges of input
// rows to the TensorFlow-free gather in bilinear_resize_grad.h on TF's thread pool.
// Each input row is computed by one thread in a fixed order, so the result is
// bitwise identical for any number of threads.
#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_dispatch.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;

template <typename T>
class MyBilinearGradOp : public BilinearOpKernel {
 public:
  explicit MyBilinearGradOp(OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& grads = context->input(0);
    bilinear::ResizeGeometry geometry;
    Tensor* images_grad = nullptr;
    OP_REQUIRES_OK(context, ValidateAndAllocateResizeGrad(context, &geometry,
                                                          &images_grad));
    if (images_grad->NumElements() == 0) return;

    const auto* grads_data = bilinear::AsStorage(grads.flat<T>().data());
    auto* images_grad_data = bilinear::AsStorage(images_grad->flat<T>().data());
    const int64_t rows = geometry.batch * geometry.in_height;
    bilinear::ForRowRanges<bilinear::kIsSixteenBitFloat<T>>(
        context, rows, grads.NumElements() + images_grad->NumElements(),
        [&](int64_t begin_row, int64_t end_row) {
          bilinear::ResizeGradRows(geometry, grads_data, begin_row, end_row,
                                   images_grad_data);
        });
  }
};

#define REGISTER_MY_BILINEAR_GRAD_CPU(T)                                    \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("MyBilinearGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      MyBilinearGradOp<T>);

TF_CALL_half(REGISTER_MY_BILINEAR_GRAD_CPU);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_GRAD_CPU);
TF_CALL_float(REGISTER_MY_BILINEAR_GRAD_CPU);
TF_CALL_double(REGISTER_MY_BILINEAR_GRAD_CPU);

#undef REGISTER_MY_BILINEAR_GRAD_CPU

}  // namespace
}  // namespace tensorflow_ops
