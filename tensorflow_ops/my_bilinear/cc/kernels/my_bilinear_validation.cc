#include "tensorflow_ops/my_bilinear/cc/kernels/my_bilinear_validation.h"

#if defined(__linux__)
#include <sys/sysinfo.h>
#endif

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/allocator.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/util/overflow.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::Tensor;
using ::tensorflow::TensorShape;

// A 4-D NHWC shape with positive height, width and channels (batch may be 0).
absl::Status ValidateImageShape(std::string_view name, const TensorShape& shape) {
  if (shape.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be 4-D [batch, height, width, channels], got shape ",
                     shape.DebugString()));
  }
  if (shape.dim_size(1) <= 0 || shape.dim_size(2) <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must have positive height and width, got shape ",
                     shape.DebugString()));
  }
  if (shape.dim_size(3) <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must have at least one channel, got shape ", shape.DebugString()));
  }
  return absl::OkStatus();
}

// The machine's memory and swap, in bytes; 0 where unknown.
int64_t MemoryAndSwapBytes() {
#if defined(__linux__)
  struct sysinfo info;
  if (sysinfo(&info) == 0) {
    const uint64_t bytes =
        (static_cast<uint64_t>(info.totalram) + info.totalswap) * info.mem_unit;
    return static_cast<int64_t>(
        std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max()));
  }
#endif
  return 0;
}

// Allocates output 0 of `shape`, but refuses at once an output that can never
// be allocated: larger than its allocator's limit, which TensorFlow's BFC
// allocator (the CPU's with oneDNN, and the GPU's) would retry for 10 s before
// failing, and than the machine's memory and swap, since an allocator that
// only reports a limit (oneDNN's under TF_ONEDNN_USE_SYSTEM_ALLOCATOR) may
// allocate past it.
absl::Status AllocateOutput(tensorflow::OpKernelContext* context,
                            const TensorShape& shape, Tensor** output) {
  tensorflow::Allocator* allocator =
      context->get_allocator(context->output_alloc_attr(0));
  const auto stats = allocator->GetStats();
  if (stats.has_value() && stats->bytes_limit.has_value()) {
    const tensorflow::DataType type = context->expected_output_dtype(0);
    const int64_t bytes = TensorBytes(shape, type);
    const int64_t limit = *stats->bytes_limit;
    if (bytes < 0 || bytes > limit) {
      const int64_t memory = MemoryAndSwapBytes();
      if (memory > 0 && (bytes < 0 || bytes > memory)) {
        return OutputTooLargeError(
            shape, type, bytes,
            absl::StrCat("more than the ", limit, " bytes that allocator ",
                         allocator->Name(), " can hold and the ", memory,
                         " bytes of this machine's memory and swap (refused "
                         "before allocating)"));
      }
    }
  }
  return context->allocate_output(0, shape, output);
}

}  // namespace

absl::Status ValidateBilinearAttrs(bool align_corners, bool half_pixel_centers) {
  if (half_pixel_centers && align_corners) {
    return absl::InvalidArgumentError(
        "half_pixel_centers=true requires align_corners=false, got "
        "align_corners=true");
  }
  return absl::OkStatus();
}

BilinearOpKernel::BilinearOpKernel(tensorflow::OpKernelConstruction* context)
    : OpKernel(context) {
  OP_REQUIRES_OK(context, context->GetAttr("align_corners", &align_corners_));
  OP_REQUIRES_OK(context,
                 context->GetAttr("half_pixel_centers", &half_pixel_centers_));
  OP_REQUIRES_OK(context,
                 ValidateBilinearAttrs(align_corners_, half_pixel_centers_));
}

bilinear::ResizeGeometry BilinearOpKernel::AttrGeometry() const {
  bilinear::ResizeGeometry geometry;
  geometry.align_corners = align_corners_;
  geometry.half_pixel_centers = half_pixel_centers_;
  return geometry;
}

absl::Status BilinearOpKernel::ValidateAndAllocateResize(
    tensorflow::OpKernelContext* context, int64_t element_size,
    bilinear::ResizeGeometry* geometry, Tensor** output) const {
  *geometry = AttrGeometry();
  TF_RETURN_IF_ERROR(ValidateResizeInputs(context->input(0), context->input(1),
                                          element_size, geometry));
  TensorShape output_shape;
  TF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(
      {geometry->batch, geometry->out_height, geometry->out_width,
       geometry->channels},
      &output_shape));
  return AllocateOutput(context, output_shape, output);
}

