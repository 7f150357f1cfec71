// The CPU math runs on a thread with a 112 KB stack, in every type, on the
// geometries that use its biggest stack buffers.
//
// The kernels keep their row buffers and tiles on the stack instead of
// allocating. TensorFlow's threads have the default 8 MB stack, but user code
// may call ops from threads with small ones; a frame that outgrows the stack
// crashes this test (SIGSEGV). 112 KB leaves room for the test's own frames
// and catches a forward path whose arrays stop sharing the stack with the
// other paths'. The test links the library's own compiled math
// (:bilinear_math_instances) and calls it as the kernels do, so the frames
// are the library's, on the paths the library takes on this CPU: the forward
// through ResizeRowsOnBestPath, the gradient on each path this CPU has. It
// does not run under the sanitizers, whose frames are not the library's.
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

constexpr size_t kStackBytes = 112 * 1024;

ResizeGeometry Geometry(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                        int64_t channels) {
  return ResizeGeometry{2, in_h, in_w, out_h, out_w, channels,
                        /*align_corners=*/false, /*half_pixel_centers=*/true};
}

template <typename T, typename OutT>
void ResizeAll(const ResizeGeometry& g) {
  std::vector<T> images(g.batch * g.in_height * g.in_width * g.channels, T(1.0f));
  std::vector<OutT> output(g.batch * g.out_height * g.out_width * g.channels);
  ResizeRowsOnBestPath(g, images.data(), 0, g.batch * g.out_height, output.data(),
                       OutputStores::kCached);
}

// The gradient on every path the kernels may take here: the AVX2 one (or the
// baseline one, on a CPU without AVX2), and for bfloat16 the AVX-512 one where
// the CPU has it.
template <typename T>
void ResizeGradAll(const ResizeGeometry& g) {
  std::vector<T> grads(g.batch * g.out_height * g.out_width * g.channels, T(1.0f));
  std::vector<T> images_grad(g.batch * g.in_height * g.in_width * g.channels);
  const int64_t rows = g.batch * g.in_height;
#if BILINEAR_HAS_AVX2_PATH
  if (BestCpuPath</*kAllowAvx512=*/false>() == CpuPath::kAvx2) {
    ResizeGradRowsOnPath<CpuPath::kAvx2>(g, grads.data(), 0, rows, images_grad.data(),
                                         OutputStores::kCached);
  } else {
    ResizeGradRowsOnPath<CpuPath::kBaseline>(g, grads.data(), 0, rows,
                                             images_grad.data(), OutputStores::kCached);
  }
  if constexpr (kHasGradAvx512Path<T>) {
    if (BestCpuPath</*kAllowAvx512=*/true>() == CpuPath::kAvx512) {
      ResizeGradRowsOnPath<CpuPath::kAvx512>(g, grads.data(), 0, rows,
                                             images_grad.data(), OutputStores::kCached);
    }
  }
#else  // the baseline path only
  ResizeGradRowsOnPath<CpuPath::kBaseline>(g, grads.data(), 0, rows,
                                           images_grad.data(), OutputStores::kCached);
#endif
}

void* RunEverything(void*) {
  // Row-reusing forward passes (converted images, full row buffers), a
  // down-sampling one from converted spans (the last), and gradients with
  // several tiles, blocks and vertical sums.
  for (const ResizeGeometry& g :
       {Geometry(3, 700, 9, 1500, 3), Geometry(4, 40, 9, 900, 9),
        Geometry(2, 3000, 5, 2000, 5), Geometry(3, 2, 7, 3000, 8),
        Geometry(9, 2600, 4, 1300, 3),
        // Down-sampling 5 channels, which bfloat16 takes on the AVX2 path even
        // where the CPU has AVX-512 (the others take AVX-512 there).
        Geometry(9, 2600, 4, 1300, 5)}) {
    ResizeAll<float, float>(g);
    ResizeAll<Float16, double>(g);
    ResizeAll<uint8_t, double>(g);
    ResizeAll<Bfloat16, Bfloat16>(g);
    ResizeAll<double, Float16>(g);
    ResizeGradAll<float>(g);
    ResizeGradAll<double>(g);
    ResizeGradAll<Float16>(g);
    ResizeGradAll<Bfloat16>(g);
  }
  return nullptr;
}

// A stack that cannot be had is a failure, not a skip: the test would check
// nothing.
BILINEAR_TEST(EveryPathOnASmallStack) {
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  if (pthread_attr_setstacksize(&attributes, kStackBytes) != 0) {
    CannotRun("cannot set a %zu-byte stack", kStackBytes);
  }
  pthread_t thread;
  if (pthread_create(&thread, &attributes, RunEverything, nullptr) != 0) {
    CannotRun("cannot start the thread");
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  std::printf("every path ran on a %zu KB stack\n", kStackBytes / 1024);
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
