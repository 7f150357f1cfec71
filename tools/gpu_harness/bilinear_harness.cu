// Standalone check and benchmark of the MyBilinear GPU kernels: plain CUDA, no
// TensorFlow, no Bazel (built by run.sh; device_check.sh runs it on a GPU
// machine, then again under compute-sanitizer with --quick).
//
// 1. Correctness: LaunchResize and LaunchResizeGrad of
//    bilinear_gpu_kernels.cu.h, the launchers the op calls, against the CPU
//    math (ResizeRows, ResizeGradRows), bit for bit with any NaN matching any
//    NaN, every buffer between guard zones (harness_buffers.h). Every forward
//    dtype pair and gradient dtype the op registers on a GPU, over the CPU math
//    test's matrix and rows wide enough for the vector row grid; denormal data,
//    flushed for float (the kernels are built with -ftz=true, and TensorFlow
//    runs the CPU math with FTZ and DAZ) and kept for double (a GPU does not
//    flush double); NaN and infinities; a grid of many waves; grids past
//    kMaxBlocks blocks, where each thread walks the grid-stride loop (1.1 and
//    2.2 GB of device memory); a 1x1 image's gradient; large down-sampling.
// 2. Speed: benchmark shapes against a device-to-device cudaMemcpy of their
//    output, in GB/s (bytes each must read and write once, per second).
//
//   bilinear_harness [--quick] [--no-benchmark] [--table FILE]
//
// --quick: a slice of the matrix, no large cases and no benchmarks (for
// compute-sanitizer). --table: the table as Markdown. Exit code 0: all equal;
// 1: a mismatch or a guard hit; 2: a CUDA error, a driver too old for this
// runtime, or bad arguments.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_gpu_kernels.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_passes.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"
#include "tools/gpu_harness/harness_buffers.h"
#include "tools/gpu_harness/harness_data.h"
#include "tools/gpu_harness/harness_report.h"

namespace tensorflow_ops {
namespace bilinear {
namespace harness {
namespace {

constexpr int kPrintedPerRow = 5;  // messages per table row: the first say enough

// Adds one case to `row`: its results against the CPU's, and its guard hits.
template <typename T>
void Record(const ResizeGeometry& g, const std::vector<T>& got,
            const std::vector<T>& want, int64_t guard_hits, TableRow* row) {
  row->cases += 1;
  row->elements += static_cast<int64_t>(want.size());
  row->guard_hits += guard_hits;
  const std::string where =
      row->kernel + " " + row->dtype + " [" + row->shapes + "] " + Describe(g);
  if (guard_hits > 0 && row->printed++ < kPrintedPerRow) {
    std::printf("GUARD HIT %s: %lld guard elements overwritten\n", where.c_str(),
                static_cast<long long>(guard_hits));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (SameResult(got[i], want[i])) continue;
    if (row->printed++ < kPrintedPerRow) {
      std::printf("MISMATCH %s index %zu: GPU 0x%llx, CPU 0x%llx\n", where.c_str(), i,
                  BitsOf(got[i]), BitsOf(want[i]));
    }
    ++row->mismatches;
  }
}

// Times `launch` and a device-to-device copy of `output`'s size into the row;
// `bytes`: what the kernel must read and write at least once.
template <typename OutT, typename Launch>
void Time(const Launch& launch, double bytes, const GuardedBuffer<OutT>& output,
          TableRow* row) {
  const GuardedBuffer<OutT> copy(output.count(), Fill::kPattern);
  const float kernel_ms = TimeMs(launch);
  const float copy_ms = TimeMs([&] {
    Check(cudaMemcpyAsync(copy.data(), output.data(), output.bytes(),
                          cudaMemcpyDeviceToDevice),
          "cudaMemcpyAsync");
  });
  row->timed = true;
  row->kernel_gbps = bytes / kernel_ms / 1e6;
  row->copy_gbps = 2.0 * output.bytes() / copy_ms / 1e6;
  row->guard_hits += copy.GuardHits();
}

// The forward of `images`, as the op launches it, against the CPU math (with
// FTZ and DAZ where `flush`); timed after its first launch where `timed`.
template <typename T, typename OutT>
void CheckForward(const ResizeGeometry& g, const std::vector<T>& images, bool flush,
                  TableRow* row, bool timed) {
  const std::vector<OutT> want = CpuResize<T, OutT>(g, images, flush);
  const GuardedBuffer<T> input(images, Fill::kNan);
  const GuardedBuffer<OutT> output(OutputSize(g), Fill::kPattern);
  auto launch = [&] {
    Check(LaunchResize(g, input.data(), output.data(), /*stream=*/nullptr),
          "LaunchResize");
  };
  launch();
  Check(cudaDeviceSynchronize(), "the forward kernel");
  if (timed) Time(launch, 1.0 * input.bytes() + output.bytes(), output, row);
  Record(g, output.Download(), want, input.GuardHits() + output.GuardHits(), row);
}

// The gradient of `grads`, as the op launches it: both passes through a
// partial of exactly GradPassesFor(g).partial_count elements (none for the
// identity's copy, whose empty partial keeps its guards).
template <typename T>
void CheckGradient(const ResizeGeometry& g, const std::vector<T>& grads, bool flush,
                   TableRow* row, bool timed) {
  using A = AccumulatorType<T>;
  const std::vector<T> want = CpuResizeGrad(g, grads, flush);
  const GradPasses passes = GradPassesFor(g);
  const GuardedBuffer<T> input(grads, Fill::kNan);
  const GuardedBuffer<A> partial(passes.copy ? 0 : passes.partial_count, Fill::kNan);
  const GuardedBuffer<T> output(InputSize(g), Fill::kPattern);
  auto launch = [&] {
    Check(LaunchResizeGrad(g, input.data(), partial.data(), output.data(),
                           /*stream=*/nullptr),
          "LaunchResizeGrad");
  };
  launch();
  Check(cudaDeviceSynchronize(), "the gradient kernels");
  if (timed) Time(launch, 1.0 * input.bytes() + output.bytes(), output, row);
  Record(g, output.Download(), want,
         input.GuardHits() + partial.GuardHits() + output.GuardHits(), row);
}

// The cases of one geometry, each recorded in the row of its kernel, dtype
// and `shapes`, with fresh data from `*seed`.
struct Cases {
  const ResizeGeometry& g;
  std::string shapes;
  Table* table;
  uint64_t* seed;

