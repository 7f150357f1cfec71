// MyBilinear's CPU math on 2x down-samplings (half-pixel centres, float32)
// against the simplest kernels with the same bits: one loop each, with the
// weights known at compile time (0.5; the gradient's one term a pixel, 0.25),
// TensorFlow's expressions, and nothing else. Each is timed writing through
// the cache and with streaming stores, so that the figures show what a kernel
// of this machine could still gain, and how much of it is the store policy
// (benchmarks/README.md).
//   forward   each output value from its four inputs, written once;
//   gradient  each input-gradient row from the one upstream row that reads
//             it: 0 + 0.25 * value, written to the row's two pixels that read
//             that column (the second row of a pair reads the upstream row
//             again, from the cache).
// All run on the same two threads, alternated, and must give the same bits,
// or the program fails. TensorFlow-free: the math's compiled instances only.
//
//   bazel run //benchmarks:bilinear_bound_driver -- --repeats 41
//   bazel run //benchmarks:bilinear_bound_driver -- --hot --shape 4,64,64,32
#include <immintrin.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

#if !BILINEAR_HAS_AVX2_PATH
#error "the simple kernels are written for the math's AVX2 path (GCC, x86-64)"
#endif

namespace tensorflow_ops {
namespace bilinear {
namespace {

using EightFloats = float __attribute__((vector_size(32)));

__attribute__((target("avx2"))) inline EightFloats Load(const float* source) {
  EightFloats value;
  std::memcpy(&value, source, sizeof(value));
  return value;
}

// Writes `value` at `out` (32-byte aligned for streaming stores).
__attribute__((target("avx2"))) inline void Store(OutputStores stores,
                                                  const EightFloats& value, float* out) {
  if (stores == OutputStores::kStreaming) {
    _mm256_stream_ps(out, reinterpret_cast<const __m256&>(value));
  } else {
    std::memcpy(out, &value, sizeof(value));
  }
}

// Forward output rows [begin, end) of `g`, a half-pixel 2x down-sampling:
// output pixel (y, x) blends input rows 2y, 2y + 1 and columns 2x, 2x + 1
// with lerp 0.5, horizontally first, as TensorFlow does.
__attribute__((target("avx2"))) void SimpleForward(const ResizeGeometry& g,
                                                   const float* images, int64_t begin,
                                                   int64_t end, float* output,
                                                   OutputStores stores) {
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
        Store(stores, top_value + (bottom_value - top_value) * half, out + x * c + k);
      }
    }
  }
  if (stores == OutputStores::kStreaming) _mm_sfence();
}

// Input-gradient rows [begin, end) of the same geometry: input row r reads
// output row r / 2 alone, and pixel x column x / 2 alone, with weight
// 0.5 * 0.5; the gradient's sums start at 0.
__attribute__((target("avx2"))) void SimpleGradient(const ResizeGeometry& g,
                                                    const float* grads, int64_t begin,
                                                    int64_t end, float* images_grad,
                                                    OutputStores stores) {
  const int64_t c = g.channels;
  const EightFloats quarter = 0.25f - EightFloats{};
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / g.in_height, y = row % g.in_height;
    const float* source = grads + (b * g.out_height + y / 2) * g.out_width * c;
    float* out = images_grad + row * g.in_width * c;
    for (int64_t x = 0; x < g.out_width; ++x) {
      for (int64_t k = 0; k < c; k += 8) {
        const EightFloats value = EightFloats{} + quarter * Load(source + x * c + k);
        Store(stores, value, out + 2 * x * c + k);
        Store(stores, value, out + (2 * x + 1) * c + k);
      }
    }
  }
  if (stores == OutputStores::kStreaming) _mm_sfence();
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
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  int64_t size() const { return size_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  int64_t size_;
  std::unique_ptr<float, Free> data_;
};

// `size` values drawn as the C++ tests draw them, in an aligned buffer.
Floats RandomFloats(int64_t size, std::mt19937* rng) {
  Floats values(size);
  const std::vector<float> drawn = RandomValues<float>(size, -1, 1, rng);
  std::copy(drawn.begin(), drawn.end(), values.data());
  return values;
}

constexpr int64_t kMaxValues = int64_t{1} << 26;  // per tensor: 256 MiB
constexpr int kMaxRepeats = 100000;

struct Options {
  int repeats = 41;
  bool hot = false;
  std::vector<ResizeGeometry> cases;
};

