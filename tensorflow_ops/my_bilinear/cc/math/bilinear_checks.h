// The checks of MyBilinear's and MyBilinearGrad's shapes and attrs, in plain
// C++, for callers without TensorFlow: the XLA FFI handlers (cc/jax).
//
// TensorFlow-free, so it cannot reuse TensorShape; it states the same rules
// and words each message exactly as cc/kernels/my_bilinear_validation.cc does
// (shapes printed as TensorShape::DebugString prints them, "[2,3,4,1]"), so a
// bad call fails with one message whichever framework runs it. The Python
// side of the JAX ops (python/jax_ops.py) words its trace-time checks the
// same way; my_bilinear_jax_test compares all three. Each check returns the
// message, or an empty string where the values pass.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CHECKS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CHECKS_H_

#include <cstdint>
#include <limits>
#include <string>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// A shape as the dims of a buffer: `rank` sizes at `dims`.
struct ShapeView {
  const int64_t* dims;
  int64_t rank;
};

// "[2,3,4,1]", as TensorShape::DebugString.
inline std::string ShapeString(ShapeView shape) {
  std::string text = "[";
  for (int64_t i = 0; i < shape.rank; ++i) {
    if (i > 0) text += ",";
    text += std::to_string(shape.dims[i]);
  }
  return text + "]";
}

// half_pixel_centers is defined only for align_corners=false.
inline std::string CheckBilinearAttrs(bool align_corners, bool half_pixel_centers) {
  if (half_pixel_centers && align_corners) {
    return "half_pixel_centers=true requires align_corners=false, got "
           "align_corners=true";
  }
  return "";
}

// A 4-D NHWC shape with positive height, width and channels (batch may be 0).
inline std::string CheckImageShape(const std::string& name, ShapeView shape) {
  if (shape.rank != 4) {
    return name + " must be 4-D [batch, height, width, channels], got shape " +
           ShapeString(shape);
  }
  if (shape.dims[1] <= 0 || shape.dims[2] <= 0) {
    return name + " must have positive height and width, got shape " +
           ShapeString(shape);
  }
  if (shape.dims[3] <= 0) {
    return name + " must have at least one channel, got shape " + ShapeString(shape);
  }
  return "";
}

// a * b for nonnegative a and b, or -1 where it overflows int64 (as
// TensorFlow's MultiplyWithoutOverflow).
inline int64_t MultiplyOrNegative(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (b != 0 && a > std::numeric_limits<int64_t>::max() / b) return -1;
  return a * b;
}

// MyBilinear's size for `images` that passed CheckImageShape: both positive,
// and an output of at most INT64_MAX bytes of `element_size`-byte elements.
// Fills `geometry`'s sizes (not its attrs).
inline std::string CheckResizeSize(ShapeView images, int64_t out_height,
                                   int64_t out_width, int64_t element_size,
                                   ResizeGeometry* geometry) {
  if (out_height <= 0 || out_width <= 0) {
    return "size must be positive, got [" + std::to_string(out_height) + ", " +
           std::to_string(out_width) + "]";
  }
  geometry->batch = images.dims[0];
  geometry->in_height = images.dims[1];
  geometry->in_width = images.dims[2];
  geometry->channels = images.dims[3];
  geometry->out_height = out_height;
  geometry->out_width = out_width;
  int64_t bytes = element_size;
  for (const int64_t dim : {geometry->batch, geometry->out_height,
                            geometry->out_width, geometry->channels}) {
    bytes = bytes < 0 ? bytes : MultiplyOrNegative(bytes, dim);
  }
  if (bytes < 0) {
    return "output shape [" + std::to_string(geometry->batch) + ", " +
           std::to_string(geometry->out_height) + ", " +
           std::to_string(geometry->out_width) + ", " +
           std::to_string(geometry->channels) + "] for size [" +
           std::to_string(out_height) + ", " + std::to_string(out_width) +
           "] overflows 64-bit sizes";
  }
  return "";
}

// MyBilinearGrad: `grads` [batch, out_height, out_width, channels] and
// `original_image` [batch, height, width, channels], agreeing on batch and
// channels, with positive spatial sizes and channels. Fills `geometry`'s sizes.
inline std::string CheckResizeGradShapes(ShapeView grads, ShapeView original_image,
                                         ResizeGeometry* geometry) {
  std::string message = CheckImageShape("grads", grads);
  if (message.empty()) message = CheckImageShape("original_image", original_image);
  if (!message.empty()) return message;
  if (grads.dims[0] != original_image.dims[0] ||
      grads.dims[3] != original_image.dims[3]) {
    return "grads and original_image must agree on batch and channels, got grads "
           "shape " +
           ShapeString(grads) + " and original_image shape " +
           ShapeString(original_image);
  }
  geometry->batch = grads.dims[0];
  geometry->out_height = grads.dims[1];
  geometry->out_width = grads.dims[2];
  geometry->channels = grads.dims[3];
  geometry->in_height = original_image.dims[1];
  geometry->in_width = original_image.dims[2];
  return "";
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_CHECKS_H_
