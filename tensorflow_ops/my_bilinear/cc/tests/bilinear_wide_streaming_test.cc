// Standalone test of the wide streaming stores (bilinear_wide_streaming.h):
// the AVX2 and AVX-512 row groups give the bits of ResizeRowGroup's plain
// stores, special values included, and write nothing outside their rows; and
// ResizeRows with streaming stores takes the widest vectors that the output's
// alignment and the CPU allow, with the bits of cached stores. AddressSanitizer
// does not see streaming stores: the guards around every output are what
// catch a write out of bounds.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_wide_streaming.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

// Floats of a 64-byte-aligned buffer, `offset_bytes` past the boundary, with
// kGuard guard values on each side.
class AlignedFloats {
 public:
  static constexpr int64_t kGuard = 32;
  static constexpr float kGuardValue = -7.0f;

  AlignedFloats(int64_t size, int64_t offset_bytes)
      : storage_(size + 2 * kGuard + 32, kGuardValue), size_(size) {
    uintptr_t address = reinterpret_cast<uintptr_t>(storage_.data() + kGuard);
    address += (64 - address % 64) % 64 + offset_bytes;
    begin_ = reinterpret_cast<float*>(address);
  }
  float* begin() { return begin_; }
  bool GuardsIntact() const {
    for (int64_t i = 1; i <= kGuard; ++i) {
      if (begin_[-i] != kGuardValue || begin_[size_ - 1 + i] != kGuardValue) {
        return false;
      }
    }
    return true;
  }

 private:
  std::vector<float> storage_;
  float* begin_;
  int64_t size_;
};

// Random values in [-1, 1), with every 7th one special: signed zeros,
// infinities, NaN, a subnormal and the largest float, so that a lane computed
// in another order would show.
std::vector<float> ValuesWithSpecials(int64_t size, std::mt19937* rng) {
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::nanf(""),
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max()};
  std::vector<float> values = RandomValues<float>(size, -1, 1, rng);
  for (int64_t i = 0; i < size; i += 7) values[i] = specials[(*rng)() % 7];
  return values;
}

// Equal bits, or NaN in both (NaN signs and payloads may differ between
// paths; see bilinear_cpu_features.h).
bool SameValues(const float* a, const float* b, int64_t size) {
  for (int64_t i = 0; i < size; ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return false;
  }
  return true;
}

// StreamRowGroupWide with `lanes` against ResizeRowGroup's plain stores, for
// one row and for a pair, over column weights of every attribute mode.
// Returns how many row groups it checked.
template <int kChannels>
int64_t CheckRowGroups(int lanes, std::mt19937* rng) {
  int64_t checked = 0;
  for (const int64_t in_width : {1, 3, 9}) {
    for (const int64_t width : {1, 2, 5, 33}) {
      for (const auto& mode : kAttrModes) {
        const AxisSampler<float> sampler(in_width, width, mode[0], mode[1]);
        std::vector<AxisWeight<float>> columns(width);
        for (int64_t x = 0; x < width; ++x) columns[x] = sampler.At(x);
        const std::vector<float> top = ValuesWithSpecials(in_width * kChannels, rng);
        const std::vector<float> bottom =
            ValuesWithSpecials(in_width * kChannels, rng);
        const float y_lerps[2] = {0.25f, 0.8125f};
        const int64_t size = width * kChannels;
        std::vector<float> expected(2 * size);
        ResizeRowGroup<kChannels, 2>(top.data(), bottom.data(), y_lerps,
                                     columns.data(), width, kChannels,
                                     expected.data(), expected.data() + size);
        AlignedFloats first(size, 0), second(size, 0), single(size, 0);
        StreamRowGroupWide<kChannels, 2>(lanes, top.data(), bottom.data(), y_lerps,
                                         columns.data(), width, first.begin(),
                                         second.begin());
        StreamRowGroupWide<kChannels, 1>(lanes, top.data(), bottom.data(), y_lerps,
                                         columns.data(), width, single.begin(),
                                         nullptr);
        FinishStreamingStores();
        if (!SameValues(first.begin(), expected.data(), size) ||
            !SameValues(single.begin(), expected.data(), size)) {
          Fail("first row differs from plain stores (%d channels, %d lanes)", kChannels,
               lanes);
        }
        if (!SameValues(second.begin(), expected.data() + size, size)) {
          Fail("second row differs from plain stores (%d channels, %d lanes)", kChannels,
               lanes);
        }
        if (!first.GuardsIntact() || !second.GuardsIntact() ||
            !single.GuardsIntact()) {
          Fail("wide streaming wrote outside its row (%d channels, %d lanes)", kChannels,
               lanes);
        }
        ++checked;
      }
    }
  }
  return checked;
}