  // T images into OutT; Scale: the type whose smallest normal kDenormal uses.
  template <typename T, typename OutT, typename Scale = T>
  void Forward(Data data = Data::kRandom, bool flush = kKeep, bool timed = false) {
    CheckForward<T, OutT>(
        g, Values<T, Scale>(InputSize(g), ++*seed, data), flush,
        &table->Row("forward", std::string(TypeName<T>()) + "->" + TypeName<OutT>(),
                    shapes),
        timed);
  }
  template <typename T>
  void Gradient(Data data = Data::kRandom, bool flush = kKeep, bool timed = false) {
    CheckGradient<T>(g, Values<T>(OutputSize(g), ++*seed, data), flush,
                     &table->Row("gradient", TypeName<T>(), shapes), timed);
  }
  // The forward pairs the full matrix checks.
  void WideForwards() {
    Forward<float, float>();
    Forward<double, double>();
    Forward<double, float>();
    Forward<uint8_t, float>();
  }
  // The other forward pairs: the integer and 16-bit images, which the reduced
  // matrix checks.
  void NarrowForwards() {
    Forward<int8_t, float>();
    Forward<int16_t, float>();
    Forward<uint16_t, float>();
    Forward<int32_t, float>();
    Forward<int64_t, float>();
    Forward<Float16, Float16>();
    Forward<Float16, float>();
    Forward<Bfloat16, Bfloat16>();
    Forward<Bfloat16, float>();
  }
};

// Every dtype over the matrix (the 16-bit and integer ones over fewer widths
// and channels, to stay within a minute), then denormals and non-finite data.
void CheckMatrices(bool quick, Table* table) {
  uint64_t seed = 0;
  ForEachGeometry(quick ? Matrix::kQuick : Matrix::kFull,
                  [&](const ResizeGeometry& g, const std::string& name) {
                    Cases c{g, name, table, &seed};
                    c.WideForwards();
                    c.Gradient<float>();
                    c.Gradient<double>();
                  });
  ForEachGeometry(quick ? Matrix::kQuick : Matrix::kReduced,
                  [&](const ResizeGeometry& g, const std::string& name) {
                    Cases c{g, name, table, &seed};
                    c.NarrowForwards();
                    c.Gradient<Float16>();
                    c.Gradient<Bfloat16>();
                  });
  // The vector row grid (RowGridLanes), which no matrix geometry reaches (it
  // needs rows of 128 groups of 4 or 2 channels), for every pair: also under
  // --quick, so that compute-sanitizer sees its vector loads and stores.
  const int64_t vector_shapes[][5] = {
      // in_h, in_w, out_h, out_w, channels
      {5, 7, 9, 130, 4},    // up-sampling: 130 groups of 4, 260 of 2
      {9, 300, 4, 128, 4},  // down-sampling in width: exactly 128 groups of 4
      {3, 1, 5, 64, 8},     // one input column, so x.lower == x.upper
      {2, 3, 3, 32, 8},     // 128 groups of 2; 64 of 4 take one channel a thread
  };
  for (const auto& s : vector_shapes) {
    ForEachAttrMode(2, s[0], s[1], s[2], s[3], s[4], [&](const ResizeGeometry& g) {
      Cases c{g, "vector row grid " + ShapeName(g), table, &seed};
      c.WideForwards();
      c.NarrowForwards();
    });
  }

  if (quick) {
    table->Note(
        "--quick: no denormal or non-finite sets (the values change no "
        "memory access), no large cases, no benchmarks");
    return;
  }
  // Float denormals against the CPU math with FTZ and DAZ (double into float
  // too: its conversion makes float denormals); double ones kept, unflushed.
  if (!kCanFlush) {
    table->Note(
        "flushed float denormal cases skipped: this host has no MXCSR (not "
        "x86), so no CPU reference with FTZ and DAZ");
  }
  ForEachGeometry(Matrix::kDenormal,
                  [&](const ResizeGeometry& g, const std::string& name) {
                    const Data d = Data::kDenormal;
                    Cases flushed{g, "denormals flushed, " + name, table, &seed};
                    if (kCanFlush) {
                      flushed.Forward<float, float>(d, kFlush);
                      flushed.Forward<double, float, /*Scale=*/float>(d, kFlush);
                      flushed.Gradient<float>(d, kFlush);
                    }
                    Cases kept{g, "denormals kept, " + name, table, &seed};
                    kept.Forward<double, double>(d, kKeep);
                    kept.Gradient<double>(d, kKeep);
                  });

  ForEachGeometry(Matrix::kNonFinite,
                  [&](const ResizeGeometry& g, const std::string& name) {
                    const Data d = Data::kNonFinite;
                    Cases c{g, "NaN, +-inf, " + name, table, &seed};
                    c.Forward<float, float>(d);
                    c.Forward<double, double>(d);
                    c.Forward<Float16, Float16>(d);
                    c.Forward<Bfloat16, float>(d);
                    c.Gradient<float>(d);
                    c.Gradient<Float16>(d);
                  });
}

// Whether a case needing `bytes` of device memory runs: at most 8 GiB, and
// free with 256 MiB to spare. Otherwise a note says why it was skipped.
bool Fits(double bytes, const std::string& what, Table* table) {
  size_t free_bytes = 0, total_bytes = 0;
  Check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const double gib = 1024.0 * 1024 * 1024;
  if (bytes <= 8 * gib && bytes + gib / 4 <= free_bytes) return true;
  char text[200];
  std::snprintf(text, sizeof(text),
                "%s skipped: needs %.2f GiB of device memory, %.2f GiB free (at most "
                "8 GiB per case)",
                what.c_str(), bytes / gib, free_bytes / gib);
  table->Note(text);
  return false;
}

// Cases too large for the matrix, each bitwise against the CPU math.
void CheckLargeCases(Table* table) {
  uint64_t seed = uint64_t{1} << 32;
  // Many waves: 10.8M outputs, 42k blocks.
  const ResizeGeometry waves{4, 600, 500, 1000, 900, 3, false, true};
  Cases many{waves, "many waves", table, &seed};
  many.Forward<float, float>();
  many.Forward<Float16, Float16>();
  many.Gradient<float>();

  // Just past kMaxBlocks * kThreadsPerBlock (2^28) elements, so the grid
  // stops growing and threads 0 to 32768 take a second element each: the
  // forward's outputs, then the gradient's row pass (its partial).
  const int64_t one_each = kMaxBlocks * kThreadsPerBlock;
  const std::string past = "grid-stride, 2^28+32769 elements";
  const ResizeGeometry strided{1, 4097, 4099, 16385, 16385, 1, false, true};
  if (OutputSize(strided) <= one_each) std::abort();  // not past: fix the shape
  if (Fits(InputSize(strided) + 4.0 * OutputSize(strided), "forward uint8->float " + past,
           table)) {
    Cases{strided, past, table, &seed}.Forward<uint8_t, float>();
  }
  const ResizeGeometry strided_grad{1, 16385, 3, 16385, 16385, 1, false, true};
  const int64_t partial = GradPassesFor(strided_grad).partial_count;
  if (partial <= one_each) std::abort();
  if (Fits(4.0 * (OutputSize(strided_grad) + partial + InputSize(strided_grad)),
           "gradient float " + past, table)) {
    Cases{strided_grad, past, table, &seed}.Gradient<float>();
  }

  // A 1x1 image's gradient: each of its elements sums 16.7M (or 4096)
  // outputs, split over the two passes.
  ForEachAttrMode(1, 1, 1, 4096, 4096, 3, [&](const ResizeGeometry& g) {
    Cases{g, "tiny input [1,1,1,3]->4096x4096", table, &seed}.Gradient<float>();
  });
  ForEachAttrMode(2, 1, 1, 64, 64, 3, [&](const ResizeGeometry& g) {
    Cases c{g, "tiny input [2,1,1,3]->64x64", table, &seed};
    c.Gradient<float>();
    c.Gradient<double>();
    c.Gradient<Float16>();
  });

  // Large down-sampling: each output reads far-apart inputs; most input
  // gradient elements get no output at all.
  const int64_t sizes[][2] = {{256, 256}, {17, 31}};
  for (const auto& size : sizes) {
    ForEachAttrMode(4, 2048, 2048, size[0], size[1], 3, [&](const ResizeGeometry& g) {
      Cases c{g,
              "down-sampling [4,2048,2048,3]->" + std::to_string(size[0]) + "x" +
                  std::to_string(size[1]),
              table, &seed};
      c.Forward<float, float>();
      c.Gradient<float>();
    });
  }
}

// The benchmark shapes, each also checked bitwise, in a row of its own.
void Benchmark(Table* table) {
  uint64_t seed = uint64_t{1} << 33;
  const Data r = Data::kRandom;
  const bool timed = true;
  // {batch, in_h, in_w, out_h, out_w, channels, align_corners, half_pixel}
  const ResizeGeometry both[] = {
      {16, 256, 256, 512, 512, 3, false, true},   // 2x up, RGB
      {16, 512, 512, 256, 256, 3, false, true},   // 2x down, RGB
      {8, 64, 64, 128, 128, 64, true, false},     // 2x up, 64 feature channels
      {64, 224, 224, 299, 299, 1, false, false},  // a non-integer scale, 1 channel
      {4, 2048, 2048, 256, 256, 3, false, true},  // large down-sampling
      {4, 2048, 2048, 17, 31, 3, false, true},
  };
  for (const ResizeGeometry& g : both) {
    Cases c{g, "benchmark " + ShapeName(g), table, &seed};
    c.Forward<float, float>(r, kKeep, timed);
    c.Gradient<float>(r, kKeep, timed);
  }
  const ResizeGeometry half{16, 256, 256, 512, 512, 3, false, true};
  Cases{half, "benchmark " + ShapeName(half), table, &seed}.Forward<Float16, Float16>(
      r, kKeep, timed);
  // Its copy is of 12 bytes, a launch's latency: the ratio says little here.
  const ResizeGeometry tiny{1, 1, 1, 4096, 4096, 3, false, true};
  Cases{tiny, "benchmark " + ShapeName(tiny), table, &seed}.Gradient<float>(r, kKeep,
                                                                            timed);
}

int Main(int argc, char** argv) {
  bool quick = false, benchmark = true;
  const char* table_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--no-benchmark") {
      benchmark = false;
    } else if (arg == "--table" && i + 1 < argc) {
      table_path = argv[++i];
    } else if (arg.rfind("--table=", 0) == 0) {
      table_path = argv[i] + 8;
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--no-benchmark] [--table FILE]\n",
                   argv[0]);
      return arg == "--help" ? 0 : 2;
    }
  }
  int driver = 0, runtime = 0;
  if (!DriverRunsThisRuntime(&driver, &runtime)) {
    std::fprintf(stderr,
                 "the NVIDIA driver supports CUDA %s, but this harness was built with "
                 "CUDA %s: install a driver for CUDA %s or newer, or build with an "
                 "older nvcc (NVCC=... tools/gpu_harness/run.sh)\n",
                 driver > 0 ? CudaVersionName(driver).c_str() : "(none found)",
                 CudaVersionName(runtime).c_str(), CudaVersionName(runtime).c_str());
    return 2;
  }
  cudaDeviceProp properties;
  Check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  const std::string device =
      std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
      std::to_string(properties.minor) + "), driver CUDA " + CudaVersionName(driver) +
      ", runtime CUDA " + CudaVersionName(runtime) + (quick ? ", --quick" : "");
  std::printf("MyBilinear GPU harness: %s\n", device.c_str());
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
        .count();
  };
  Table table;
  CheckMatrices(quick, &table);
  std::printf("matrices done at %.1f s\n", seconds());
  if (!quick) {
    CheckLargeCases(&table);
    std::printf("large cases done at %.1f s\n", seconds());
    if (benchmark) Benchmark(&table);
  }
  Check(cudaDeviceSynchronize(), "the last kernel");
  std::printf("\n");
  table.Print();
  const bool passed = table.Passed();
  std::printf("\n%s in %.1f s\n",
              passed ? "PASS: bitwise equal to the CPU math (NaNs as NaNs), guards intact"
                     : "FAIL: see MISMATCH and GUARD HIT above",
              seconds());
  if (table_path != nullptr &&
      !table.WriteMarkdown(table_path, "# MyBilinear GPU harness: " + device)) {
    std::fprintf(stderr, "cannot write %s\n", table_path);
    return 2;
  }
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace harness
}  // namespace bilinear
}  // namespace tensorflow_ops

int main(int argc, char** argv) {
  return tensorflow_ops::bilinear::harness::Main(argc, argv);
}
