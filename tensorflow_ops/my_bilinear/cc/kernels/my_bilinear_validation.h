// Argument checks shared by the MyBilinear and MyBilinearGrad kernels.
//
// Every check returns InvalidArgument naming the offending value, so that a bad
// call (including a direct call of the generated op function that bypasses the
// Python wrapper) fails cleanly instead of reading or writing out of bounds.
// The XLA kernels (my_bilinear_xla.cc) call the shape-level checks at compile
// time, so both paths report the same messages.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_VALIDATION_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_VALIDATION_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {

// Base of the MyBilinear and MyBilinearGrad kernels: reads and checks their
// shared attrs once, when the kernel is created (half_pixel_centers is defined
// only for align_corners=false).
class BilinearOpKernel : public tensorflow::OpKernel {
 protected:
  explicit BilinearOpKernel(tensorflow::OpKernelConstruction* context);

  // The attrs, in the geometry every Compute call starts from.
  bilinear::ResizeGeometry AttrGeometry() const;

  // How every MyBilinear kernel starts: checks `images` and `size` (inputs 0
  // and 1), sets `geometry` from them and the attrs, and allocates output 0
  // for elements of `element_size` bytes.
  absl::Status ValidateAndAllocateResize(tensorflow::OpKernelContext* context,
                                         int64_t element_size,
                                         bilinear::ResizeGeometry* geometry,
                                         tensorflow::Tensor** output) const;

  // The same for every MyBilinearGrad kernel: checks `grads` and
  // `original_image` (inputs 0 and 1) and allocates output 0 with the shape
  // of `original_image`.
  absl::Status ValidateAndAllocateResizeGrad(tensorflow::OpKernelContext* context,
                                             bilinear::ResizeGeometry* geometry,
                                             tensorflow::Tensor** output) const;

 private:
  bool align_corners_ = true;
  bool half_pixel_centers_ = false;
};

// half_pixel_centers is defined only for align_corners=false.
absl::Status ValidateBilinearAttrs(bool align_corners, bool half_pixel_centers);

// MyBilinear's shapes: `images` [batch, height, width, channels] with positive
// height, width and channels; `size` of shape [2].
absl::Status ValidateResizeShapes(const tensorflow::TensorShape& images,
                                  const tensorflow::TensorShape& size);

// MyBilinear's size values, for `images` that passed ValidateResizeShapes:
// both positive, and an output of at most INT64_MAX bytes for elements of
// `element_size` bytes. Fills `geometry`'s sizes.
absl::Status ValidateResizeSize(const tensorflow::TensorShape& images,
                                int64_t out_height, int64_t out_width,
                                int64_t element_size,
                                bilinear::ResizeGeometry* geometry);

// MyBilinear: `images` [batch, height, width, channels] with positive height,
// width and channels; `size` [2] with positive values; an output of at most
// INT64_MAX bytes for elements of `element_size` bytes.
absl::Status ValidateResizeInputs(const tensorflow::Tensor& images,
                                  const tensorflow::Tensor& size,
                                  int64_t element_size,
                                  bilinear::ResizeGeometry* geometry);

// MyBilinearGrad: `grads` [batch, out_height, out_width, channels] and
// `original_image` [batch, height, width, channels], agreeing on batch and
// channels, with positive spatial sizes and channels.
absl::Status ValidateResizeGradShapes(const tensorflow::TensorShape& grads,
                                      const tensorflow::TensorShape& original_image,
                                      bilinear::ResizeGeometry* geometry);
absl::Status ValidateResizeGradInputs(const tensorflow::Tensor& grads,
                                      const tensorflow::Tensor& original_image,
                                      bilinear::ResizeGeometry* geometry);

// The bytes of a tensor of `shape` and `type`; negative where they overflow
// 64 bits.
int64_t TensorBytes(const tensorflow::TensorShape& shape, tensorflow::DataType type);

// ResourceExhausted for an output of `shape` and `type` that is refused before
// it is allocated, in the words of TensorFlow's allocator and with its size:
// "OOM when allocating tensor with shape[...] and type ...: N bytes, " and
// `why`; `bytes` is TensorBytes', written "over 2^63" where negative.
absl::Status OutputTooLargeError(const tensorflow::TensorShape& shape,
                                 tensorflow::DataType type, int64_t bytes,
                                 std::string_view why);

}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_VALIDATION_H_
