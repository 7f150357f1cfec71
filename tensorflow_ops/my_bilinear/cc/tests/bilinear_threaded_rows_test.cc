// The kernels' rows split over real threads as ForRowRanges splits them
// (RunRowChunks): the forward pass with cached and with streaming stores, and
// the gradient, with helpers that start at once, on a pool of long-lived
// threads as TensorFlow's, after the call returned, or never (the scheduler
// throws). Each gives the bits of one thread. Built with --config=tsan this is
// where ThreadSanitizer checks the hand-off: the rows a helper wrote, with
// plain or streaming stores, are read by the caller once the call returns.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <new>
#include <random>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_row_chunks.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_wide_streaming.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

constexpr int kHelpers = 3;

// A fixed set of threads that run scheduled closures in order, as
// TensorFlow's pool does; it outlives the calls, like the pool.
class WorkerPool {
 public:
  explicit WorkerPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_) thread.join();
  }
  void Schedule(std::function<void()> closure) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(closure));
    }
    wake_.notify_one();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> closure;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        closure = std::move(queue_.front());
        queue_.pop_front();
      }
      closure();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// How the helpers' closures are started.
enum class Start { kThreadEach, kPool, kAfterReturn, kThrows };

const char* Name(Start start) {
  switch (start) {
    case Start::kThreadEach:
      return "a thread each";
    case Start::kPool:
      return "a pool";
    case Start::kAfterReturn:
      return "after return";
    case Start::kThrows:
      return "scheduler throws";
  }
  return "?";
}

