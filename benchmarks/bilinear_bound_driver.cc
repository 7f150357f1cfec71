// How far MyBilinear's CPU math is from the least work its 2x down-sampling
// cases need on this machine: each case's forward pass and gradient (half-pixel
// centres), against a kernel that does only what any kernel with the same bits
// must do, in one loop with the weights (0.5) known at compile time:
//   forward   read each input value once, blend it with TensorFlow's
//             expressions, write each output value once;
//   gradient  read each upstream value once, form 0 + 0.25 * value (the
//             gather's one term), write it to the two pixels of each of the
//             two rows that read it.
// Both run on the same two threads from the same cache state, alternated;
// their results must be bitwise equal, or the program fails. TensorFlow-free:
// the math's compiled instances only (docs/cpu_performance.md says which path
// each case takes).
//
//   bazel run //benchmarks:bilinear_bound_driver -- --repeats 41
//   bazel run //benchmarks:bilinear_bound_driver -- --hot --shape 4,64,64,32
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

#if !BILINEAR_HAS_AVX2_PATH
#error "the least-work kernels are written for the math's AVX2 path (GCC, x86-64)"
#endif

namespace tensorflow_ops {
namespace bilinear {
namespace {

typedef float EightFloats __attribute__((vector_size(32)));

__attribute__((target("avx2"))) inline EightFloats Load(const float* source) {
  EightFloats value;
  std::memcpy(&value, source, sizeof(value));
  return value;
}

// Forward output rows [begin, end) of `g`, a half-pixel 2x down-sampling:
// output pixel (y, x) blends input rows 2y, 2y + 1 and columns 2x, 2x + 1 with
// lerp 0.5, horizontally first, as TensorFlow does. Streaming stores where
// `stream` (as the direct path streams a large float output).
__attribute__((target("avx2"))) void LeastForward(const ResizeGeometry& g,
                                                  const float* images, int64_t begin,
                                                  int64_t end, float* output,
                                                  bool stream) {
  const int64_t c = g.channels, in_row = g.in_width * c;
  const EightFloats half = 0.5f - EightFloats{};
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / g.out_height, y = row % g.out_height;
    const float* top = images + (b * g.in_height + 2 * y) * in_row;
    const float* bottom = top + in_row;
    float* out = output + row * g.out_width * c;
    for (int64_t x = 0; x < g.out_width; ++x) {
      for (int64_t k = 0; k < c; k += 8) {
        const int64_t left = 2 * x * c + k, right = left + c;
        const EightFloats top_left = Load(top + left), top_right = Load(top + right);
        const EightFloats bottom_left = Load(bottom + left);
        const EightFloats bottom_right = Load(bottom + right);
        const EightFloats top_value = top_left + (top_right - top_left) * half;
        const EightFloats bottom_value =
            bottom_left + (bottom_right - bottom_left) * half;
        const EightFloats value = top_value + (bottom_value - top_value) * half;
        if (stream) {
          _mm256_stream_ps(out + x * c + k, value);
        } else {
          std::memcpy(out + x * c + k, &value, sizeof(value));
        }
      }
    }
  }
  if (stream) _mm_sfence();
}

// Input-gradient rows [begin, end) of the same geometry: input row r reads
// output row r / 2 alone, and pixel x column x / 2 alone, with weight
// 0.5 * 0.5; the gradient's sums start at 0.
__attribute__((target("avx2"))) void LeastGradient(const ResizeGeometry& g,
                                                   const float* grads, int64_t begin,
                                                   int64_t end, float* images_grad) {
  const int64_t c = g.channels;
  const EightFloats quarter = 0.25f - EightFloats{};
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / g.in_height, y = row % g.in_height;
    const float* source = grads + (b * g.out_height + y / 2) * g.out_width * c;
    float* out = images_grad + row * g.in_width * c;
    for (int64_t x = 0; x < g.out_width; ++x) {
      for (int64_t k = 0; k < c; k += 8) {
        const EightFloats value = EightFloats{} + quarter * Load(source + x * c + k);
        std::memcpy(out + 2 * x * c + k, &value, sizeof(value));
        std::memcpy(out + (2 * x + 1) * c + k, &value, sizeof(value));
      }
    }
  }
}

// Two threads that stay awake between calls: this thread and one worker, so
// that a call's time is the kernel's, not a wake-up's.
class TwoThreads {
 public:
  TwoThreads()
      : worker_([this] {
          int seen = 0;
          for (;;) {
            while (generation_.load() == seen) _mm_pause();
            seen = generation_.load();
            if (stop_.load()) return;
            job_(1);
            done_.store(true);
          }
        }) {}
  ~TwoThreads() {
    stop_.store(true);
    generation_.fetch_add(1);
    worker_.join();
  }
  // Runs job(0) here and job(1) on the worker; returns when both are done.
  void Run(const std::function<void(int)>& job) {
    job_ = job;
    done_.store(false);
    generation_.fetch_add(1);
    job(0);
    while (!done_.load()) _mm_pause();
  }

