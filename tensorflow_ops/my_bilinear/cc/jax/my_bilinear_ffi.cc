// MyBilinear and MyBilinearGrad as XLA FFI handlers on the CPU, for JAX
// (python/jax_ops.py registers them): the TensorFlow CPU kernels' work with
// XLA's buffers and thread pool in place of TensorFlow's.
//
// They run the same compiled math as the TensorFlow op library
// (ResizeRowsOnBestPath and ResizeGradRowsOnBestPath of the instances/
// sources), over the same row ranges (ForRowRangesOn), with the same output
// advice and stores, so both give the same bits; the gradient's rows are each
// computed by one thread, so its bits do not depend on the thread count.
// Links nothing of TensorFlow, Abseil or Eigen.
#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_huge_pages.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_row_chunks.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/jax/my_bilinear_ffi.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_unrolled_channels.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "xla/ffi/api/ffi.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// Rows over XLA's intra-op pool. Where the runtime gives the handler no pool,
// num_threads() is 0 and everything runs on the calling thread; a task the
// pool refuses runs inline (ThreadPool::Schedule), and only takes chunks
// nobody else claimed.
template <typename Work>
void ForRowRangesOnPool(ffi::ThreadPool& pool, int64_t rows, int64_t work_values,
                        const Work& work) {
  ForRowRangesOn(pool.num_threads(), rows, work_values, work,
                 [&pool](auto closure) { pool.Schedule(std::move(closure)); });
}

template <typename T, typename OutT>
void Resize(ffi::ThreadPool& pool, const ResizeGeometry& g, const ffi::AnyBuffer& images,
            ffi::AnyBuffer& output) {
  const auto* input_data = static_cast<const T*>(images.untyped_data());
  auto* output_data = static_cast<OutT*>(output.untyped_data());
  const int64_t output_bytes = static_cast<int64_t>(output.size_bytes());
  const OutputStores stores =
      StoresForOutput(output_bytes, static_cast<int64_t>(images.size_bytes()));
  AdviseHugePages(output_data, output_bytes);
  // As the TensorFlow functor: channel counts read at run time cost about
  // twice as much a value (docs/cpu_performance.md).
  const int64_t work_values = static_cast<int64_t>(output.element_count()) *
                              (IsUnrolledChannelCount(g.channels) ? 1 : 2);
  ForRowRangesOnPool(pool, g.batch * g.out_height, work_values,
                     [&](int64_t begin_row, int64_t end_row) {
                       ResizeRowsOnBestPath(g, input_data, begin_row, end_row,
                                            output_data, stores);
                     });
}

template <typename T>
void ResizeGrad(ffi::ThreadPool& pool, const ResizeGeometry& g,
                const ffi::AnyBuffer& grads, ffi::AnyBuffer& images_grad) {
  const auto* grads_data = static_cast<const T*>(grads.untyped_data());
  auto* images_grad_data = static_cast<T*>(images_grad.untyped_data());
  const int64_t images_grad_bytes = static_cast<int64_t>(images_grad.size_bytes());
  const OutputStores stores =
      StoresForOutput(images_grad_bytes, static_cast<int64_t>(grads.size_bytes()));
  AdviseHugePages(images_grad_data, images_grad_bytes);
  ForRowRangesOnPool(
      pool, g.batch * g.in_height,
      static_cast<int64_t>(grads.element_count() + images_grad.element_count()),
      [&](int64_t begin_row, int64_t end_row) {
        ResizeGradRowsOnBestPath(g, grads_data, begin_row, end_row, images_grad_data,
                                 stores);
      });
}

ffi::Error MyBilinearCpu(ffi::ThreadPool pool, ffi::AnyBuffer images,
                         ffi::Result<ffi::AnyBuffer> output, bool align_corners,
                         bool half_pixel_centers) {
  ResizeGeometry g;
  ffi::Error checked =
      CheckResizeCall(images, *output, align_corners, half_pixel_centers, &g);
  if (checked.failure()) return checked;
  bool known_out = true;
  const bool known_in = VisitImageType(images.element_type(), [&](auto in) {
    known_out = VisitFloatType(output->element_type(), [&](auto out) {
      using T = typename decltype(in)::type;
      using OutT = typename decltype(out)::type;
      if (output->element_count() > 0) Resize<T, OutT>(pool, g, images, *output);
    });
  });
  if (!known_in || !known_out) {
    return InvalidArgument(
        "MyBilinear takes int8, uint8, int16, uint16, int32, int64, float16, "
        "bfloat16, float32 or float64 images into float16, bfloat16, float32 or "
        "float64 output");
  }
  return ffi::Error::Success();
}

ffi::Error MyBilinearGradCpu(ffi::ThreadPool pool, ffi::AnyBuffer grads,
                             ffi::Result<ffi::AnyBuffer> images_grad,
                             bool align_corners, bool half_pixel_centers) {
  ResizeGeometry g;
  ffi::Error checked =
      CheckResizeGradCall(grads, *images_grad, align_corners, half_pixel_centers, &g);
  if (checked.failure()) return checked;
  const bool known = VisitFloatType(grads.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (images_grad->element_count() > 0) ResizeGrad<T>(pool, g, grads, *images_grad);
  });
  if (!known) {
    return InvalidArgument(kGradTypesMessage);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops

// The symbols python/jax_ops.py registers as the CPU targets.
BILINEAR_FFI_EXPORT(MyBilinearFfi);
BILINEAR_FFI_EXPORT(MyBilinearGradFfi);

XLA_FFI_DEFINE_HANDLER_SYMBOL(MyBilinearFfi, tensorflow_ops::bilinear::MyBilinearCpu,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("align_corners")
                                  .Attr<bool>("half_pixel_centers"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(MyBilinearGradFfi,
                              tensorflow_ops::bilinear::MyBilinearGradCpu,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::ThreadPool>()
                                  .Arg<xla::ffi::AnyBuffer>()
                                  .Ret<xla::ffi::AnyBuffer>()
                                  .Attr<bool>("align_corners")
                                  .Attr<bool>("half_pixel_centers"));
