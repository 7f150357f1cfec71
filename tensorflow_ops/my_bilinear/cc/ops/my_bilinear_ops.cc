// Op registrations of MyBilinear and MyBilinearGrad, with shape functions.
// Kernels live in ../kernels; this file only describes the interface.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace tensorflow_ops {
namespace {

using ::tensorflow::shape_inference::DimensionHandle;
using ::tensorflow::shape_inference::InferenceContext;
using ::tensorflow::shape_inference::ShapeHandle;

// Output [batch, size[0], size[1], channels]. Height and width are static where
// `size` is a constant (or partially so) and unknown otherwise.
absl::Status MyBilinearShape(InferenceContext* c) {
  ShapeHandle images;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &images));
  ShapeHandle size;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size));
  DimensionHandle size_length;
  TF_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 2, &size_length));

  ShapeHandle out_hw;
  TF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out_hw));
  for (int i = 0; i < 2; ++i) {
    const int64_t value = c->Value(c->Dim(out_hw, i));
    if (value == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("size must be positive, got ", c->DebugString(out_hw)));
    }
  }
  c->set_output(0, c->MakeShape({c->Dim(images, 0), c->Dim(out_hw, 0),
                                 c->Dim(out_hw, 1), c->Dim(images, 3)}));
  return absl::OkStatus();
}

// Output: the shape of original_image, whose batch and channels must agree
// with those of grads.
absl::Status MyBilinearGradShape(InferenceContext* c) {
  ShapeHandle grads;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &grads));
  ShapeHandle original_image;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &original_image));
  DimensionHandle batch;
  TF_RETURN_IF_ERROR(
      c->Merge(c->Dim(grads, 0), c->Dim(original_image, 0), &batch));
  DimensionHandle channels;
  TF_RETURN_IF_ERROR(
      c->Merge(c->Dim(grads, 3), c->Dim(original_image, 3), &channels));
  c->set_output(0, c->MakeShape({batch, c->Dim(original_image, 1),
                                 c->Dim(original_image, 2), channels}));
  return absl::OkStatus();
}

}  // namespace

REGISTER_OP("MyBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: out_type")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, bfloat16, float, "
        "double}")
    .Attr("out_type: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("align_corners: bool = true")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(MyBilinearShape)
    .Doc(R"doc(
Resizes a batch of images with bilinear interpolation.

With the default out_type (float), the result equals TensorFlow's
ResizeBilinear with the same attributes, for every image type. Integer images
are read directly, with no cast pass. Values are computed in float, or in
double when out_type is double. Equal input and output sizes copy the input
(cast to out_type), as TensorFlow does.

images: 4-D [batch, height, width, channels]; height, width and channels
  must be positive, batch may be 0.
size: 1-D int32 [new_height, new_width], both positive.
resized_images: 4-D [batch, new_height, new_width, channels], dtype out_type.
out_type: The dtype of the result. The Python wrapper `my_bilinear` passes the
  images' own dtype for floating images, so that they keep it.
align_corners: If true, the centres of the 4 corner pixels of input and output
  coincide (scale (in - 1) / (out - 1)); if false, scale is in / out.
half_pixel_centers: If true, pixel centres sit at +0.5 (as in most imaging
  libraries); requires align_corners=false.
)doc");

REGISTER_OP("MyBilinearGrad")
    .Input("grads: T")
    .Input("original_image: T")
    .Output("images_grad: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("align_corners: bool = true")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(MyBilinearGradShape)
    .Doc(R"doc(
Computes the gradient of MyBilinear with respect to its images.

It is the exact adjoint of the resize, computed deterministically: the result
is bitwise the same for any number of threads.

grads: 4-D [batch, out_height, out_width, channels], the gradient of the loss
  with respect to MyBilinear's output.
original_image: 4-D [batch, height, width, channels], MyBilinear's input; only
  its shape is used. Batch and channels must equal those of grads.
images_grad: the gradient with respect to MyBilinear's images, with the shape
  of original_image. half and bfloat16 are accumulated in float.
align_corners: The align_corners of the MyBilinear being differentiated.
half_pixel_centers: The half_pixel_centers of the MyBilinear being
  differentiated.
)doc");

}  // namespace tensorflow_ops
