// The definition of bilinear_cpu_paths.h's gradient entry point per CPU path,
// and the macros with which the sources in instances/ compile it, one source
// per type and path (the 16-bit gradients are the biggest compiles).
//
// TensorFlow-free. Only those sources include this header: anything else that
// did would compile the math again.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_CPU_PATHS_INSTANCES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_CPU_PATHS_INSTANCES_H_

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

template <CpuPath kPath, typename T>
void ResizeGradRowsOnPath(const ResizeGeometry& g, const T* grads,
                          int64_t begin_row, int64_t end_row, T* images_grad,
                          OutputStores stores) {
  // Each of ResizeGradRows' instances inlined into a function of its own.
  WithGradChannels(g.channels, [&](auto channels) {
    RunOnPath<kPath>([&] {
      ResizeGradRowsOf<T, decltype(channels)::value>(g, grads, begin_row, end_row,
                                                     images_grad, stores);
    });
  });
}

}  // namespace bilinear
}  // namespace tensorflow_ops

// ResizeGradRowsOnPath of T on `path` (kBaseline, kAvx2, or kAvx512 where
// kHasGradAvx512Path: an AVX-512 instance that ResizeGradRowsOnBestPath never
// calls does not compile). Used at global scope.
#define BILINEAR_RESIZE_GRAD_ON_PATH(path, T)                                 \
  static_assert(::tensorflow_ops::bilinear::CpuPath::path !=                  \
                        ::tensorflow_ops::bilinear::CpuPath::kAvx512 ||       \
                    ::tensorflow_ops::bilinear::kHasGradAvx512Path<T>,        \
                "the gradient of this type has no AVX-512 path");             \
  template void ::tensorflow_ops::bilinear::ResizeGradRowsOnPath<             \
      ::tensorflow_ops::bilinear::CpuPath::path, T>(                          \
      const ::tensorflow_ops::bilinear::ResizeGeometry&, const T*, int64_t,  \
      int64_t, T*, ::tensorflow_ops::bilinear::OutputStores);

// The paths a build has: baseline everywhere; AVX2 and AVX-512 where
// bilinear_cpu_features.h has them (GCC on x86-64).
#if BILINEAR_HAS_AVX2_PATH
#define BILINEAR_RESIZE_GRAD_ON_WIDE_PATH(path, T) BILINEAR_RESIZE_GRAD_ON_PATH(path, T)
#else
#define BILINEAR_RESIZE_GRAD_ON_WIDE_PATH(path, T)
#endif

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_CPU_PATHS_INSTANCES_H_
