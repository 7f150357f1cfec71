// The CUDA kernels of MyBilinear and MyBilinearGrad, instantiated once for
// every type the op registers on a GPU: the launchers that
// bilinear_gpu_launchers.h declares, compiled once (the gpu_srcs of
// :bilinear_math_instances) and linked into the op library and the JAX FFI
// library alike.
//
// TensorFlow-free: nvcc, whose device and host passes each parse the whole
// file, reads the math's headers and CUDA's, not TensorFlow's
// (docs/gpu.md#how-the-gpu-kernels-build).
#if GOOGLE_CUDA

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_launchers.h"

namespace tensorflow_ops {
namespace bilinear {

template <typename T, typename OutT>
cudaError_t GpuResize<T, OutT>::Launch(const ResizeGeometry& geometry, const T* images,
                                       OutT* output, cudaStream_t stream) {
  return LaunchResize(geometry, images, output, stream);
}

template <typename T>
cudaError_t GpuResizeGrad<T>::Launch(const ResizeGeometry& geometry, const T* grads,
                                     AccumulatorType<T>* partial, T* images_grad,
                                     cudaStream_t stream) {
  return LaunchResizeGrad(geometry, grads, partial, images_grad, stream);
}

#define MY_BILINEAR_DEFINE_GPU_RESIZE(T, OutT) template struct GpuResize<T, OutT>;
#define MY_BILINEAR_DEFINE_GPU_RESIZE_GRAD(T) template struct GpuResizeGrad<T>;
MY_BILINEAR_GPU_RESIZE_INSTANCES(MY_BILINEAR_DEFINE_GPU_RESIZE)
MY_BILINEAR_GPU_GRAD_INSTANCES(MY_BILINEAR_DEFINE_GPU_RESIZE_GRAD)
#undef MY_BILINEAR_DEFINE_GPU_RESIZE
#undef MY_BILINEAR_DEFINE_GPU_RESIZE_GRAD

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // GOOGLE_CUDA