 private:
  std::function<void(int)> job_;
  std::atomic<int> generation_{0};
  std::atomic<bool> done_{false};
  std::atomic<bool> stop_{false};
  std::thread worker_;  // last: it starts with the members above in place
};

// `size` floats, 64-byte aligned as TensorFlow's CPU allocator aligns tensors
// (the kernels choose their stores by alignment).
class Floats {
 public:
  explicit Floats(int64_t size)
      : size_(size),
        data_(static_cast<float*>(std::aligned_alloc(64, (size * 4 + 63) / 64 * 64))) {
    if (data_ == nullptr) {
      std::fprintf(stderr, "cannot allocate %lld floats\n", static_cast<long long>(size));
      std::exit(2);
    }
  }
  float* data() const { return data_.get(); }
  int64_t size() const { return size_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  int64_t size_;
  std::unique_ptr<float, Free> data_;
};

struct Timing {
  double median_ms;
  double min_ms;
};

Timing Summarize(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front()};
}

// Fills `values` with a fixed sequence of normal floats of both signs.
void Fill(const Floats& values, int seed) {
  uint32_t state = 2463534242u + seed;
  for (int64_t i = 0; i < values.size(); ++i) {
    float& v = values.data()[i];
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    v = static_cast<float>(static_cast<int32_t>(state % 2001) - 1000) / 37.0f;
  }
}

struct Options {
  int repeats = 41;
  bool hot = false;
  std::vector<ResizeGeometry> cases;
};

ResizeGeometry HalvingOf(int64_t batch, int64_t height, int64_t width, int64_t channels) {
  ResizeGeometry g;
  g.batch = batch;
  g.in_height = height;
  g.in_width = width;
  g.out_height = height / 2;
  g.out_width = width / 2;
  g.channels = channels;
  g.align_corners = false;
  g.half_pixel_centers = true;
  return g;
}

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    long long b, h, w, c;
    if (arg == "--hot") {
      options->hot = true;
    } else if (arg == "--repeats" && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      options->repeats = std::atoi(argv[++i]);
    } else if (arg == "--shape" && i + 1 < argc &&
               std::sscanf(argv[++i], "%lld,%lld,%lld,%lld", &b, &h, &w, &c) == 4 &&
               b > 0 && h >= 2 && w >= 2 && h % 2 == 0 && w % 2 == 0 && c > 0 &&
               c % 8 == 0 && b * h * w * c <= (int64_t{1} << 26)) {
      options->cases.push_back(HalvingOf(b, h, w, c));
    } else {
      std::fprintf(stderr,
                   "bad argument '%s'. Usage: %s [--repeats N] [--hot] "
                   "[--shape B,H,W,C ...] (H and W even, C a multiple of 8, "
                   "at most 2^26 values)\n",
                   arg.c_str(), argv[0]);
      return false;
    }
  }
  if (options->cases.empty()) {  // the benchmark's many-channel halvings
    options->cases = {HalvingOf(8, 256, 256, 32), HalvingOf(32, 28, 28, 64),
                      HalvingOf(16, 64, 64, 64)};
  }
  return true;
}

