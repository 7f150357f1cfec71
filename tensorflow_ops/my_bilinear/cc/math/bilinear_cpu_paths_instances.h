// The definitions of bilinear_cpu_paths.h's forward entry points, and the
// macros with which the sources in instances/ compile them, one source per
// image type; the gradient's are in bilinear_grad_cpu_paths_instances.h, so
// that a change to the gradient's math recompiles only its sources.
//
// TensorFlow-free. Only those sources include this header: anything else that
// did would compile the math again.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CPU_PATHS_INSTANCES_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CPU_PATHS_INSTANCES_H_

#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

template <CpuPath kPath, typename T, typename OutT>
void ResizeRowsOnPath(const ResizeGeometry& g, const T* images, int64_t begin_row,
                      int64_t end_row, OutT* output, OutputStores stores) {
  ResizeRows(g, images, begin_row, end_row, output, stores, RunCompiledFor<kPath>());
}

template <typename T, typename OutT>
void ResizeRowsOnBestPath(const ResizeGeometry& g, const T* images,
                          int64_t begin_row, int64_t end_row, OutT* output,
                          OutputStores stores) {
#if BILINEAR_HAS_AVX2_PATH
  constexpr bool kAvx512 = kHasAvx512Path<T, OutT>;
  const CpuPath path = BestCpuPath<kAvx512>(ForwardGainsFromAvx512<T, OutT>(g));
  if constexpr (kAvx512) {
    if (path == CpuPath::kAvx512) {
      return ResizeRowsOnPath<CpuPath::kAvx512>(g, images, begin_row, end_row,
                                                output, stores);
    }
  }
  if (path == CpuPath::kAvx2) {
    return ResizeRowsOnPath<CpuPath::kAvx2>(g, images, begin_row, end_row, output,
                                            stores);
  }
#endif
  ResizeRowsOnPath<CpuPath::kBaseline>(g, images, begin_row, end_row, output, stores);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

// The forward kernels of T images into every output type, used at global
// scope: ResizeRowsOnBestPath compiles, with itself, each path it may call
// (baseline, AVX2, and AVX-512 where kHasAvx512Path), so the set of paths is
// stated once, there.
#define BILINEAR_RESIZE_ON_BEST_PATH(T, OutT)                                \
  template void ::tensorflow_ops::bilinear::ResizeRowsOnBestPath<T, OutT>(   \
      const ::tensorflow_ops::bilinear::ResizeGeometry&, const T*, int64_t, \
      int64_t, OutT*, ::tensorflow_ops::bilinear::OutputStores);

#define BILINEAR_RESIZE_IMAGES(T)                                       \
  BILINEAR_RESIZE_ON_BEST_PATH(T, ::tensorflow_ops::bilinear::Float16)  \
  BILINEAR_RESIZE_ON_BEST_PATH(T, ::tensorflow_ops::bilinear::Bfloat16) \
  BILINEAR_RESIZE_ON_BEST_PATH(T, float)                                \
  BILINEAR_RESIZE_ON_BEST_PATH(T, double)

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CPU_PATHS_INSTANCES_H_
