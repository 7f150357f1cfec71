// How the CPU kernels run the TensorFlow-free math: on which storage types,
// and with which instruction set, chosen at run time.
//
// The library is built for baseline x86-64, so it loads on every machine that
// runs TensorFlow. Where the CPU has AVX2, FMA and F16C, the math is run from
// a function compiled for them (flatten inlines all of it there), which gives
// 256-bit vectors and F16C half conversions. -ffp-contract=off
// (from the build macros) keeps FMA out of the arithmetic, so both paths give
// the same bits. TENSORFLOW_OPS_CPU_PATH=baseline forces the baseline path
// (see bilinear_cpu_features.h).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_DISPATCH_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_DISPATCH_H_

#include "tensorflow/core/framework/bfloat16.h"
#include "tensorflow/core/framework/numeric_types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_storage_types.h"

namespace tensorflow_ops {
namespace bilinear {

// The type the math sees for a TensorFlow element type: the same bytes.
template <typename T>
struct CpuStorage {
  using type = T;
};
template <>
struct CpuStorage<Eigen::half> {
  using type = Float16;
};
template <>
struct CpuStorage<tensorflow::bfloat16> {
  using type = Bfloat16;
};
template <typename T>
using CpuStorageType = typename CpuStorage<T>::type;

template <typename T>
const CpuStorageType<T>* AsStorage(const T* data) {
  static_assert(sizeof(CpuStorageType<T>) == sizeof(T), "same layout");
  return reinterpret_cast<const CpuStorageType<T>*>(data);
}
template <typename T>
CpuStorageType<T>* AsStorage(T* data) {
  return reinterpret_cast<CpuStorageType<T>*>(data);
}

#if BILINEAR_HAS_AVX2_PATH
template <typename Fn>
__attribute__((target("avx2,fma,f16c"), flatten)) void RunWithAvx2(const Fn& fn) {
  fn();
}

template <typename Fn>
__attribute__((flatten)) void RunBaseline(const Fn& fn) {
  fn();
}

// Runs `fn` (which calls the math) on the widest path this CPU supports.
template <typename Fn>
void RunOnBestCpuPath(const Fn& fn) {
  if (UseAvx2()) {
    RunWithAvx2(fn);
  } else {
    RunBaseline(fn);
  }
}
#else
template <typename Fn>
void RunOnBestCpuPath(const Fn& fn) {
  fn();
}
#endif

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_DISPATCH_H_
