// MyBilinearGrad's CPU kernels; the functor that does the work is in
// my_bilinear_cpu_functors.h.
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_functors.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::register_kernel::Name;

#define REGISTER_MY_BILINEAR_GRAD_CPU(T)                                \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("MyBilinearGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MyBilinearGradOp<CpuDevice, T>);

TF_CALL_half(REGISTER_MY_BILINEAR_GRAD_CPU);
TF_CALL_bfloat16(REGISTER_MY_BILINEAR_GRAD_CPU);
TF_CALL_float(REGISTER_MY_BILINEAR_GRAD_CPU);
TF_CALL_double(REGISTER_MY_BILINEAR_GRAD_CPU);

#undef REGISTER_MY_BILINEAR_GRAD_CPU

}  // namespace
}  // namespace tensorflow_ops
