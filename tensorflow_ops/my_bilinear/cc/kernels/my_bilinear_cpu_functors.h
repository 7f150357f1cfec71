// The CPU functors of MyBilinear and MyBilinearGrad: they hand row ranges of
// the output (forward) or of the input gradient (backward) to the
// TensorFlow-free math on TensorFlow's thread pool (my_bilinear_cpu_dispatch.h
// says when and how). Each gradient row is computed by one thread in a fixed
// order, so its bits do not depend on the number of threads.
//
// The math they call is compiled apart, once per type and CPU path
// (bilinear_cpu_paths.h), so the sources that register the kernels compile
// in seconds.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_CPU_FUNCTORS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_CPU_FUNCTORS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_huge_pages.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_cpu_dispatch.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_op.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_unrolled_channels.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {

using CpuDevice = Eigen::ThreadPoolDevice;

namespace functor {

template <typename T, typename OutT>
struct MyBilinear<CpuDevice, T, OutT> {
  absl::Status operator()(tensorflow::OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry,
                          const tensorflow::Tensor& images,
                          tensorflow::Tensor* output) const {
    const auto* input_data = bilinear::AsStorage(images.flat<T>().data());
    auto* output_data = bilinear::AsStorage(output->flat<OutT>().data());
    const int64_t rows = geometry.batch * geometry.out_height;
    const bilinear::OutputStores stores =
        bilinear::StoresForOutput(output->TotalBytes(), images.TotalBytes());
    bilinear::AdviseHugePages(output_data, output->TotalBytes());
    // Channel counts read at run time cost about twice as much a value as
    // the unrolled ones (docs/cpu_performance.md), so their rows are split
    // over threads from half as many values.
    const int64_t work_values =
        output->NumElements() *
        (bilinear::IsUnrolledChannelCount(geometry.channels) ? 1 : 2);
    bilinear::ForRowRanges(context, rows, work_values,
                           [&](int64_t begin_row, int64_t end_row) {
                             bilinear::ResizeRowsOnBestPath(geometry, input_data,
                                                            begin_row, end_row,
                                                            output_data, stores);
                           });
    return absl::OkStatus();
  }
};

template <typename T>
struct MyBilinearGrad<CpuDevice, T> {
  absl::Status operator()(tensorflow::OpKernelContext* context,
                          const bilinear::ResizeGeometry& geometry,
                          const tensorflow::Tensor& grads,
                          tensorflow::Tensor* images_grad) const {
    const auto* grads_data = bilinear::AsStorage(grads.flat<T>().data());
    auto* images_grad_data = bilinear::AsStorage(images_grad->flat<T>().data());
    const int64_t rows = geometry.batch * geometry.in_height;
    const bilinear::OutputStores stores =
        bilinear::StoresForOutput(images_grad->TotalBytes(), grads.TotalBytes());
    bilinear::AdviseHugePages(images_grad_data, images_grad->TotalBytes());
    bilinear::ForRowRanges(context, rows,
                           grads.NumElements() + images_grad->NumElements(),
                           [&](int64_t begin_row, int64_t end_row) {
                             bilinear::ResizeGradRowsOnBestPath(
                                 geometry, grads_data, begin_row, end_row,
                                 images_grad_data, stores);
                           });
    return absl::OkStatus();
  }
};

}  // namespace functor
}  // namespace tensorflow_ops

// Used where `Name` and `DEVICE_CPU` are in scope (REGISTER_KERNEL_BUILDER
// pastes tokens onto `Name`, so it cannot be qualified).
#define MY_BILINEAR_REGISTER_CPU(T, OutT)                                   \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("MyBilinear")                                                    \
          .Device(DEVICE_CPU)                                               \
          .TypeConstraint<T>("T")                                           \
          .TypeConstraint<OutT>("out_type"),                                \
      ::tensorflow_ops::MyBilinearOp<::tensorflow_ops::CpuDevice, T, OutT>);

// The kernels of images of type T, into every output type.
#define MY_BILINEAR_REGISTER_CPU_FOR_IMAGES(T)        \
  MY_BILINEAR_REGISTER_CPU(T, Eigen::half)            \
  MY_BILINEAR_REGISTER_CPU(T, ::tensorflow::bfloat16) \
  MY_BILINEAR_REGISTER_CPU(T, float)                  \
  MY_BILINEAR_REGISTER_CPU(T, double)

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_CPU_FUNCTORS_H_
