// Standalone check and benchmark of the MyBilinear GPU kernels: plain CUDA, no
// TensorFlow, no Bazel (built by run.sh).
//
// 1. Correctness: the kernels of bilinear_gpu_kernels.cu.h, launched as the op
//    launches them, against the CPU kernels' math (ResizeRows, ResizeGradRows)
//    on the CPU math test's matrix; results must match bit for bit.
// 2. Speed: forward and gradient against cudaMemcpy of a buffer the size of
//    their output, timed side by side with CUDA events; prints GB/s (bytes
//    read + written per second) and the ratio to the copy.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

void Check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

// A device copy of `host`, freed with the object.
template <typename T>
struct DeviceBuffer {
  explicit DeviceBuffer(size_t count) : count(count) {
    Check(cudaMalloc(&data, std::max<size_t>(count, 1) * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    Check(cudaMemcpy(data, host.data(), count * sizeof(T), cudaMemcpyHostToDevice),
          "upload");
  }
  ~DeviceBuffer() { cudaFree(data); }
  std::vector<T> Download() const {
    std::vector<T> host(count);
    Check(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost),
          "download");
    return host;
  }
  T* data = nullptr;
  size_t count;
};

int64_t InputSize(const ResizeGeometry& g) {
  return g.batch * g.in_height * g.in_width * g.channels;
}
int64_t OutputSize(const ResizeGeometry& g) {
  return g.batch * g.out_height * g.out_width * g.channels;
}

template <typename T, typename OutT>
void LaunchResize(const ResizeGeometry& g, const T* images, OutT* output) {
  const int64_t count = OutputSize(g);
  const LaunchGrid grid = GridFor(count);
  ResizeKernel<T, OutT><<<grid.blocks, grid.threads_per_block>>>(g, images, count, grid,
                                                                  output);
  Check(cudaGetLastError(), "ResizeKernel launch");
}

template <typename T>
void LaunchResizeGrad(const ResizeGeometry& g, const T* grads, T* images_grad) {
  const int64_t count = InputSize(g);
  const LaunchGrid grid = GridFor(count);
  ResizeGradKernel<T><<<grid.blocks, grid.threads_per_block>>>(g, grads, count, grid,
                                                               images_grad);
  Check(cudaGetLastError(), "ResizeGradKernel launch");
}

// Values in [-100, 100).
template <typename T>
std::vector<T> Random(int64_t size, std::mt19937* rng) {
  return RandomValues<T>(size, -100, 100, rng);
}

// Elements that differ in bits from the CPU result.
template <typename T>
int64_t Mismatches(const std::vector<T>& got, const std::vector<T>& want) {
  int64_t count = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    count += std::memcmp(&got[i], &want[i], sizeof(T)) != 0;
  }
  return count;
}

struct Tally {
  const char* name;
  int64_t cases = 0;
  int64_t elements = 0;
  int64_t mismatches = 0;
};

template <typename T, typename OutT>
void CheckForward(const ResizeGeometry& g, const std::vector<T>& images, Tally* tally) {
  std::vector<OutT> want(OutputSize(g));
  ResizeRows(g, images.data(), 0, g.batch * g.out_height, want.data());
  DeviceBuffer<T> input(images);
  DeviceBuffer<OutT> output(want.size());
  LaunchResize(g, input.data, output.data);
  tally->cases += 1;
  tally->elements += want.size();
  tally->mismatches += Mismatches(output.Download(), want);
}

template <typename T>
void CheckGradient(const ResizeGeometry& g, const std::vector<T>& grads, Tally* tally) {
  std::vector<T> want(InputSize(g));
  ResizeGradRows(g, grads.data(), 0, g.batch * g.in_height, want.data());
  DeviceBuffer<T> input(grads);
  DeviceBuffer<T> output(want.size());
  LaunchResizeGrad(g, input.data, output.data);
  tally->cases += 1;
  tally->elements += want.size();
  tally->mismatches += Mismatches(output.Download(), want);
}

// The matrix of bilinear_math_test / bilinear_gpu_grid_test.
bool CheckMatrix() {
  std::mt19937 rng(20261130);
  Tally tallies[] = {{"forward float->float"}, {"forward double->double"},
                     {"forward uint8->float"}, {"gradient float"},
                     {"gradient double"}};
  ForEachSmallGeometry({1, 4, 10}, {1, 3, 4, 17}, [&](const ResizeGeometry& g) {
    CheckForward<float, float>(g, Random<float>(InputSize(g), &rng), &tallies[0]);
    CheckForward<double, double>(g, Random<double>(InputSize(g), &rng), &tallies[1]);
    std::vector<uint8_t> bytes(InputSize(g));
    for (uint8_t& v : bytes) v = static_cast<uint8_t>(rng());
    CheckForward<uint8_t, float>(g, bytes, &tallies[2]);
    CheckGradient<float>(g, Random<float>(OutputSize(g), &rng), &tallies[3]);
    CheckGradient<double>(g, Random<double>(OutputSize(g), &rng), &tallies[4]);
  });
  std::printf("%-24s %8s %12s %12s\n", "correctness", "cases", "elements",
              "mismatches");
  bool ok = true;
  for (const Tally& t : tallies) {
    std::printf("%-24s %8lld %12lld %12lld\n", t.name, static_cast<long long>(t.cases),
                static_cast<long long>(t.elements), static_cast<long long>(t.mismatches));
    ok = ok && t.mismatches == 0;
  }
  return ok;
}