// The lanes WideStreamingLanes should choose for an output `offset_bytes`
// past a 64-byte boundary on this CPU path.
int ExpectedLanes(int64_t channels, int64_t offset_bytes) {
  if (!BILINEAR_HAS_AVX2_PATH) return 0;
  const CpuPath path = WidestCpuPath();
  if (channels % 16 == 0 && path == CpuPath::kAvx512 && offset_bytes == 0) return 16;
  if (channels % 8 == 0 && path != CpuPath::kBaseline && offset_bytes % 32 == 0) {
    return 8;
  }
  return 0;
}

// ResizeRows with streaming stores, into outputs at each 16-byte offset from
// a 64-byte boundary, in one range, row by row (last row first), and in one
// range compiled as the kernels compile it, on this CPU's path
// (RunCompiledFor: there the AVX2 row groups are inlined into AVX2 code, and
// the AVX-512 ones called from it), against cached stores.
void CheckStreamedGeometry(const ResizeGeometry& g, std::mt19937* rng) {
  const std::vector<float> x =
      ValuesWithSpecials(g.batch * g.in_height * g.in_width * g.channels, rng);
  const int64_t rows = g.batch * g.out_height;
  const int64_t size = rows * g.out_width * g.channels;
  std::vector<float> cached(size);
  ResizeRows(g, x.data(), 0, rows, cached.data(), OutputStores::kCached);
  for (const int64_t offset_bytes : {0, 16, 32, 48}) {
    AlignedFloats whole(size, offset_bytes), by_row(size, offset_bytes),
        dispatched(size, offset_bytes);
    ResizeRows(g, x.data(), 0, rows, whole.begin(), OutputStores::kStreaming);
    for (int64_t row = rows - 1; row >= 0; --row) {
      ResizeRows(g, x.data(), row, row + 1, by_row.begin(), OutputStores::kStreaming);
    }
    const auto compiled = [&](const auto& run) {
      ResizeRows(g, x.data(), 0, rows, dispatched.begin(), OutputStores::kStreaming,
                 run);
    };
    if (BestCpuPath() == CpuPath::kAvx2) {
      compiled(RunCompiledFor<CpuPath::kAvx2>());
    } else {
      compiled(RunCompiledFor<CpuPath::kBaseline>());
    }
    for (AlignedFloats* out : {&whole, &by_row, &dispatched}) {
      if (!SameValues(out->begin(), cached.data(), size)) {
        Fail("streamed rows differ from cached stores (offset %lld bytes): %s",
             static_cast<long long>(offset_bytes), Describe(g).c_str());
      }
      if (!out->GuardsIntact()) {
        Fail("streamed rows wrote out of bounds (offset %lld bytes): %s",
             static_cast<long long>(offset_bytes), Describe(g).c_str());
      }
    }
  }
}

// CheckStreamedGeometry over small geometries, and rows wider than a block
// of columns (kColumnBlock); and the vector width for each alignment.
template <int kChannels>
int64_t CheckResizeRowsAtEachAlignment(std::mt19937* rng) {
  for (const int64_t offset_bytes : {0, 16, 32, 48}) {
    AlignedFloats output(kChannels, offset_bytes);
    const int lanes = WideStreamingLanes(kChannels, output.begin());
    const int want = ExpectedLanes(kChannels, offset_bytes);
    Expect(lanes == want,
           "unexpected vector width for the alignment (%d channels, offset %lld bytes): "
           "%d lanes, want %d",
           kChannels, static_cast<long long>(offset_bytes), lanes, want);
  }
  ForEachAttrMode(1, 3, 7, 5, kColumnBlock + 37, kChannels,
                  [&](const ResizeGeometry& g) { CheckStreamedGeometry(g, rng); });
  return 3 + ForEachSmallGeometry({3, 10}, {kChannels}, [&](const ResizeGeometry& g) {
    CheckStreamedGeometry(g, rng);
  });
}

template <int kChannels>
void CheckChannelCount(std::mt19937* rng) {
  const CpuPath path = WidestCpuPath();
  for (const int lanes : {8, 16}) {
    if (kChannels % lanes != 0) continue;
    const bool supported = BILINEAR_HAS_AVX2_PATH &&
                           (lanes == 8 ? path != CpuPath::kBaseline
                                       : path == CpuPath::kAvx512);
    if (!supported) {
      std::printf("%d channels, %d lanes: not on this CPU path, not run\n",
                  kChannels, lanes);
      continue;
    }
    std::printf("%d channels, %d lanes: %lld row groups\n", kChannels, lanes,
                static_cast<long long>(CheckRowGroups<kChannels>(lanes, rng)));
  }
  std::printf("%d channels: %lld geometries streamed at 4 alignments\n", kChannels,
              static_cast<long long>(CheckResizeRowsAtEachAlignment<kChannels>(rng)));
}

// One random stream over every channel count, in this order, so that each
// count sees the values it always has.
BILINEAR_TEST(ChannelCounts) {
  std::mt19937 rng(11);
  CheckChannelCount<8>(&rng);
  CheckChannelCount<16>(&rng);
  CheckChannelCount<32>(&rng);
  CheckChannelCount<64>(&rng);
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
