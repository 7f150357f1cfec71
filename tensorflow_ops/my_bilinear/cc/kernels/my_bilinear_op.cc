// CPU kernel of MyBilinear: validates, allocates, and hands row ranges of the
// output to the TensorFlow-free math in bilinear_resize.h (on TF's thread pool
// when the output is large enough to gain from it).
#include <cstdint>

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_cpu_dispatch.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_validation.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_weights.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::register_kernel::Name;

// Images of type T resized into an output of type OutT (see the op's out_type).
template <typename T, typename OutT>
class MyBilinearOp : public BilinearOpKernel {
 public:
  explicit MyBilinearOp(OpKernelConstruction* context)
      : BilinearOpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& images = context->input(0);
    bilinear::ResizeGeometry geometry;
    Tensor* output = nullptr;
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
    bilinear::ForRowRanges<kSixteenBit>(
        context, rows, output->NumElements(), [&](int64_t begin_row, int64_t end_row) {
          bilinear::ResizeRows(geometry, input_data, begin_row, end_row,
                               output_data, stores);
        });
  }
};

#define REGISTER_MY_BILINEAR_CPU(T, OutT)                                   \
  REGISTER_KERNEL_BUILDER(Name("MyBilinear")                                \
                              .Device(DEVICE_CPU)                           \
                              .TypeConstraint<T>("T")                       \
                              .TypeConstraint<OutT>("out_type"),            \
                          MyBilinearOp<T, OutT>);

// Every image type into every output type.
#define REGISTER_MY_BILINEAR_CPU_FOR_IMAGES(T)           \
  REGISTER_MY_BILINEAR_CPU(T, Eigen::half)               \
  REGISTER_MY_BILINEAR_CPU(T, ::tensorflow::bfloat16)    \
  REGISTER_MY_BILINEAR_CPU(T, float)                     \
  REGISTER_MY_BILINEAR_CPU(T, double)

TF_CALL_int8(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_uint8(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_int16(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_uint16(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_int32(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_int64(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_half(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_float(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);
TF_CALL_double(REGISTER_MY_BILINEAR_CPU_FOR_IMAGES);

#undef REGISTER_MY_BILINEAR_CPU_FOR_IMAGES
#undef REGISTER_MY_BILINEAR_CPU

}  // namespace
}  // namespace tensorflow_ops

// The CPU path of this process's kernels, for diagnosis and tests (through
// ctypes): 0 baseline x86-64, 1 AVX2/FMA/F16C, 2 AVX-512 for 16-bit types.
extern "C" __attribute__((visibility("default"))) int
TensorflowOpsMyBilinearCpuPath() {
  return static_cast<int>(tensorflow_ops::bilinear::WidestCpuPath());
}

// The last-level cache size, in bytes, that decides when the kernels stream
// their output (bilinear_streaming_stores.h), for tests (through ctypes).
extern "C" __attribute__((visibility("default"))) int64_t
TensorflowOpsMyBilinearLastLevelCacheBytes() {
  return tensorflow_ops::bilinear::LastLevelCacheBytes();
}
