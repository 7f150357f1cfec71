// The CPU math runs on a thread with a 112 KB stack, in every type, on the
// geometries that use its biggest stack buffers.
//
// The kernels keep their row buffers and tiles on the stack instead of
// allocating (frames of up to about 80 KB forward and 94 KB for gradients,
// measured in this test's build). TensorFlow's threads have the default 8 MB
// stack, but user code may call ops from threads with small ones; a frame that
// outgrows the stack crashes this test (SIGSEGV). 112 KB leaves room for the
// test's own frames and catches a forward path whose arrays stop sharing the
// stack with the other paths' (120 KB in this build, 153 KB in the library,
// where 160 KB threads then crashed). Under AddressSanitizer, which gives
// every array its own slot and red zones, the stack is 256 KB. The math is
// compiled as the kernels compile it (RunCompiledFor, bilinear_cpu_paths.h),
// on the paths they take on this CPU.
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kStackBytes = 256 * 1024;
#else
constexpr size_t kStackBytes = 112 * 1024;
#endif

ResizeGeometry Geometry(int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                        int64_t channels) {
  return ResizeGeometry{2, in_h, in_w, out_h, out_w, channels,
                        /*align_corners=*/false, /*half_pixel_centers=*/true};
}

// Runs math(run) with the runner of each path the kernels may take, as they
// take it: the AVX2 one (or the baseline one, on a CPU without AVX2), and for
// kernels with a half or bfloat16 input or output the AVX-512 one where the
// CPU has it. Paths the library never takes are not compiled: they would only
// lengthen the build.
template <bool kSixteenBit, typename Math>
void OnEveryPath(const Math& math) {
#if BILINEAR_HAS_AVX2_PATH
  if (BestCpuPath</*kAllowAvx512=*/false>() == CpuPath::kAvx2) {
    math(RunCompiledFor<CpuPath::kAvx2>());
  } else {
    math(RunCompiledFor<CpuPath::kBaseline>());
  }
  if constexpr (kSixteenBit) {
    if (BestCpuPath</*kAllowAvx512=*/true>() == CpuPath::kAvx512) {
      math(RunCompiledFor<CpuPath::kAvx512>());
    }
  }
#else  // the baseline path only
  math(RunCompiledFor<CpuPath::kBaseline>());
#endif
}

template <typename T, typename OutT>
void ResizeAll(const ResizeGeometry& g) {
  std::vector<T> images(g.batch * g.in_height * g.in_width * g.channels, T(1.0f));
  std::vector<OutT> output(g.batch * g.out_height * g.out_width * g.channels);
  OnEveryPath<kHasAvx512Path<T, OutT>>([&](const auto& run) {
    ResizeRows(g, images.data(), 0, g.batch * g.out_height, output.data(),
               OutputStores::kCached, run);
  });
}

template <typename T>
void ResizeGradAll(const ResizeGeometry& g) {
  std::vector<T> grads(g.batch * g.out_height * g.out_width * g.channels, T(1.0f));
  std::vector<T> images_grad(g.batch * g.in_height * g.in_width * g.channels);
  OnEveryPath<kIsSixteenBit<T>>([&](const auto& run) {
    run([&] {
      ResizeGradRows(g, grads.data(), 0, g.batch * g.in_height, images_grad.data());
    });
  });
}

void* RunEverything(void*) {
  // Row-reusing forward passes (converted images, full row buffers), a
  // down-sampling one from converted spans (the last), and gradients with
  // several tiles, blocks and vertical sums.
  for (const ResizeGeometry& g :
       {Geometry(3, 700, 9, 1500, 3), Geometry(4, 40, 9, 900, 9),
        Geometry(2, 3000, 5, 2000, 5), Geometry(3, 2, 7, 3000, 8),
        Geometry(9, 2600, 4, 1300, 3)}) {
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
