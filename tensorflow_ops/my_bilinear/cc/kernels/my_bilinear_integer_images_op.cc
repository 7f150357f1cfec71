// MyBilinear's CPU kernels of integer images, read directly (no cast pass),
// as TensorFlow's ResizeBilinear accepts them; float images are in
// my_bilinear_op.cc (my_bilinear_cpu_functors.h says why).
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_functors.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::register_kernel::Name;

TF_CALL_int8(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_uint8(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int16(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_uint16(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int32(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int64(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);

}  // namespace
}  // namespace tensorflow_ops
