// MyBilinearGrad's math for half on the baseline CPU path
// (bilinear_grad_cpu_paths_instances.h).
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_cpu_paths_instances.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"

BILINEAR_RESIZE_GRAD_ON_PATH(kBaseline, ::tensorflow_ops::bilinear::Float16)