absl::Status BilinearOpKernel::ValidateAndAllocateResizeGrad(
    tensorflow::OpKernelContext* context, bilinear::ResizeGeometry* geometry,
    Tensor** output) const {
  *geometry = AttrGeometry();
  const Tensor& original_image = context->input(1);
  TF_RETURN_IF_ERROR(
      ValidateResizeGradInputs(context->input(0), original_image, geometry));
  return AllocateOutput(context, original_image.shape(), output);
}

absl::Status ValidateResizeShapes(const TensorShape& images,
                                  const TensorShape& size) {
  const absl::Status image_status = ValidateImageShape("images", images);
  if (!image_status.ok()) return image_status;
  if (size.dims() != 1 || size.dim_size(0) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size must be a 1-D tensor of 2 elements [height, width], got shape ",
        size.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status ValidateResizeSize(const TensorShape& images, int64_t out_height,
                                int64_t out_width, int64_t element_size,
                                bilinear::ResizeGeometry* geometry) {
  if (out_height <= 0 || out_width <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size must be positive, got [", out_height, ", ", out_width, "]"));
  }
  geometry->batch = images.dim_size(0);
  geometry->in_height = images.dim_size(1);
  geometry->in_width = images.dim_size(2);
  geometry->channels = images.dim_size(3);
  geometry->out_height = out_height;
  geometry->out_width = out_width;

  // MultiplyWithoutOverflow returns a negative value on overflow.
  int64_t bytes = element_size;
  for (const int64_t dim : {geometry->batch, geometry->out_height,
                            geometry->out_width, geometry->channels}) {
    bytes = bytes < 0 ? bytes : tensorflow::MultiplyWithoutOverflow(bytes, dim);
  }
  if (bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "output shape [", geometry->batch, ", ", geometry->out_height, ", ",
        geometry->out_width, ", ", geometry->channels, "] for size [",
        out_height, ", ", out_width, "] overflows 64-bit sizes"));
  }
  return absl::OkStatus();
}

absl::Status ValidateResizeInputs(const Tensor& images, const Tensor& size,
                                  int64_t element_size,
                                  bilinear::ResizeGeometry* geometry) {
  const absl::Status shape_status =
      ValidateResizeShapes(images.shape(), size.shape());
  if (!shape_status.ok()) return shape_status;
  const auto size_values = size.vec<int32_t>();
  return ValidateResizeSize(images.shape(), size_values(0), size_values(1),
                            element_size, geometry);
}

absl::Status ValidateResizeGradShapes(const TensorShape& grads,
                                      const TensorShape& original_image,
                                      bilinear::ResizeGeometry* geometry) {
  absl::Status status = ValidateImageShape("grads", grads);
  if (status.ok()) {
    status = ValidateImageShape("original_image", original_image);
  }
  if (!status.ok()) return status;
  if (grads.dim_size(0) != original_image.dim_size(0) ||
      grads.dim_size(3) != original_image.dim_size(3)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "grads and original_image must agree on batch and channels, got grads "
        "shape ",
        grads.DebugString(), " and original_image shape ",
        original_image.DebugString()));
  }
  geometry->batch = grads.dim_size(0);
  geometry->out_height = grads.dim_size(1);
  geometry->out_width = grads.dim_size(2);
  geometry->channels = grads.dim_size(3);
  geometry->in_height = original_image.dim_size(1);
  geometry->in_width = original_image.dim_size(2);
  return absl::OkStatus();
}

absl::Status ValidateResizeGradInputs(const Tensor& grads,
                                      const Tensor& original_image,
                                      bilinear::ResizeGeometry* geometry) {
  return ValidateResizeGradShapes(grads.shape(), original_image.shape(),
                                  geometry);
}

int64_t TensorBytes(const TensorShape& shape, tensorflow::DataType type) {
  // MultiplyWithoutOverflow gives a negative value on overflow.
  return tensorflow::MultiplyWithoutOverflow(shape.num_elements(),
                                             tensorflow::DataTypeSize(type));
}

absl::Status OutputTooLargeError(const TensorShape& shape,
                                 tensorflow::DataType type, int64_t bytes,
                                 std::string_view why) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "OOM when allocating tensor with shape", shape.DebugString(), " and type ",
      tensorflow::DataTypeString(type), ": ",
      bytes < 0 ? std::string("over 2^63") : absl::StrCat(bytes), " bytes, ",
      why));
}

}  // namespace tensorflow_ops
