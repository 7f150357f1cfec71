// How the CPU kernels run the TensorFlow-free math: on which storage types,
// with which instruction set (chosen at run time), and on how many threads.
//
// The library is built for baseline x86-64, so it loads on every machine that
// runs TensorFlow. Where the CPU has AVX2, FMA and F16C, the math is run from
// a function compiled for them (flatten inlines all of it there), which gives
// 256-bit vectors and F16C half conversions. -ffp-contract=off
// (from the build macros) keeps FMA out of the arithmetic, so both paths give
// the same bits. RunOnBestCpuPath and the CPU check live in the TensorFlow-free
// bilinear_cpu_features.h, so that standalone tests run the math the same way.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_DISPATCH_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_DISPATCH_H_

#include <cstdint>

#include "tensorflow/core/framework/bfloat16.h"
#include "tensorflow/core/framework/numeric_types.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/util/work_sharder.h"
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


// Fewest values of work (computed or read) for a kernel's rows to be split
// over threads. Handing work to TensorFlow's pool and waiting for it costs
// tens of microseconds on small virtual machines, and much more when a pool
// thread is slow to wake (there, tf.fill of 3 MB takes twice as long on two
// threads as on one). Measured with the benchmark on 2 cores: kernels of 1.6
// to 2.6 million values had better medians on one thread (up to 1.4x), and
// those of 4.8 million and more gained from two.
constexpr int64_t kMinValuesToSplit = int64_t{1} << 22;

// Calls work(begin_row, end_row) over rows [0, rows) on the best CPU path:
// on the calling thread below kMinValuesToSplit values of work, else split by
// TensorFlow's Shard with `cost_per_row` cycles a row.
template <typename Work>
void ForRowRanges(tensorflow::OpKernelContext* context, int64_t rows,
                  int64_t work_values, int64_t cost_per_row, const Work& work) {
  auto run = [&work](int64_t begin_row, int64_t end_row) {
    RunOnBestCpuPath([&] { work(begin_row, end_row); });
  };
  if (work_values < kMinValuesToSplit) return run(0, rows);
  const auto& workers = *context->device()->tensorflow_cpu_worker_threads();
  tensorflow::Shard(workers.num_threads, workers.workers, rows, cost_per_row, run);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_CPU_DISPATCH_H_
