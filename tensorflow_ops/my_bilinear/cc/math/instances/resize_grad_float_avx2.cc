// MyBilinearGrad's math for float on the avx2 CPU path
// (bilinear_grad_cpu_paths_instances.h).
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_cpu_paths_instances.h"

BILINEAR_RESIZE_GRAD_ON_WIDE_PATH(kAvx2, float)
