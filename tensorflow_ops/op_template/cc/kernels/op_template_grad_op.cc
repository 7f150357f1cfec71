// OpTemplateGrad's CPU functor, which hands ranges of elements to the math of
// op_template_ranges.h on TensorFlow's thread pool, and its CPU kernels.
#include <cstdint>

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/util/work_sharder.h"
#include "tensorflow_ops/op_template/cc/kernels/op_template_op.h"
#include "tensorflow_ops/op_template/cc/math/op_template_ranges.h"

namespace tensorflow_ops {

using CpuDevice = Eigen::ThreadPoolDevice;

namespace functor {

// Rough cycles per element (two loads, a multiply, a store), for Shard.
// TODO(you): your derivative's cost per element.
constexpr int64_t kGradCyclesPerElement = 3;

template <typename T>
struct OpTemplateGrad<CpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context, float scale,
                          const tensorflow::Tensor& grads,
                          const tensorflow::Tensor& x,
                          tensorflow::Tensor* x_grad) const {
    const T* grads_data = grads.flat<T>().data();
    const T* x_data = x.flat<T>().data();
    T* x_grad_data = x_grad->flat<T>().data();
    auto compute_range = [&](int64_t begin, int64_t end) {
      op_template::OpTemplateGradRange(grads_data, x_data, scale, begin, end,
                                       x_grad_data);
    };
    const auto& workers = *context->device()->tensorflow_cpu_worker_threads();
    tensorflow::Shard(workers.num_threads, workers.workers, x.NumElements(),
                      kGradCyclesPerElement, compute_range);
    return absl::OkStatus();
  }
};

}  // namespace functor

namespace {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::register_kernel::Name;

#define REGISTER_OP_TEMPLATE_GRAD_CPU(T)                                \
  REGISTER_KERNEL_BUILDER(                                              \
      Name("OpTemplateGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      OpTemplateGradOp<CpuDevice, T>);

REGISTER_OP_TEMPLATE_GRAD_CPU(float);
REGISTER_OP_TEMPLATE_GRAD_CPU(double);

#undef REGISTER_OP_TEMPLATE_GRAD_CPU

}  // namespace
}  // namespace tensorflow_ops
