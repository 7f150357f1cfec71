// OpTemplate's CPU functor, which hands ranges of elements to the math of
// op_template_ranges.h on TensorFlow's thread pool, and its CPU kernels.
#include "tensorflow_ops/op_template/cc/kernels/op_template_op.h"

#include <cstdint>

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/work_sharder.h"
#include "tensorflow_ops/op_template/cc/math/op_template_ranges.h"

namespace tensorflow_ops {

using CpuDevice = Eigen::ThreadPoolDevice;

namespace functor {

// Rough cycles per element (a load, a multiply, a store), from which Shard
// decides how many threads a tensor is worth: small ones stay on one thread.
// TODO(you): your math's cost per element.
constexpr int64_t kCyclesPerElement = 2;

template <typename T>
struct OpTemplate<CpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* y) const {
    const T* x_data = x.flat<T>().data();
    T* y_data = y->flat<T>().data();
    auto compute_range = [&](int64_t begin, int64_t end) {
      op_template::OpTemplateRange(x_data, scale, begin, end, y_data);
    };
    const auto& workers = *context->device()->tensorflow_cpu_worker_threads();
    tensorflow::Shard(workers.num_threads, workers.workers, x.NumElements(),
                      kCyclesPerElement, compute_range);
    return absl::OkStatus();
  }
};

}  // namespace functor

namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::register_kernel::Name;

#define REGISTER_OP_TEMPLATE_CPU(T)                                 \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("OpTemplate").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      OpTemplateOp<CpuDevice, T>);

REGISTER_OP_TEMPLATE_CPU(float);
REGISTER_OP_TEMPLATE_CPU(double);

#undef REGISTER_OP_TEMPLATE_CPU

}  // namespace
}  // namespace tensorflow_ops
