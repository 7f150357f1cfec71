// MyBilinear's forward math for int64 images, on every CPU path
// (bilinear_cpu_paths_instances.h).
#include <cstdint>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths_instances.h"

BILINEAR_RESIZE_IMAGES(int64_t)
