// MyBilinearGrad's math for half on the avx512 CPU path
// (bilinear_grad_cpu_paths_instances.h).
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_cpu_paths_instances.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"

BILINEAR_RESIZE_GRAD_ON_WIDE_PATH(kAvx512, ::tensorflow_ops::bilinear::Float16)
