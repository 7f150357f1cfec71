// MyBilinear's forward math for bfloat16 images, on every CPU path
// (bilinear_cpu_paths_instances.h).
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths_instances.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"

BILINEAR_RESIZE_IMAGES(::tensorflow_ops::bilinear::Bfloat16)
