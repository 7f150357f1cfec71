// What the XLA FFI handlers of MyBilinear and MyBilinearGrad share, on every
// platform: the element types they take (the TensorFlow kernels' own) and the
// checks that turn a call's buffers into a ResizeGeometry.
//
// XLA has checked nothing but the buffers' types and shapes against what
// python/jax_ops.py declared, and jax_ops checks the values at trace time;
// these checks repeat that, with the TensorFlow kernels' messages
// (cc/math/bilinear_checks.h), for a caller that reaches the handlers without
// jax_ops (a hand-written ffi_call, a serialized computation). Dims before the
// last three are folded into the batch (FoldedShape).
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_JAX_MY_BILINEAR_FFI_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_JAX_MY_BILINEAR_FFI_H_

#include <cstdint>
#include <string>
#include <utility>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_checks.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "xla/ffi/api/ffi.h"

// Declares handler symbol `name` visible: XLA_FFI_DEFINE_HANDLER_SYMBOL
// defines it with the default visibility of the build, and the library is
// built with -fvisibility=hidden so that only the handlers are exported (not
// the math, which the TensorFlow op library holds too). Precedes the
// definition.
#define BILINEAR_FFI_EXPORT(name) \
  extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* name(XLA_FFI_CallFrame*)

namespace tensorflow_ops {
namespace bilinear {

namespace ffi = ::xla::ffi;

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>()) for a floating type the math stores (MyBilinear's
// out_type, MyBilinearGrad's T); returns false for any other type.
template <typename Fn>
bool VisitFloatType(ffi::DataType type, const Fn& fn) {
  switch (type) {
    case ffi::DataType::F16: fn(TypeTag<Float16>()); return true;
    case ffi::DataType::BF16: fn(TypeTag<Bfloat16>()); return true;
    case ffi::DataType::F32: fn(TypeTag<float>()); return true;
    case ffi::DataType::F64: fn(TypeTag<double>()); return true;
    default: return false;
  }
}

// The same for MyBilinear's image types: the floating ones and the integers.
template <typename Fn>
bool VisitImageType(ffi::DataType type, const Fn& fn) {
  switch (type) {
    case ffi::DataType::S8: fn(TypeTag<int8_t>()); return true;
    case ffi::DataType::U8: fn(TypeTag<uint8_t>()); return true;
    case ffi::DataType::S16: fn(TypeTag<int16_t>()); return true;
    case ffi::DataType::U16: fn(TypeTag<uint16_t>()); return true;
    case ffi::DataType::S32: fn(TypeTag<int32_t>()); return true;
    case ffi::DataType::S64: fn(TypeTag<int64_t>()); return true;
    default: return VisitFloatType(type, fn);
  }
}

// A buffer's shape with every dim before the last three folded into one:
// jax.vmap (vmap_method="broadcast_all") hands the handlers images
// [vmapped..., batch, height, width, channels], which are a larger batch of
// the same images. Ranks below 4 stay as they are, for the checks to refuse.
class FoldedShape {
 public:
  explicit FoldedShape(const ffi::AnyBuffer& buffer) {
    const auto dims = buffer.dimensions();
    rank_ = static_cast<int64_t>(dims.size());
    if (rank_ < 4) {
      for (int64_t i = 0; i < rank_; ++i) dims_[i] = dims[i];
      return;
    }
    dims_[0] = 1;
    for (int64_t i = 0; i + 3 < rank_; ++i) {
      dims_[0] = MultiplyOrNegative(dims_[0], dims[i]);
    }
    for (int i = 1; i < 4; ++i) dims_[i] = dims[rank_ - 4 + i];
    rank_ = 4;
  }
  ShapeView view() const { return ShapeView{dims_, rank_}; }
  int64_t dim(int i) const { return dims_[i]; }

 private:
  int64_t dims_[4] = {0, 0, 0, 0};
  int64_t rank_ = 0;
};

// Whether `a` and `b` have the same rank and dims before their last three.
inline bool SameLeadingDims(const ffi::AnyBuffer& a, const ffi::AnyBuffer& b) {
  const auto a_dims = a.dimensions();
  const auto b_dims = b.dimensions();
  if (a_dims.size() != b_dims.size() || a_dims.size() < 3) return false;
  for (size_t i = 0; i + 3 < a_dims.size(); ++i) {
    if (a_dims[i] != b_dims[i]) return false;
  }
  return true;
}

// What MyBilinearGrad's handlers, CPU and CUDA, say of grads of another type
// (the types VisitFloatType visits).
constexpr char kGradTypesMessage[] =
    "MyBilinearGrad takes float16, bfloat16, float32 or float64 grads";

inline ffi::Error InvalidArgument(std::string message) {
  return ffi::Error::InvalidArgument(std::move(message));
}

// MyBilinear's checks: `images` and `output` as the TensorFlow kernel checks
// `images` and the output it allocates; the size is the output's height and
// width. Fills `geometry`.
inline ffi::Error CheckResizeCall(const ffi::AnyBuffer& images,
                                  const ffi::AnyBuffer& output, bool align_corners,
                                  bool half_pixel_centers, ResizeGeometry* geometry) {
  const FoldedShape in(images);
  const FoldedShape out(output);
  std::string message = CheckBilinearAttrs(align_corners, half_pixel_centers);
  if (message.empty()) message = CheckImageShape("images", in.view());
  if (!message.empty()) return InvalidArgument(message);
  if (!SameLeadingDims(images, output) || out.dim(3) != in.dim(3)) {
    return InvalidArgument("output shape " + ShapeString(out.view()) +
                           " does not match images shape " + ShapeString(in.view()) +
                           " in batch and channels");
  }
  geometry->align_corners = align_corners;
  geometry->half_pixel_centers = half_pixel_centers;
  message = CheckResizeSize(in.view(), out.dim(1), out.dim(2),
                            static_cast<int64_t>(ffi::ByteWidth(output.element_type())),
                            geometry);
  return message.empty() ? ffi::Error::Success() : InvalidArgument(message);
}

// MyBilinearGrad's checks: `grads` and the input gradient, whose shape is
// `original_image`'s (the handler needs no more of `original_image`). Fills
// `geometry`.
inline ffi::Error CheckResizeGradCall(const ffi::AnyBuffer& grads,
                                      const ffi::AnyBuffer& images_grad,
                                      bool align_corners, bool half_pixel_centers,
                                      ResizeGeometry* geometry) {
  const FoldedShape out(grads);
  const FoldedShape in(images_grad);
  std::string message = CheckBilinearAttrs(align_corners, half_pixel_centers);
  if (message.empty()) message = CheckResizeGradShapes(out.view(), in.view(), geometry);
  if (!message.empty()) return InvalidArgument(message);
  if (!SameLeadingDims(grads, images_grad)) {
    return InvalidArgument("grads shape " + ShapeString(out.view()) +
                           " and original_image shape " + ShapeString(in.view()) +
                           " differ in their leading dims");
  }
  if (grads.element_type() != images_grad.element_type()) {
    return InvalidArgument("grads and the input gradient must have one dtype");
  }
  geometry->align_corners = align_corners;
  geometry->half_pixel_centers = half_pixel_centers;
  return ffi::Error::Success();
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_JAX_MY_BILINEAR_FFI_H_
