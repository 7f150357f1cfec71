// CPU kernel of MyBilinear: validates, allocates, and hands row ranges of the
// output to the TensorFlow-free math in bilinear_resize.h (on TF's thread pool
// when the output is large enough to gain from it).
//
// Registered by two files, one per family of image types
// (my_bilinear_op.cc: float types; my_bilinear_integer_images_op.cc: integer
// types), so that the library's largest compile, 40 kernels on three CPU
// paths each, runs on two cores instead of one.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_OP_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_OP_H_

#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_dispatch.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {

// Images of type T resized into an output of type OutT (see the op's out_type).
template <typename T, typename OutT>
class MyBilinearOp : public BilinearOpKernel {
 public:
  explicit MyBilinearOp(tensorflow::OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(tensorflow::OpKernelContext* context) override {
    const tensorflow::Tensor& images = context->input(0);
    bilinear::ResizeGeometry geometry;
    tensorflow::Tensor* output = nullptr;
    OP_REQUIRES_OK(context, ValidateAndAllocateResize(context, sizeof(OutT),
                                                      &geometry, &output));
    if (output->NumElements() == 0) return;

    const auto* input_data = bilinear::AsStorage(images.flat<T>().data());
    auto* output_data = bilinear::AsStorage(output->flat<OutT>().data());
    const int64_t rows = geometry.batch * geometry.out_height;
    const bilinear::OutputStores stores =
        bilinear::StoresForOutput(output->TotalBytes(), images.TotalBytes());
    constexpr bool kSixteenBit = bilinear::kIsSixteenBitFloat<T> ||
                                 bilinear::kIsSixteenBitFloat<OutT>;
    // Channel counts read at run time cost about twice as much a value as
    // the unrolled ones (C++ driver, float, one thread: 0.29 to 0.57 ns
    // against 0.21 to 0.23 at 8 and 16 channels), so their rows are split
    // over threads from half as many values.
    const int64_t work_values =
        output->NumElements() *
        (bilinear::IsUnrolledChannelCount(geometry.channels) ? 1 : 2);
    bilinear::ForRowRanges<kSixteenBit>(
        context, rows, work_values,
        [&](int64_t begin_row, int64_t end_row) {
          bilinear::ResizeRows(geometry, input_data, begin_row, end_row,
                               output_data, stores);
        },
        bilinear::ForwardGainsFromAvx512<bilinear::CpuStorageType<T>,
                                         bilinear::CpuStorageType<OutT>>(geometry));
  }
};

}  // namespace tensorflow_ops

// Used where `Name` and `DEVICE_CPU` are in scope (REGISTER_KERNEL_BUILDER
// pastes tokens onto `Name`, so it cannot be qualified).
#define MY_BILINEAR_REGISTER_CPU(T, OutT)                                   \
  REGISTER_KERNEL_BUILDER(Name("MyBilinear")                                \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("T")                       \
                              .TypeConstraint<OutT>("out_type"),            \
                          ::tensorflow_ops::MyBilinearOp<T, OutT>);

// The kernels of images of type T, into every output type.
#define MY_BILINEAR_REGISTER_CPU_FOR_IMAGES(T)        \
  MY_BILINEAR_REGISTER_CPU(T, Eigen::half)            \
  MY_BILINEAR_REGISTER_CPU(T, ::tensorflow::bfloat16) \
  MY_BILINEAR_REGISTER_CPU(T, float)                  \
  MY_BILINEAR_REGISTER_CPU(T, double)

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_OP_H_