// B x H x W x C images to H/2 x W/2, with half-pixel centres.
ResizeGeometry HalvingOf(int64_t batch, int64_t height, int64_t width, int64_t channels) {
  ResizeGeometry g{batch, height, width, height / 2, width / 2, channels};
  g.align_corners = false;
  g.half_pixel_centers = true;
  return g;
}

// The decimal number that makes up all of `text`, in [1, max]; 0 otherwise.
int64_t ParseCount(const char* text, int64_t max) {
  if (text == nullptr || *text < '0' || *text > '9') return 0;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max) return 0;
  return value;
}

// B,H,W,C with H and W even, C a multiple of 8, and at most kMaxValues values;
// false for anything else.
bool ParseShape(const std::string& text, ResizeGeometry* g) {
  int64_t sizes[4];
  size_t start = 0;
  int64_t values = 1;
  for (int i = 0; i < 4; ++i) {
    const size_t comma = i < 3 ? text.find(',', start) : text.size();
    if (comma == std::string::npos) return false;
    sizes[i] = ParseCount(text.substr(start, comma - start).c_str(), kMaxValues / values);
    if (sizes[i] == 0) return false;
    values *= sizes[i];
    start = comma + 1;
  }
  const int64_t b = sizes[0], h = sizes[1], w = sizes[2], c = sizes[3];
  if (h % 2 != 0 || w % 2 != 0 || c % 8 != 0) return false;
  *g = HalvingOf(b, h, w, c);
  return true;
}

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    ResizeGeometry g;
    if (arg == "--hot") {
      options->hot = true;
    } else if (arg == "--repeats" && i + 1 < argc &&
               ParseCount(argv[i + 1], kMaxRepeats) > 0) {
      options->repeats = static_cast<int>(ParseCount(argv[++i], kMaxRepeats));
    } else if (arg == "--shape" && i + 1 < argc && ParseShape(argv[i + 1], &g)) {
      options->cases.push_back(g);
      ++i;
    } else {
      const bool valued = (arg == "--repeats" || arg == "--shape") && i + 1 < argc;
      std::fprintf(stderr,
                   "bad argument: %s%s%s\nUsage: %s [--repeats N (1 to %d)] [--hot] "
                   "[--shape B,H,W,C ...] (H and W even, C a multiple of 8, at "
                   "most %lld values)\n",
                   arg.c_str(), valued ? " " : "", valued ? argv[i + 1] : "", argv[0],
                   kMaxRepeats, static_cast<long long>(kMaxValues));
      return false;
    }
  }
  if (options->cases.empty()) {  // the benchmark's many-channel halvings
    options->cases = {HalvingOf(8, 256, 256, 32), HalvingOf(32, 28, 28, 64),
                      HalvingOf(16, 64, 64, 64)};
  }
  return true;
}

