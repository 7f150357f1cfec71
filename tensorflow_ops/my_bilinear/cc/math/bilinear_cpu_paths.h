// The CPU kernels' entry points to the math: ResizeRows and ResizeGradRows
// compiled once per storage type and CPU path, in the instances/ sources, and
// the choice of path per call.
//
// TensorFlow-free. Each path is compiled in a source file of its own per image
// type (instances/), so that a build spreads the library's biggest compiles
// over as many cores as it has, and the kernel sources, which include only
// this header, compile in seconds. Within a path, each of ResizeRows' row
// paths is inlined (flatten) into a function of its own: the same code as one
// function holding all of them, which the compiler takes longer over
// (docs/building.md#compile-times).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CPU_PATHS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CPU_PATHS_H_

#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

template <typename T>
constexpr bool kIsSixteenBit =
    std::is_same<T, Float16>::value || std::is_same<T, Bfloat16>::value;

// Whether a forward kernel of T images into OutT output has an AVX-512 path:
// where either is half or bfloat16 (RunOnPath's AVX-512 function says why).
template <typename T, typename OutT>
constexpr bool kHasAvx512Path = kIsSixteenBit<T> || kIsSixteenBit<OutT>;

// Whether the gradient of T has an AVX-512 path: bfloat16's, which measured
// as fast or faster with it; half's measured no faster than with F16C on AVX2
// (docs/cpu_performance.md#gradientavx512forbfloat16).
template <typename T>
constexpr bool kHasGradAvx512Path = std::is_same<T, Bfloat16>::value;

// Runs each of ResizeRows' row paths inlined into a function of its own,
// compiled for kPath: ResizeRows' runner in ResizeRowsOnPath.
template <CpuPath kPath>
struct RunCompiledFor {
  template <typename Fn>
  void operator()(const Fn& fn) const {
    RunOnPath<kPath>(fn);
  }
};

// ResizeGradRows (bilinear_resize_grad.h) compiled for kPath; defined in
// bilinear_grad_cpu_paths_instances.h, compiled in instances/.
template <CpuPath kPath, typename T>
void ResizeGradRowsOnPath(const ResizeGeometry& g, const T* grads,
                          int64_t begin_row, int64_t end_row, T* images_grad,
                          OutputStores stores);

// ResizeRows on the widest path of this CPU, AVX-512 only where the kernel
// has it and it pays for this geometry (ForwardGainsFromAvx512); defined
// with the paths, so that the kernel sources need none of the forward math.
template <typename T, typename OutT>
void ResizeRowsOnBestPath(const ResizeGeometry& g, const T* images,
                          int64_t begin_row, int64_t end_row, OutT* output,
                          OutputStores stores);

// ResizeGradRows on the widest path of this CPU, AVX-512 where
// kHasGradAvx512Path; `stores` as ResizeGradRowsOf takes them.
template <typename T>
void ResizeGradRowsOnBestPath(const ResizeGeometry& g, const T* grads,
                              int64_t begin_row, int64_t end_row, T* images_grad,
                              OutputStores stores) {
#if BILINEAR_HAS_AVX2_PATH
  const CpuPath path = BestCpuPath<kHasGradAvx512Path<T>>();
  if constexpr (kHasGradAvx512Path<T>) {
    if (path == CpuPath::kAvx512) {
      return ResizeGradRowsOnPath<CpuPath::kAvx512>(g, grads, begin_row, end_row,
                                                    images_grad, stores);
    }
  }
  if (path == CpuPath::kAvx2) {
    return ResizeGradRowsOnPath<CpuPath::kAvx2>(g, grads, begin_row, end_row,
                                                images_grad, stores);
  }
#endif
  ResizeGradRowsOnPath<CpuPath::kBaseline>(g, grads, begin_row, end_row, images_grad,
                                           stores);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CPU_PATHS_H_
