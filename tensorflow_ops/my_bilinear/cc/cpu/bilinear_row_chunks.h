// Rows of a kernel split into chunks that the calling thread and helper
// threads claim one at a time.
//
// TensorFlow-free: the caller passes how to schedule a helper (TensorFlow's
// thread pool in the kernels, std::thread in the tests). The calling thread
// starts on the first chunk at once instead of waiting for a helper to wake,
// and a helper that wakes late, or is descheduled, only takes fewer chunks:
// no thread ever waits for work that nobody has claimed. The caller returns
// once every chunk is done. A helper that starts after that finds no chunk
// left and touches nothing but the shared counters, which it keeps alive.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_ROW_CHUNKS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_ROW_CHUNKS_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>
#include <thread>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"

namespace tensorflow_ops {
namespace bilinear {

// The counters shared by the threads of one call. Heap-allocated and
// reference-counted, because a helper may start after the call returned.
class RowChunkCounters {
 public:
  using RunRows = void (*)(const void* work, int64_t begin_row, int64_t end_row);

  RowChunkCounters(int64_t rows, int64_t chunk_count, int references,
                   RunRows run_rows, const void* work)
      : rows_(rows),
        chunk_count_(chunk_count),
        run_rows_(run_rows),
        work_(work),
        references_(references) {}

  // Claims and runs chunks until none is left unclaimed.
  void RunUnclaimedChunks() {
    for (;;) {
      const int64_t chunk = next_chunk_.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= chunk_count_) return;
      run_rows_(work_, ChunkBegin(chunk), ChunkBegin(chunk + 1));
      ExpectStreamingStoresFenced();
      // Release: the rows written are visible to whoever sees the count.
      chunks_done_.fetch_add(1, std::memory_order_release);
    }
  }

  // Waits until every chunk has been run (all are claimed by then, so only
  // chunks in progress on other threads remain).
  void WaitForAllChunks() const {
    int spins = 0;  // stops counting at kSpinsBeforeYield: no overflow
    while (chunks_done_.load(std::memory_order_acquire) < chunk_count_) {
      if (spins < kSpinsBeforeYield) {
        ++spins;
      } else {
        std::this_thread::yield();
      }
    }
  }

  // Drops one reference; the last one frees the counters.
  void Release() {
    if (references_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // First row of `chunk`: the rows are spread as evenly as possible, and the
  // arithmetic cannot overflow whatever `rows` is.
  int64_t ChunkBegin(int64_t chunk) const {
    const int64_t base = rows_ / chunk_count_;
    const int64_t extra = rows_ % chunk_count_;
    return base * chunk + std::min(chunk, extra);
  }

 private:
  static constexpr int kSpinsBeforeYield = 2000;

  const int64_t rows_;
  const int64_t chunk_count_;
  const RunRows run_rows_;
  const void* const work_;
  std::atomic<int64_t> next_chunk_{0};
  std::atomic<int64_t> chunks_done_{0};
  std::atomic<int> references_;
};

// Calls work(begin_row, end_row) over rows [0, rows) cut into `chunk_count`
// chunks, on the calling thread and on up to `helper_count` helpers started by
// schedule(closure) (a closure to run once, on any thread, at any time). Every
// row is in exactly one call. Runs everything on the calling thread when there
// is nothing to share or the counters cannot be allocated.
template <typename Work, typename Schedule>
void RunRowChunks(int64_t rows, int64_t chunk_count, int helper_count,
                  const Work& work, const Schedule& schedule) {
  chunk_count = std::min(chunk_count, rows);
  const int helpers =
      static_cast<int>(std::min<int64_t>(helper_count, chunk_count - 1));
  if (helpers <= 0) {
    work(int64_t{0}, rows);
    ExpectStreamingStoresFenced();
    return;
  }
  auto run_rows = [](const void* erased, int64_t begin_row, int64_t end_row) {
    (*static_cast<const Work*>(erased))(begin_row, end_row);
  };
  auto* counters = new (std::nothrow)
      RowChunkCounters(rows, chunk_count, helpers + 1, run_rows, &work);
  if (counters == nullptr) {
    work(int64_t{0}, rows);
    ExpectStreamingStoresFenced();
    return;
  }
  // Runs the chunks left, waits for those in progress and drops the
  // references of the caller and of helpers never scheduled: at the end, and
  // also if `schedule` throws, so that no helper runs `work` after this frame
  // is gone.
  struct Finish {
    RowChunkCounters* counters;
    int unscheduled;
    ~Finish() {
      counters->RunUnclaimedChunks();
      counters->WaitForAllChunks();
      for (int i = 0; i <= unscheduled; ++i) counters->Release();
    }
  } finish{counters, helpers};
  for (; finish.unscheduled > 0; --finish.unscheduled) {
    schedule([counters] {
      counters->RunUnclaimedChunks();
      counters->Release();
    });
  }
  // ~Finish: the calling thread runs chunks until none is left, and waits.
}

// Fewest values of work (computed or read) for a kernel's rows to be split
// over threads. The calling thread starts at once and a pool thread joins when
// it wakes (RunRowChunks), so splitting pays from about 0.05 ms of work;
// below that, the hand-off costs more than it saves
// (docs/cpu_performance.md#kminvaluestosplit).
constexpr int64_t kMinValuesToSplit = int64_t{1} << 18;

// Chunks of rows are at least this many values of work (a few microseconds),
// and there are at most kChunksPerThread per thread: enough that the thread
// that finishes last waits for little, few enough that each thread reads and
// writes long runs of memory.
constexpr int64_t kMinValuesPerChunk = int64_t{1} << 15;
constexpr int64_t kChunksPerThread = 16;

// Calls work(begin_row, end_row) over rows [0, rows): on the calling thread
// below kMinValuesToSplit values of work, else in chunks claimed by the
// calling thread and up to threads - 1 helpers started by schedule(closure).
// The kernels of every framework share it (TensorFlow's pool in
// cc/kernels/my_bilinear_cpu_dispatch.h, XLA's in cc/jax), so they split alike.
template <typename Work, typename Schedule>
void ForRowRangesOn(int64_t threads, int64_t rows, int64_t work_values,
                    const Work& work, const Schedule& schedule) {
  if (work_values < kMinValuesToSplit) return work(int64_t{0}, rows);
  const int64_t chunks =
      std::min(work_values / kMinValuesPerChunk, kChunksPerThread * threads);
  RunRowChunks(rows, chunks, static_cast<int>(std::min<int64_t>(threads - 1, 1 << 16)),
               work, schedule);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_CPU_BILINEAR_ROW_CHUNKS_H_