// The median of `us`.
double Median(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

// A kernel's rows [begin, end) into `output`, with `stores`.
using RowsKernel =
    std::function<void(int64_t begin, int64_t end, float* output, OutputStores stores)>;

// Times `ours` (with `ours_stores`) and `simple` with cached and with
// streaming stores, over `rows` rows, each into its own output (outputs[0..2]),
// alternated, each after `reset` (run on both threads); prints one row, and
// returns whether all three wrote the same bits.
bool Compare(const char* pass, const ResizeGeometry& g, int64_t rows, int repeats,
             TwoThreads* threads, const RowsKernel& ours, OutputStores ours_stores,
             const RowsKernel& simple, Floats (&outputs)[3],
             const std::function<void(int)>& reset) {
  const RowsKernel* kernel_of[3] = {&ours, &simple, &simple};
  const OutputStores stores_of[3] = {ours_stores, OutputStores::kCached,
                                     OutputStores::kStreaming};
  // TwoThreads jobs: the calling thread runs the first half of the rows, the
  // worker the rest.
  std::function<void(int)> kernels[3];
  for (int k = 0; k < 3; ++k) {
    kernels[k] = [&, k](int worker) {
      (*kernel_of[k])(worker == 0 ? 0 : rows / 2, worker == 0 ? rows / 2 : rows,
                      outputs[k].data(), stores_of[k]);
    };
  }
  // Untimed: the first call of each also faults its output's pages in.
  for (const auto& kernel : kernels) threads->Run(kernel);
  std::vector<double> us[3];
  for (int r = 0; r < repeats; ++r) {
    for (int k = 0; k < 3; ++k) {
      threads->Run(reset);
      const auto start = std::chrono::steady_clock::now();
      threads->Run(kernels[k]);
      const std::chrono::duration<double, std::micro> took =
          std::chrono::steady_clock::now() - start;
      us[k].push_back(took.count());
    }
  }
  const int64_t bytes = outputs[0].size() * int64_t{sizeof(float)};
  const bool same = std::memcmp(outputs[0].data(), outputs[1].data(), bytes) == 0 &&
                    std::memcmp(outputs[0].data(), outputs[2].data(), bytes) == 0;
  const double ours_us = Median(us[0]), cached = Median(us[1]), streamed = Median(us[2]);
  std::printf("| %s | %lldx%lldx%lldx%lld | %.0f | %.0f (%.2f) | %.0f (%.2f) | %s |\n",
              pass, static_cast<long long>(g.batch), static_cast<long long>(g.in_height),
              static_cast<long long>(g.in_width), static_cast<long long>(g.channels),
              ours_us, cached, ours_us / cached, streamed, ours_us / streamed,
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
  // Two spinning threads on one CPU would time the scheduler's slices.
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0 || CPU_COUNT(&cpus) < 2) {
    std::fprintf(stderr, "needs two CPUs to run on\n");
    return 2;
  }
  // Twice the last-level cache, read by both threads before each call where
  // not --hot: it evicts the last call's data from every cache both use, and
  // leaves no dirty line of it to write back during the next call. The cache
  // is the one sysfs lists, whatever TENSORFLOW_OPS_LAST_LEVEL_CACHE says.
  const int64_t cache_bytes = LastLevelCacheBytesIn(kSysfsCacheFolder);
  std::vector<float> scratch(options.hot ? 0 : 2 * cache_bytes / 4, 1.0f);
  std::atomic<float> sink{0};
  const std::function<void(int)> reset = [&](int) {
    float sum = 0;
    for (size_t i = 0; i < scratch.size(); i += 16) sum += scratch[i];
    sink.store(sum, std::memory_order_relaxed);
  };
  std::unique_ptr<TwoThreads> threads;
  try {
    threads = std::make_unique<TwoThreads>();
  } catch (const std::system_error& error) {
    std::fprintf(stderr, "cannot start a thread: %s\n", error.what());
    return 2;
  }
  std::printf(
      "%s, %d repeats; median us, and ours over the simple kernel's\n\n",
      options.hot ? "hot (back to back)" : "cold (caches emptied before each call)",
      options.repeats);
  std::printf(
      "| pass | images | ours | simple, cached | simple, streamed | same bits |\n");
  std::printf("|---|---|---|---|---|---|\n");
  bool all_same = true;
  for (const ResizeGeometry& g : options.cases) {
    const int64_t in_values = g.batch * g.in_height * g.in_width * g.channels;
    const int64_t out_values = g.batch * g.out_height * g.out_width * g.channels;
    std::mt19937 rng(1);
    const Floats images = RandomFloats(in_values, &rng);
    const Floats grads = RandomFloats(out_values, &rng);
    Floats outputs[3] = {Floats(out_values), Floats(out_values), Floats(out_values)};
    Floats images_grads[3] = {Floats(in_values), Floats(in_values), Floats(in_values)};
    all_same &= Compare(
        "forward", g, g.batch * g.out_height, options.repeats, threads.get(),
        [&](int64_t begin, int64_t end, float* output, OutputStores stores) {
          ResizeRowsOnBestPath<float, float>(g, images.data(), begin, end, output,
                                             stores);
        },
        StoresForOutput(out_values * 4, in_values * 4),
        [&](int64_t begin, int64_t end, float* output, OutputStores stores) {
          SimpleForward(g, images.data(), begin, end, output, stores);
        },
        outputs, reset);
    all_same &= Compare(
        "gradient", g, g.batch * g.in_height, options.repeats, threads.get(),
        [&](int64_t begin, int64_t end, float* images_grad, OutputStores stores) {
          ResizeGradRowsOnBestPath<float>(g, grads.data(), begin, end, images_grad,
                                          stores);
        },
        StoresForOutput(in_values * 4, out_values * 4),
        [&](int64_t begin, int64_t end, float* images_grad, OutputStores stores) {
          SimpleGradient(g, grads.data(), begin, end, images_grad, stores);
        },
        images_grads, reset);
  }
  if (!all_same) {
    std::fprintf(stderr, "ours and the simple kernels gave different bits\n");
    return 1;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "cannot write the table\n");
    return 2;
  }
  return 0;
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops

int main(int argc, char** argv) { return tensorflow_ops::bilinear::Main(argc, argv); }