// Times `ours` and `least` alternated, each after `reset`, and checks that
// they wrote the same bits to `ours_out` and `least_out`.
bool Compare(const char* pass, const ResizeGeometry& g, const Options& options,
             TwoThreads* threads, const std::function<void(int)>& ours,
             const std::function<void(int)>& least, const Floats& ours_out,
             const Floats& least_out, const std::function<void()>& reset) {
  std::vector<double> ours_ms, least_ms;
  for (int r = 0; r < options.repeats; ++r) {
    for (int which = 0; which < 2; ++which) {
      reset();
      const auto start = std::chrono::steady_clock::now();
      threads->Run(which == 0 ? ours : least);
      const std::chrono::duration<double, std::milli> took =
          std::chrono::steady_clock::now() - start;
      (which == 0 ? ours_ms : least_ms).push_back(took.count());
    }
  }
  const bool same = std::memcmp(ours_out.data(), least_out.data(),
                                ours_out.size() * sizeof(float)) == 0;
  const Timing a = Summarize(ours_ms), b = Summarize(least_ms);
  std::printf("| %s | %lldx%lldx%lldx%lld | %.3f / %.3f | %.3f / %.3f | %.2f | %s |\n",
              pass, static_cast<long long>(g.batch), static_cast<long long>(g.in_height),
              static_cast<long long>(g.in_width), static_cast<long long>(g.channels),
              a.median_ms, a.min_ms, b.median_ms, b.min_ms, a.median_ms / b.median_ms,
              same ? "yes" : "NO");
  return same;
}

int Main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) return 2;
  if (WidestCpuPath() == CpuPath::kBaseline) {
    std::fprintf(stderr, "this CPU (or TENSORFLOW_OPS_CPU_PATH) has no AVX2 path\n");
    return 2;
  }
  // Read, not written, before each call where not --hot: it evicts the
  // last call's data and leaves no dirty line to write back during the next.
  std::vector<float> scratch(options.hot ? 0 : (int64_t{1} << 24), 1.0f);
  volatile float sink = 0;
  const std::function<void()> reset = [&] {
    float sum = 0;
    for (size_t i = 0; i < scratch.size(); i += 16) sum += scratch[i];
    sink = sum;
  };
  TwoThreads threads;
  std::printf(
      "%s, %d repeats, ms median / min\n\n",
      options.hot ? "hot (back to back)" : "cold (caches emptied before each call)",
      options.repeats);
  std::printf("| pass | images | ours | least work | ours / least | same bits |\n");
  std::printf("|---|---|---|---|---|---|\n");
  bool all_same = true;
  for (const ResizeGeometry& g : options.cases) {
    const int64_t in_values = g.batch * g.in_height * g.in_width * g.channels;
    const int64_t out_values = g.batch * g.out_height * g.out_width * g.channels;
    Floats images(in_values), grads(out_values);
    Fill(images, 1);
    Fill(grads, 2);
    Floats output(out_values), least_output(out_values);
    Floats images_grad(in_values), least_images_grad(in_values);
    const int64_t out_rows = g.batch * g.out_height, in_rows = g.batch * g.in_height;
    const OutputStores stores = StoresForOutput(out_values * 4, in_values * 4);
    const bool stream = stores == OutputStores::kStreaming;
    auto half = [](int worker, int64_t rows, int64_t* begin, int64_t* end) {
      *begin = worker == 0 ? 0 : rows / 2;
      *end = worker == 0 ? rows / 2 : rows;
    };
    all_same &= Compare(
        "forward", g, options, &threads,
        [&](int w) {
          int64_t begin, end;
          half(w, out_rows, &begin, &end);
          ResizeRowsOnBestPath<float, float>(g, images.data(), begin, end, output.data(),
                                             stores);
        },
        [&](int w) {
          int64_t begin, end;
          half(w, out_rows, &begin, &end);
          LeastForward(g, images.data(), begin, end, least_output.data(), stream);
        },
        output, least_output, reset);
    all_same &= Compare(
        "gradient", g, options, &threads,
        [&](int w) {
          int64_t begin, end;
          half(w, in_rows, &begin, &end);
          ResizeGradRowsOnBestPath<float>(g, grads.data(), begin, end,
                                          images_grad.data());
        },
        [&](int w) {
          int64_t begin, end;
          half(w, in_rows, &begin, &end);
          LeastGradient(g, grads.data(), begin, end, least_images_grad.data());
        },
        images_grad, least_images_grad, reset);
  }
  if (!all_same) {
    std::fprintf(stderr, "ours and the least-work kernel gave different bits\n");
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops

int main(int argc, char** argv) { return tensorflow_ops::bilinear::Main(argc, argv); }
