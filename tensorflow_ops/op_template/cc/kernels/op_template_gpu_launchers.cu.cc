// OpTemplate's CUDA kernels, instantiated once for every type registered on a
// GPU: the launchers that op_template_gpu_launchers.h declares.
//
// TensorFlow-free: nvcc, whose device and host passes each read the whole
// file, reads only the op's math and CUDA's headers (docs/gpu.md).
#if GOOGLE_CUDA

#include "tensorflow_ops/op_template/cc/kernels/op_template_gpu_launchers.h"

#include <cstdint>

#include "tensorflow_ops/op_template/cc/math/op_template_gpu_kernels.cu.h"

namespace tensorflow_ops {
namespace op_template {

template <typename T>
cudaError_t GpuOpTemplate<T>::Launch(const T* x, float scale, int64_t count,
                                     T* y, cudaStream_t stream) {
  return LaunchOpTemplate(x, scale, count, y, stream);
}
// --grad: begin

template <typename T>
cudaError_t GpuOpTemplateGrad<T>::Launch(const T* grads, const T* x,
                                         float scale, int64_t count, T* x_grad,
                                         cudaStream_t stream) {
  return LaunchOpTemplateGrad(grads, x, scale, count, x_grad, stream);
}
// --grad: end

template struct GpuOpTemplate<float>;
template struct GpuOpTemplate<double>;
// --grad: begin
template struct GpuOpTemplateGrad<float>;
template struct GpuOpTemplateGrad<double>;
// --grad: end

}  // namespace op_template
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