// Calls RunRowChunks(rows, ...) with `run_rows` as the work, helpers started
// as `start` says, then `check` at once (before joining any thread, which
// would order the helpers' rows whatever RunRowChunks did), and returns how
// many chunks helpers ran before the return. Where helpers start before the
// return, the caller's first chunk waits (up to a second) until a helper has
// one, so that helpers do run rows.
template <typename RunRows, typename Check>
int64_t RunOnThreads(int64_t rows, Start start, WorkerPool* pool, const RunRows& run_rows,
                     const Check& check) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int64_t> helper_chunks{0};
  bool caller_waited = false;
  auto work = [&](int64_t begin_row, int64_t end_row) {
    if (std::this_thread::get_id() != caller) {
      ++helper_chunks;
    } else if (!caller_waited && start != Start::kAfterReturn) {
      caller_waited = true;
      for (int i = 0; i < 10000 && helper_chunks == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
    run_rows(begin_row, end_row);
  };
  std::vector<std::thread> threads;
  std::vector<std::function<void()>> pending;
  auto schedule = [&](std::function<void()> closure) {
    switch (start) {
      case Start::kThreadEach:
        threads.emplace_back(std::move(closure));
        break;
      case Start::kPool:
        pool->Schedule(std::move(closure));
        break;
      case Start::kAfterReturn:
        pending.push_back(std::move(closure));
        break;
      case Start::kThrows:
        if (!threads.empty()) throw std::bad_alloc();
        threads.emplace_back(std::move(closure));
        break;
    }
  };
  try {
    RunRowChunks(rows, /*chunk_count=*/4 * (kHelpers + 1), kHelpers, work, schedule);
  } catch (const std::bad_alloc&) {
    Expect(start == Start::kThrows, "RunRowChunks threw with helpers started as %s",
           Name(start));
  }
  const int64_t before_return = helper_chunks;
  check();
  for (auto& closure : pending) threads.emplace_back(std::move(closure));
  for (auto& thread : threads) thread.join();
  Expect(helper_chunks == before_return, "a helper ran rows after the call returned");
  return before_return;
}

// `size` floats starting `offset_bytes` past a 64-byte boundary, which fixes
// the streaming stores' width (WideStreamingLanes) whatever the allocator
// returns.
class OffsetFloats {
 public:
  OffsetFloats(int64_t size, int64_t offset_bytes) : storage_(size + 32, -7.0f) {
    uintptr_t address = reinterpret_cast<uintptr_t>(storage_.data());
    address += (64 - address % 64) % 64 + offset_bytes;
    begin_ = reinterpret_cast<float*>(address);
  }
  float* begin() { return begin_; }

 private:
  std::vector<float> storage_;
  float* begin_;
};

bool SameBits(const float* a, const std::vector<float>& b) {
  return std::memcmp(a, b.data(), b.size() * sizeof(float)) == 0;
}

// The forward and gradient rows of `g` with `stores` into outputs
// `offset_bytes` past a 64-byte boundary, on threads started as `start`,
// against one thread with cached stores. Returns the chunks helpers ran.
int64_t CheckGeometry(const ResizeGeometry& g, OutputStores stores, int64_t offset_bytes,
                      Start start, WorkerPool* pool, std::mt19937* rng) {
  const std::vector<float> images =
      RandomValues<float>(g.batch * g.in_height * g.in_width * g.channels, -1, 1, rng);
  const int64_t out_rows = g.batch * g.out_height;
  const int64_t in_rows = g.batch * g.in_height;
  std::vector<float> expected(out_rows * g.out_width * g.channels);
  ResizeRows(g, images.data(), 0, out_rows, expected.data());
  OffsetFloats output(expected.size(), offset_bytes);
  int64_t helper_chunks = RunOnThreads(
      out_rows, start, pool,
      [&](int64_t b, int64_t e) {
        ResizeRows(g, images.data(), b, e, output.begin(), stores);
      },
      [&] {
        Expect(SameBits(output.begin(), expected),
               "forward rows on threads (%s, %s stores, offset %lld bytes): %s",
               Name(start), stores == OutputStores::kStreaming ? "streaming" : "cached",
               static_cast<long long>(offset_bytes), Describe(g).c_str());
      });

  const std::vector<float>& grads = expected;  // any values of the output's shape
  std::vector<float> expected_grad(images.size());
  ResizeGradRows(g, grads.data(), 0, in_rows, expected_grad.data());
  OffsetFloats images_grad(images.size(), offset_bytes);
  helper_chunks += RunOnThreads(
      in_rows, start, pool,
      [&](int64_t b, int64_t e) {
        ResizeGradRows(g, grads.data(), b, e, images_grad.begin(), stores);
      },
      [&] {
        Expect(SameBits(images_grad.begin(), expected_grad),
               "gradient rows on threads (%s, %s stores, offset %lld bytes): %s",
               Name(start), stores == OutputStores::kStreaming ? "streaming" : "cached",
               static_cast<long long>(offset_bytes), Describe(g).c_str());
      });
  return helper_chunks;
}

// Down-sampling and up-sampling geometries, channel counts that stream (4,
// 8, 16) and that do not (3), in every attribute mode, for each way of
// starting helpers; streaming outputs at 0, 16 and 32 bytes past a 64-byte
// boundary, so that every store width this CPU has is taken (16 bytes for 4
// channels and where the output is not 32-byte aligned, 32 for 8 and 16
// channels, 64 for 16 channels where the CPU has AVX-512). Helpers must have
// run rows where they start before the return.
BILINEAR_TEST(SameBitsOnThreads) {
  std::mt19937 rng(7);
  WorkerPool pool(kHelpers);
  for (Start start :
       {Start::kThreadEach, Start::kPool, Start::kAfterReturn, Start::kThrows}) {
    int64_t helper_chunks = 0;
    for (const int64_t channels : {3, 4, 8, 16}) {
      for (const int64_t offset_bytes : {-1, 0, 16, 32}) {
        // -1: cached stores.
        const OutputStores stores =
            offset_bytes < 0 ? OutputStores::kCached : OutputStores::kStreaming;
        const int64_t offset = std::max<int64_t>(offset_bytes, 0);
        ForEachAttrMode(2, 33, 41, 17, 29, channels, [&](const ResizeGeometry& g) {
          helper_chunks += CheckGeometry(g, stores, offset, start, &pool, &rng);
        });
        ForEachAttrMode(1, 9, 7, 40, 23, channels, [&](const ResizeGeometry& g) {
          helper_chunks += CheckGeometry(g, stores, offset, start, &pool, &rng);
        });
      }
    }
    const bool helpers_expected = start != Start::kAfterReturn;
    Expect(helpers_expected == (helper_chunks > 0),
           "helpers started as %s ran %lld chunks before the return", Name(start),
           static_cast<long long>(helper_chunks));
  }
}

#if BILINEAR_CHECK_STREAMING_STORES
// The check itself, in ThreadSanitizer builds: each streaming store width
// counts, a fence clears the count, and a thread that reports rows done with
// stores unfenced aborts, through the chunks and on the one-thread path (in
// a child process: the test helper has no death tests).
alignas(64) float streamed[64];
const float kZeros[16] = {};

BILINEAR_TEST(StreamingStoresCounted) {
  const AxisWeight<float> column{0, 0, 0.0f};
  const float y_lerps[2] = {0.5f, 0.5f};
  StreamFourFloats(kZeros, streamed);
  int64_t expected = 1;
  if (BILINEAR_HAS_AVX2_PATH && WidestCpuPath() != CpuPath::kBaseline) {
    StreamRowGroupWide<8, 1>(8, kZeros, kZeros, y_lerps, &column, 1, streamed, nullptr);
    ++expected;
  }
  if (BILINEAR_HAS_AVX2_PATH && WidestCpuPath() == CpuPath::kAvx512) {
    StreamRowGroupWide<16, 1>(16, kZeros, kZeros, y_lerps, &column, 1, streamed, nullptr);
    ++expected;
  }
  Expect(UnfencedStreamingStores() == expected,
         "%lld streaming stores counted, want %lld",
         static_cast<long long>(UnfencedStreamingStores()),
         static_cast<long long>(expected));
  FinishStreamingStores();
  Expect(UnfencedStreamingStores() == 0, "the fence left the count at %lld",
         static_cast<long long>(UnfencedStreamingStores()));
}

// Runs `report_rows` in a child process; true if it aborted.
template <typename ReportRows>
bool AbortsInChild(const ReportRows& report_rows) {
  const pid_t child = fork();
  if (child == 0) {
    // The abort's message is expected; where stderr cannot be silenced, it shows.
    [[maybe_unused]] FILE* const silenced = std::freopen("/dev/null", "w", stderr);
    report_rows();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

BILINEAR_TEST(UnfencedRowsAbort) {
  auto stream_unfenced = [](int64_t, int64_t) { StreamFourFloats(kZeros, streamed); };
  auto no_helpers = [](std::function<void()>) {};
  Expect(AbortsInChild([&] { RunRowChunks(4, 2, 1, stream_unfenced, no_helpers); }),
         "chunks with unfenced streaming stores were reported done");
  Expect(AbortsInChild([&] { RunRowChunks(4, 1, 0, stream_unfenced, no_helpers); }),
         "rows with unfenced streaming stores were run on one thread without abort");
}
#endif  // BILINEAR_CHECK_STREAMING_STORES

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