// Milliseconds per call of `launch`, the median of `repeats` timed calls.
template <typename Launch>
float TimeMs(Launch launch, int repeats = 21) {
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "event");
  Check(cudaEventCreate(&stop), "event");
  launch();  // warm-up
  std::vector<float> times;
  for (int i = 0; i < repeats; ++i) {
    Check(cudaEventRecord(start), "record");
    launch();
    Check(cudaEventRecord(stop), "record");
    Check(cudaEventSynchronize(stop), "synchronize");
    float ms = 0;
    Check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void PrintRow(const char* name, const ResizeGeometry& g, double kernel_bytes,
              float kernel_ms, double copy_bytes, float copy_ms) {
  std::printf("%-9s [%lld,%lld,%lld,%lld]->[%lldx%lld] ac=%d hp=%d  %8.3f ms %8.1f GB/s"
              "   copy %8.3f ms %8.1f GB/s   kernel/copy time %5.2f\n",
              name, static_cast<long long>(g.batch), static_cast<long long>(g.in_height),
              static_cast<long long>(g.in_width), static_cast<long long>(g.channels),
              static_cast<long long>(g.out_height), static_cast<long long>(g.out_width),
              g.align_corners, g.half_pixel_centers, kernel_ms,
              kernel_bytes / kernel_ms / 1e6, copy_ms, copy_bytes / copy_ms / 1e6,
              kernel_ms / copy_ms);
}

// Float forward and gradient of `g` against a device-to-device copy of their
// output. GB/s counts the bytes each must read and write at least once.
void Benchmark(const ResizeGeometry& g) {
  std::mt19937 rng(1);
  const int64_t in = InputSize(g), out = OutputSize(g);
  DeviceBuffer<float> images(Random<float>(in, &rng));
  DeviceBuffer<float> resized(out), resized_copy(out);
  const float forward_ms = TimeMs([&] { LaunchResize(g, images.data, resized.data); });
  const float forward_copy_ms = TimeMs([&] {
    cudaMemcpyAsync(resized_copy.data, resized.data, out * sizeof(float),
                    cudaMemcpyDeviceToDevice);
  });
  PrintRow("forward", g, (in + out) * 4.0, forward_ms, 2.0 * out * 4, forward_copy_ms);

  DeviceBuffer<float> images_grad(in), images_grad_copy(in);
  const float gradient_ms =
      TimeMs([&] { LaunchResizeGrad(g, resized.data, images_grad.data); });
  const float gradient_copy_ms = TimeMs([&] {
    cudaMemcpyAsync(images_grad_copy.data, images_grad.data, in * sizeof(float),
                    cudaMemcpyDeviceToDevice);
  });
  PrintRow("gradient", g, (in + out) * 4.0, gradient_ms, 2.0 * in * 4, gradient_copy_ms);
  Check(cudaDeviceSynchronize(), "benchmark");
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops

int main() {
  using tensorflow_ops::bilinear::ResizeGeometry;
  cudaDeviceProp properties;
  tensorflow_ops::bilinear::Check(cudaGetDeviceProperties(&properties, 0), "device");
  std::printf("device: %s (sm_%d%d)\n", properties.name, properties.major,
              properties.minor);
  const bool ok = tensorflow_ops::bilinear::CheckMatrix();
  std::printf("correctness: %s\n\n", ok ? "PASS (bitwise equal to the CPU math)"
                                        : "FAIL");
  // {batch, in_h, in_w, out_h, out_w, channels, align_corners, half_pixel}
  const ResizeGeometry shapes[] = {
      {16, 256, 256, 512, 512, 3, false, true},   // 2x up, RGB
      {16, 512, 512, 256, 256, 3, false, true},   // 2x down, RGB
      {8, 64, 64, 128, 128, 64, true, false},     // 2x up, 64 feature channels
      {64, 224, 224, 299, 299, 1, false, false},  // a non-integer scale, 1 channel
  };
  for (const ResizeGeometry& g : shapes) tensorflow_ops::bilinear::Benchmark(g);
  return ok ? 0 : 1;
}
