// RunRowChunks on real threads: every row is run exactly once, before the
// call returns, however the helpers are scheduled: at once, inline, late
// (after the call returned), or not at all when scheduling throws; and the
// chunk bounds neither overflow nor skip rows. Run under --config=asan to
// catch a helper touching freed memory, and under --config=tsan to catch rows
// read without the hand-off's ordering.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <new>
#include <thread>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_row_chunks.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// How the helpers' closures are run.
enum class Start { kAtOnce, kAfterReturn, kInline, kThrowsAfterOne };

// Runs RunRowChunks over `rows` and checks that every row was run once, all
// of them before it returned. With `slow`, helpers' chunks take 20 ms, and
// the caller's wait until a helper has one, so that the caller runs out of
// chunks while a helper's is in progress.
void CheckRows(int64_t rows, int64_t chunks, int helpers, Start start,
               bool slow) {
  // Plain counts: ThreadSanitizer reports a helper's count that the caller
  // reads without the hand-off ordering it.
  std::vector<int> runs(rows, 0);
  std::atomic<bool> returned{false};
  std::atomic<int> calls_after_return{0};
  std::vector<std::thread> threads;
  std::vector<std::function<void()>> pending;
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> helper_working{false};
  auto work = [&](int64_t begin_row, int64_t end_row) {
    if (returned) ++calls_after_return;
    if (slow && std::this_thread::get_id() != caller) {
      // A helper's chunk outlasts the caller's: the caller must wait for it.
      helper_working = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } else if (slow && start == Start::kAtOnce) {
      // The caller waits (up to a second) for a helper to claim a chunk.
      for (int i = 0; i < 10000 && !helper_working; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
    for (int64_t row = begin_row; row < end_row; ++row) ++runs[row];
  };
  auto schedule = [&](std::function<void()> closure) {
    switch (start) {
      case Start::kAtOnce:
        threads.emplace_back(std::move(closure));
        break;
      case Start::kAfterReturn:
        pending.push_back(std::move(closure));
        break;
      case Start::kInline:
        closure();
        break;
      case Start::kThrowsAfterOne:
        // As a pool that runs out of memory after one helper.
        if (!threads.empty()) throw std::bad_alloc();
        threads.emplace_back(std::move(closure));
        break;
    }
  };
  bool threw = false;
  try {
    RunRowChunks(rows, chunks, helpers, work, schedule);
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  returned = true;
  auto expect = [&](bool condition, const char* what) {
    Expect(condition, "%s (rows %lld, chunks %lld, helpers %d)", what,
           static_cast<long long>(rows), static_cast<long long>(chunks), helpers);
  };
  const bool expect_throw = start == Start::kThrowsAfterOne &&
                            std::min<int64_t>(helpers, std::min(chunks, rows) - 1) > 1;
  expect(threw == expect_throw, "the scheduler's exception not passed on");
  bool each_once = true;
  for (const auto& count : runs) each_once = each_once && count == 1;
  expect(each_once, "a row not run exactly once before the call returned");
  for (auto& closure : pending) threads.emplace_back(std::move(closure));
  for (auto& thread : threads) thread.join();
  expect(calls_after_return == 0, "work called after the call returned");
}

// ChunkBegin spreads the rows evenly, in order, from 0 to `rows`, without
// overflow even for rows near the int64 limit.
void CheckChunkBounds(int64_t rows, int64_t chunks) {
  auto noop = [](const void*, int64_t, int64_t) {};
  RowChunkCounters counters(rows, chunks, 1, noop, nullptr);
  bool ordered = counters.ChunkBegin(0) == 0 && counters.ChunkBegin(chunks) == rows;
  const int64_t smallest = rows / chunks;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const int64_t size = counters.ChunkBegin(chunk + 1) - counters.ChunkBegin(chunk);
    ordered = ordered && (size == smallest || size == smallest + 1);
  }
  Expect(ordered, "chunk bounds not even and in order (rows %lld, chunks %lld)",
         static_cast<long long>(rows), static_cast<long long>(chunks));
}

// Every way of starting helpers, over row and chunk counts around the edges
// (one row, more chunks than rows), and with a helper slower than the caller.
BILINEAR_TEST(EveryRowRunOnce) {
  for (Start start : {Start::kAtOnce, Start::kAfterReturn, Start::kInline,
                      Start::kThrowsAfterOne}) {
    for (int64_t rows : {1, 2, 3, 17, 1000}) {
      for (int64_t chunks : {1, 2, 5, 64, 5000}) {
        for (int helpers : {0, 1, 3}) {
          CheckRows(rows, chunks, helpers, start, /*slow=*/false);
        }
      }
    }
    CheckRows(40, 8, 2, start, /*slow=*/true);
  }
}

// The hand-off alone: a helper that keeps its reference until the caller has
// read the rows, so that only chunks_done_'s release and acquire order the
// helper's rows before the caller's reads (the reference count's cannot). The
// caller's first chunk waits for the helper to run one.
BILINEAR_TEST(RowsHandedOffByChunkCount) {
  constexpr int64_t kRows = 64;
  struct Rows {
    std::vector<int> values = std::vector<int>(kRows, 0);
    std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> helper_ran{false};
  };
  auto run = [](const void* erased, int64_t begin_row, int64_t end_row) {
    auto* rows = const_cast<Rows*>(static_cast<const Rows*>(erased));
    if (std::this_thread::get_id() != rows->caller) {
      rows->helper_ran = true;
    } else {
      for (int i = 0; i < 10000 && !rows->helper_ran; ++i) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    }
    for (int64_t row = begin_row; row < end_row; ++row) ++rows->values[row];
  };
  for (int round = 0; round < 20; ++round) {
    Rows rows;
    auto* counters = new RowChunkCounters(kRows, /*chunk_count=*/8, 2, run, &rows);
    std::atomic<bool> rows_read{false};
    std::thread helper([&] {
      counters->RunUnclaimedChunks();
      while (!rows_read.load(std::memory_order_acquire)) std::this_thread::yield();
      counters->Release();
    });
    counters->RunUnclaimedChunks();
    counters->WaitForAllChunks();
    const bool each_once = std::all_of(rows.values.begin(), rows.values.end(),
                                       [](int count) { return count == 1; });
    Expect(each_once, "a row not run exactly once when the chunks were done");
    Expect(rows.helper_ran, "the helper ran no chunk");
    counters->Release();
    rows_read.store(true, std::memory_order_release);
    helper.join();
  }
}

BILINEAR_TEST(ChunkBounds) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  for (int64_t rows : {int64_t{1}, int64_t{7}, int64_t{1000}, max - 1, max}) {
    for (int64_t chunks : {int64_t{1}, int64_t{3}, int64_t{64}}) {
      if (chunks <= rows) CheckChunkBounds(rows, chunks);
    }
  }
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
