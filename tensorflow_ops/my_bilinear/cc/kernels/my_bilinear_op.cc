// MyBilinear's CPU kernels, of float images (half, bfloat16, float, double)
// and of integer images, read directly (no cast pass), as TensorFlow's
// ResizeBilinear accepts them; and the library's CPU diagnostics.
#include <cstdint>

#include "tensorflow/core/framework/register_types.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_functors.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::register_kernel::Name;

TF_CALL_half(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_bfloat16(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_float(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_double(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int8(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_uint8(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int16(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_uint16(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int32(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);
TF_CALL_int64(MY_BILINEAR_REGISTER_CPU_FOR_IMAGES);

}  // namespace
}  // namespace tensorflow_ops

// The CPU path of this process's kernels, for diagnosis and tests (through
// ctypes): 0 baseline x86-64, 1 AVX2/FMA/F16C, 2 AVX-512 (taken by the forward
// passes of 16-bit types and the bfloat16 gradient).
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
