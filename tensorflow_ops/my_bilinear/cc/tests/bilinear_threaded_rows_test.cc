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
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <new>
#include <random>
#include <thread>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_row_chunks.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize_grad.h"
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
// many chunks helpers ran before the return. The caller's first chunk waits
// (up to a second) until a helper has one, so that helpers run rows wherever
// they start before the return.
template <typename RunRows, typename Check>
int64_t RunOnThreads(int64_t rows, Start start, WorkerPool* pool, const RunRows& run_rows,
                     const Check& check) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int64_t> helper_chunks{0};
  bool caller_waited = false;
  auto work = [&](int64_t begin_row, int64_t end_row) {
    if (std::this_thread::get_id() != caller) {
      ++helper_chunks;
    } else if (!caller_waited && (start == Start::kThreadEach || start == Start::kPool)) {
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

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The forward rows of `g` with `stores`, and the gradient rows, on threads
// started as `start`, against one thread. Returns the chunks helpers ran.
int64_t CheckGeometry(const ResizeGeometry& g, OutputStores stores, Start start,
                      WorkerPool* pool, std::mt19937* rng) {
  const std::vector<float> images =
      RandomValues<float>(g.batch * g.in_height * g.in_width * g.channels, -1, 1, rng);
  const int64_t out_rows = g.batch * g.out_height;
  const int64_t in_rows = g.batch * g.in_height;
  std::vector<float> expected(out_rows * g.out_width * g.channels);
  ResizeRows(g, images.data(), 0, out_rows, expected.data());
  std::vector<float> output(expected.size(), -7.0f);
  Expect(reinterpret_cast<uintptr_t>(output.data()) % 16 == 0,
         "output not 16-byte aligned: streaming stores would not be taken");
  int64_t helper_chunks = RunOnThreads(
      out_rows, start, pool,
      [&](int64_t b, int64_t e) {
        ResizeRows(g, images.data(), b, e, output.data(), stores);
      },
      [&] {
        Expect(SameBits(output, expected), "forward rows on threads (%s, %s stores): %s",
               Name(start), stores == OutputStores::kStreaming ? "streaming" : "cached",
               Describe(g).c_str());
      });

  const std::vector<float>& grads = expected;  // any values of the output's shape
  std::vector<float> expected_grad(images.size());
  ResizeGradRows(g, grads.data(), 0, in_rows, expected_grad.data());
  std::vector<float> images_grad(images.size(), -7.0f);
  helper_chunks += RunOnThreads(
      in_rows, start, pool,
      [&](int64_t b, int64_t e) {
        ResizeGradRows(g, grads.data(), b, e, images_grad.data());
      },
      [&] {
        Expect(SameBits(images_grad, expected_grad), "gradient rows on threads (%s): %s",
               Name(start), Describe(g).c_str());
      });
  return helper_chunks;
}

// Down-sampling and up-sampling geometries, channel counts that stream (8,
// 16) and that do not (3), in every attribute mode, for each way of starting
// helpers; helpers must have run rows where they start before the return.
BILINEAR_TEST(SameBitsOnThreads) {
  std::mt19937 rng(7);
  WorkerPool pool(kHelpers);
  for (Start start :
       {Start::kThreadEach, Start::kPool, Start::kAfterReturn, Start::kThrows}) {
    int64_t helper_chunks = 0;
    for (const int64_t channels : {3, 8, 16}) {
      for (OutputStores stores : {OutputStores::kCached, OutputStores::kStreaming}) {
        ForEachAttrMode(2, 33, 41, 17, 29, channels, [&](const ResizeGeometry& g) {
          helper_chunks += CheckGeometry(g, stores, start, &pool, &rng);
        });
        ForEachAttrMode(1, 9, 7, 40, 23, channels, [&](const ResizeGeometry& g) {
          helper_chunks += CheckGeometry(g, stores, start, &pool, &rng);
        });
      }
    }
    const bool helpers_expected = start != Start::kAfterReturn;
    Expect(helpers_expected == (helper_chunks > 0),
           "helpers started as %s ran %lld chunks before the return", Name(start),
           static_cast<long long>(helper_chunks));
  }
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
