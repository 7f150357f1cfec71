// How the CPU kernels run the TensorFlow-free math: on which storage types
// and on how many threads.
//
// The library is built for baseline x86-64, so it loads on every machine that
// runs TensorFlow. Where the CPU has AVX2, FMA and F16C, the math runs from
// functions compiled for them (flatten inlines all of it there), which gives
// 256-bit vectors and F16C half conversions; the forward kernels of half and
// bfloat16, and the bfloat16 gradient, run from ones compiled for AVX-512 where
// the CPU has it. -ffp-contract=off (from the build macros) keeps FMA out of
// the arithmetic, so every path gives the same bits (NaNs aside: their sign and
// payload may differ). Those functions, and the choice among them, are the
// TensorFlow-free bilinear_cpu_paths.h.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_CPU_DISPATCH_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_CPU_DISPATCH_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "tensorflow/core/framework/bfloat16.h"
#include "tensorflow/core/framework/numeric_types.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/platform/threadpool.h"
#include "tensorflow/core/util/work_sharder.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_row_chunks.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"

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

// Calls work(begin_row, end_row) over rows [0, rows): on the calling thread
// below kMinValuesToSplit values of work, else in chunks claimed by the calling
// thread and up to (intra-op threads - 1) threads of TensorFlow's pool
// (bilinear_row_chunks.h). TensorFlow's Shard makes the caller wait for the
// pool's threads to wake and run fixed shares, which slowed some kernels
// (docs/cpu_performance.md#forrowranges).
template <typename Work>
void ForRowRanges(tensorflow::OpKernelContext* context, int64_t rows,
                  int64_t work_values, const Work& work) {
  if (work_values < kMinValuesToSplit) return work(0, rows);
  const auto& workers = *context->device()->tensorflow_cpu_worker_threads();
  // Within TensorFlow's per-thread limit, as Shard would be (tf.data's
  // max_intra_op_parallelism sets it).
  const int threads =
      std::min(workers.num_threads, tensorflow::GetPerThreadMaxParallelism());
  ForRowRangesOn(threads, rows, work_values, work,
                 [&workers](std::function<void()> closure) {
                   workers.workers->Schedule(std::move(closure));
                 });
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_CPU_DISPATCH_H_
