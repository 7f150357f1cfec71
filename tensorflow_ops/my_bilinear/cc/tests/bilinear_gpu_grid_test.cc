// The GPU kernels' indexing, checked on the host (no GPU, no TensorFlow).
//
// The CUDA kernels are grid-stride loops around ResizeElement and
// ResizeRowGroup (bilinear_elements.h) and the gradient's row and column passes
// (bilinear_grad_passes.h). This test walks the same loops over every
// (block, thread) of the grids GridFor() gives and calls the same functions,
// as LaunchResize and LaunchResizeGrad would, and checks that:
//  - every output index (and every element of the gradient's partial) is
//    written exactly once;
//  - the values equal the CPU kernels' bit for bit (the library's compiled
//    math, :bilinear_math_instances, on the path they take here), forward and
//    gradient, over the CPU math test's matrix: growing, shrinking and equal
//    sizes, 1x1, all three attr modes, channels 1, 3, 4 and 17; float,
//    double, half and bfloat16;
//  - they still do with denormals in the data, flushed (FTZ and DAZ set, as
//    TensorFlow runs its CPU kernels and as nvcc -ftz=true builds the float
//    kernels) and kept (double on a GPU keeps its denormals);
//  - nothing outside the input is read: it sits between NaN guards, and a
//    stray read turns a result into NaN.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_cpu_paths.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_elements.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_passes.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_support.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

constexpr int64_t kGuard = 16;  // NaN elements on each side of an input

// What the kernel does: each thread of each block walks its indices, and
// `element(i)` is stored at i. Returns how often each index was written.
template <typename OutT, typename Element>
std::vector<int> RunGrid(const LaunchGrid& grid, int64_t count, Element element,
                         std::vector<OutT>* output) {
  std::vector<int> writes(count, 0);
  for (int64_t block = 0; block < grid.blocks; ++block) {
    for (int64_t thread = 0; thread < grid.threads_per_block; ++thread) {
      for (int64_t i = FirstIndex(grid, block, thread); i < count; i += Stride(grid)) {
        (*output)[i] = element(i);
        ++writes[i];
      }
    }
  }
  return writes;
}

template <typename T>
void CompareBits(const ResizeGeometry& g, const char* what, const std::vector<T>& got,
                 const std::vector<T>& want, const std::vector<int>& writes) {
  for (size_t i = 0; i < want.size(); ++i) {
    const bool once = writes[i] == 1;
    if (!once || std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      return Fail("%s at index %zu: %s", once ? what : "index not written exactly once", i,
                  Describe(g).c_str());
    }
  }
}

// `values` between NaN guards (for integer types, just the values).
template <typename T>
std::vector<T> Guarded(const std::vector<T>& values) {
  T guard = T(0);
  if constexpr (!std::is_integral<T>::value) guard = static_cast<T>(std::nanf(""));
  std::vector<T> guarded(values.size() + 2 * kGuard, guard);
  std::copy(values.begin(), values.end(), guarded.begin() + kGuard);
  return guarded;
}

int64_t InputSize(const ResizeGeometry& g) {
  return g.batch * g.in_height * g.in_width * g.channels;
}
int64_t OutputSize(const ResizeGeometry& g) {
  return g.batch * g.out_height * g.out_width * g.channels;
}

template <typename T, typename OutT, typename Index>
void CheckForward(const ResizeGeometry& g, const LaunchGrid& grid,
                  const std::vector<T>& images) {
  const int64_t count = OutputSize(g);
  std::vector<OutT> want(count);
  ResizeRowsOnBestPath(g, images.data(), 0, g.batch * g.out_height, want.data(),
                       OutputStores::kCached);
  const std::vector<T> guarded = Guarded(images);
  const T* input = guarded.data() + kGuard;
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(g);
  std::vector<OutT> got(count);
  const std::vector<int> writes = RunGrid<OutT>(
      grid, count,
      [&](int64_t i) { return ResizeElement<T, OutT, Index>(g, samplers, input, i); },
      &got);
  CompareBits(g, "forward differs from the CPU kernel", got, want, writes);
}

// What ResizeRowsKernel<T, OutT, kLanes> does, on the row grid of `g` with
// `row_blocks` rows of blocks (RowGridFor's, or fewer, so that blocks walk
// several rows). Run for every geometry but the identity whose channel count
// kLanes divides, whether or not the launcher would take the row grid for it.
template <typename T, typename OutT, int kLanes>
void CheckForwardRowGroups(const ResizeGeometry& g, int64_t row_blocks,
                           const std::vector<T>& images) {
  if (IsIdentity(g) || OutputSize(g) == 0 || g.channels % kLanes != 0) return;
  std::vector<OutT> want(OutputSize(g));
  ResizeRowsOnBestPath(g, images.data(), 0, g.batch * g.out_height, want.data(),
                       OutputStores::kCached);
  const std::vector<T> guarded = Guarded(images);
  const T* input = guarded.data() + kGuard;
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(g);
  RowGrid grid = RowGridFor(g, kLanes);
  grid.row_blocks = std::min(grid.row_blocks, row_blocks);
  // The vector loads and stores need aligned tensors, as RowGridLanes checks.
  std::vector<Lanes<OutT, kLanes>> got_lanes(want.size() / kLanes);
  OutT* got = reinterpret_cast<OutT*>(got_lanes.data());
  if (!IsAligned(input, sizeof(Lanes<T, kLanes>))) {
    return Fail("test input not aligned for %d lanes: %s", kLanes, Describe(g).c_str());
  }
  std::vector<int> writes(want.size(), 0);
  for (int64_t block_y = 0; block_y < grid.row_blocks; ++block_y) {
    for (int64_t block_x = 0; block_x < grid.column_blocks; ++block_x) {
      for (int64_t thread = 0; thread < kThreadsPerBlock; ++thread) {
        const int64_t group = block_x * kThreadsPerBlock + thread;
        if (group >= grid.row_elements / kLanes) continue;
        for (int64_t row = block_y; row < grid.rows; row += grid.row_blocks) {
          ResizeRowGroup<T, OutT, kLanes>(g, samplers, input, static_cast<int32_t>(row),
                                          static_cast<int32_t>(group),
                                          got + row * grid.row_elements);
          for (int lane = 0; lane < kLanes; ++lane) {
            ++writes[row * grid.row_elements + group * kLanes + lane];
          }
        }
      }
    }
  }
  const std::vector<OutT> got_values(got, got + want.size());
  CompareBits(g, "row-grid forward differs from the CPU kernel", got_values, want, writes);
}

// The row grid one channel per thread, and with the vector lanes of T into
// OutT (where the channel count allows).
template <typename T, typename OutT>
void CheckForwardRows(const ResizeGeometry& g, int64_t row_blocks,
                      const std::vector<T>& images) {
  CheckForwardRowGroups<T, OutT, 1>(g, row_blocks, images);
  CheckForwardRowGroups<T, OutT, VectorLanes<T, OutT>()>(g, row_blocks, images);
}

// What LaunchResizeGrad does: a copy for the identity, else, per tile of
// input rows (GradPassesFor's, or `max_tile_rows` if fewer), the row pass
// into the tile's partial, then the column pass from it.
template <typename T, typename Index>
void CheckGradient(const ResizeGeometry& g, const LaunchGrid& rows_grid,
                   const LaunchGrid& columns_grid, int64_t max_tile_rows,
                   const std::vector<T>& grads) {
  const int64_t count = InputSize(g);
  std::vector<T> want(count);
  ResizeGradRowsOnBestPath(g, grads.data(), 0, g.batch * g.in_height, want.data(),
                           OutputStores::kCached);
  GradPasses passes = GradPassesFor(g);
  if (passes.copy) {
    return CompareBits(g, "identity gradient differs from the CPU kernel", grads, want,
                       std::vector<int>(count, 1));
  }
  if (count == 0) return;
  passes.tile_rows = std::min(passes.tile_rows, max_tile_rows);
  const std::vector<T> guarded = Guarded(grads);
  using A = AccumulatorType<T>;
  const Samplers<A> samplers = SamplersFor<A>(g);
  const int64_t partial_row = g.out_width * g.channels;
  const int64_t gradient_row = g.in_width * g.channels;
  std::vector<T> got(count);
  std::vector<int> writes(count, 0);
  for (int64_t first_row = 0; first_row < passes.rows; first_row += passes.tile_rows) {
    const int64_t tile_rows = std::min(passes.tile_rows, passes.rows - first_row);
    std::vector<A> partial(tile_rows * partial_row);
    const std::vector<int> partial_writes = RunGrid<A>(
        rows_grid, partial.size(),
        [&](int64_t i) {
          return GradRowPassElement<T, Index>(g, samplers, guarded.data() + kGuard,
                                              first_row, i);
        },
        &partial);
    for (size_t i = 0; i < partial_writes.size(); ++i) {
      if (partial_writes[i] != 1) {
        return Fail("partial index %zu not written exactly once: %s", i,
                    Describe(g).c_str());
      }
    }
    const std::vector<A> guarded_partial = Guarded(partial);
    std::vector<T> tile(tile_rows * gradient_row);
    const std::vector<int> tile_writes = RunGrid<T>(
        columns_grid, tile.size(),
        [&](int64_t i) {
          return GradColumnPassElement<T, Index>(
              g, samplers, guarded_partial.data() + kGuard, first_row, i);
        },
        &tile);
    for (size_t i = 0; i < tile.size(); ++i) {
      got[first_row * gradient_row + i] = tile[i];
      writes[first_row * gradient_row + i] += tile_writes[i];
    }
  }
  CompareBits(g, "gradient differs from the CPU kernel", got, want, writes);
}

// `count` values of type T in [-100, 100); with `denormals`, a third of them
// scaled to denormals and a third to just above the smallest normal, whose
// blends and weighted sums round into denormals.
template <typename T>
std::vector<T> TestValues(int64_t count, bool denormals, std::mt19937* rng) {
  const std::vector<double> random = RandomValues<double>(count, -100, 100, rng);
  const double tiny = std::numeric_limits<T>::min();
  std::vector<T> values(count);
  for (int64_t i = 0; i < count; ++i) {
    double value = random[i];
    if (denormals && i % 3 == 1) value *= tiny / 1024;
    if (denormals && i % 3 == 2) value *= tiny / 64;
    values[i] = static_cast<T>(value);
  }
  return values;
}

// `count` half or bfloat16 values in [-100, 100), or uint8 ones in [0, 100)
// (a negative float converted to an unsigned type is undefined).
template <typename T>
std::vector<T> SixteenBitValues(int64_t count, std::mt19937* rng) {
  const double low = std::is_unsigned<T>::value ? 0 : -100;
  const std::vector<float> values = RandomValues<float>(count, low, 100, rng);
  std::vector<T> converted(values.size());
  for (size_t i = 0; i < values.size(); ++i) converted[i] = static_cast<T>(values[i]);
  return converted;
}

// The launch grids of the kernels for `g`: the ones the launchers use, with
// the 32-bit index splitting they choose for these sizes, and one of 3 blocks,
// in which each thread walks several elements, as every thread does once an
// element count passes kMaxBlocks * kThreadsPerBlock, with 64-bit splitting.
template <typename Index>
void CheckGrid(const ResizeGeometry& g, bool strided, bool denormals, std::mt19937* rng) {
  const LaunchGrid small_grid = {3, kThreadsPerBlock};
  const int64_t partial_count = std::max<int64_t>(GradPassesFor(g).partial_count, 1);
  // Tiles of 1 input row on the strided grid (its pass grids walk whole tiles).
  const int64_t max_tile_rows = strided ? 1 : std::numeric_limits<int64_t>::max();
  const LaunchGrid forward = strided ? small_grid : GridFor(OutputSize(g));
  const LaunchGrid rows = strided ? small_grid : GridFor(partial_count);
  const LaunchGrid columns = strided ? small_grid : GridFor(InputSize(g));
  CheckForward<float, float, Index>(g, forward,
                                    TestValues<float>(InputSize(g), denormals, rng));
  CheckForward<double, double, Index>(g, forward,
                                      TestValues<double>(InputSize(g), denormals, rng));
  CheckForward<double, float, Index>(g, forward,
                                     TestValues<double>(InputSize(g), denormals, rng));
  const int64_t row_blocks = strided ? 2 : kMaxRowBlocks;
  CheckForwardRows<float, float>(g, row_blocks,
                                 TestValues<float>(InputSize(g), denormals, rng));
  CheckForwardRows<double, double>(g, row_blocks,
                                   TestValues<double>(InputSize(g), denormals, rng));
  // Lanes of two sizes: 16-byte loads and 8-byte stores.
  CheckForwardRows<double, float>(g, row_blocks,
                                  TestValues<double>(InputSize(g), denormals, rng));
  CheckGradient<float, Index>(g, rows, columns, max_tile_rows,
                              TestValues<float>(OutputSize(g), denormals, rng));
  CheckGradient<double, Index>(g, rows, columns, max_tile_rows,
                               TestValues<double>(OutputSize(g), denormals, rng));
  if (denormals) return;
  std::vector<uint8_t> bytes(InputSize(g));
  for (uint8_t& v : bytes) v = static_cast<uint8_t>((*rng)());
  CheckForward<uint8_t, float, Index>(g, forward, bytes);
  CheckForwardRows<uint8_t, float>(g, row_blocks, bytes);
  // Any 64 bits, so that the conversions to float round.
  std::vector<int64_t> longs(InputSize(g));
  for (int64_t& v : longs) v = static_cast<int64_t>((uint64_t{(*rng)()} << 32) | (*rng)());
  CheckForwardRows<int64_t, float>(g, row_blocks, longs);
  CheckForwardRows<Float16, Float16>(g, row_blocks,
                                     SixteenBitValues<Float16>(InputSize(g), rng));
  CheckForwardRows<Bfloat16, float>(g, row_blocks,
                                    SixteenBitValues<Bfloat16>(InputSize(g), rng));
  CheckGradient<Float16, Index>(g, rows, columns, max_tile_rows,
                                SixteenBitValues<Float16>(OutputSize(g), rng));
  CheckGradient<Bfloat16, Index>(g, rows, columns, max_tile_rows,
                                 SixteenBitValues<Bfloat16>(OutputSize(g), rng));
}

void CheckGeometry(const ResizeGeometry& g, std::mt19937* rng, bool denormals = false) {
  CheckGrid<int32_t>(g, /*strided=*/false, denormals, rng);
  CheckGrid<int64_t>(g, /*strided=*/true, denormals, rng);
}

// Every output element of ResizeRows for 16-bit images and outputs, against
// the element function evaluated at each index on the host.
template <typename T, typename OutT>
void CheckForwardElements(const ResizeGeometry& g, std::mt19937* rng) {
  const std::vector<T> images = SixteenBitValues<T>(InputSize(g), rng);
  std::vector<OutT> want(OutputSize(g)), got(OutputSize(g));
  ResizeRowsOnBestPath(g, images.data(), 0, g.batch * g.out_height, want.data(),
                       OutputStores::kCached);
  using A = AccumulatorType<OutT>;
  const Samplers<A> samplers = SamplersFor<A>(g);
  for (int64_t i = 0; i < OutputSize(g); ++i) {
    got[i] = ResizeElement<T, OutT>(g, samplers, images.data(), i);
  }
  const std::vector<int> once(want.size(), 1);
  CompareBits(g, "16-bit forward differs from the CPU kernel", got, want, once);
}

// Rows wider than one block or tile of the CPU kernels: the row buffers of
// the row-reusing forward path (and 16-bit images converted per block, or per
// value where a block's pixels overflow the buffer), several gradient tiles of
// input columns, tiles narrowed to fit their output columns, several column
// blocks per input pixel (also with pixels of 64 channels: two groups of
// four vectors each), and channels past a buffer.
BILINEAR_TEST(WideRows) {
  std::mt19937 rng(20261201);
  const int64_t shapes[][5] = {
      // in_h, in_w, out_h, out_w, channels
      {3, 3000, 4, 2000, 5},  // two gradient tiles, two forward column blocks
      {2, 300, 3, 1000, 64},  // gradient tiles narrowed by their columns
      {2, 2, 3, 5000, 8},     // gradient: several column blocks per pixel
      {2, 2, 3, 2100, 64},    // the same, two groups of vectors a pixel
      {3, 24, 2, 12, 128},    // gradient: four groups of vectors a pixel
      {3, 24, 2, 12, 24},     // gradient: three groups of one vector
      {2, 5000, 5, 3, 2},     // forward: a block reads past the buffer
      {3, 40, 7, 700, 9},     // forward: 16-bit images over two blocks
      {2, 2, 3, 2, 5000},     // channels past one row buffer
  };
  for (const auto& s : shapes) {
    ForEachAttrMode(1, s[0], s[1], s[2], s[3], s[4], [&](const ResizeGeometry& g) {
      CheckGeometry(g, &rng);
      CheckForwardElements<Float16, Float16>(g, &rng);
      CheckForwardElements<Float16, float>(g, &rng);
      CheckForwardElements<Bfloat16, Bfloat16>(g, &rng);
      CheckForwardElements<uint8_t, Float16>(g, &rng);
    });
  }
}

// Denormal images and gradients: the element functions agree with the CPU
// math bit for bit with denormals flushed, as both run under TensorFlow (the
// float GPU kernels flush too, -ftz=true), and with denormals kept, as double
// runs on a GPU. 4 channels: the vector row grid's lanes (4 floats, 2 doubles).
BILINEAR_TEST(Denormals) {
  std::mt19937 rng(20261202);
  for (const bool flush : {true, false}) {
    const ScopedFlushDenormals flushing(flush);
    ForEachSmallGeometry({1, 4}, {1, 3, 4},
                         [&](const ResizeGeometry& g) { CheckGeometry(g, &rng, true); });
  }
}

// The vector row grid is taken exactly where it is safe and worth it: a
// channel count that the lanes divide, both tensors aligned for them, and
// rows of at least half a block of groups.
BILINEAR_TEST(RowGridLanes) {
  Expect(VectorLanes<float, float>() == 4 && VectorLanes<double, double>() == 2 &&
             VectorLanes<double, float>() == 2 && VectorLanes<uint8_t, float>() == 4 &&
             VectorLanes<int64_t, float>() == 2 && VectorLanes<Float16, Float16>() == 4,
         "vector lanes: as many as fit 16 bytes of both types, at most 4");
  alignas(16) static float images[8];
  alignas(16) static float output[8];
  alignas(16) static double wide[8];
  struct Case {
    const char* what;
    ResizeGeometry g;
    const float* images;
    const float* output;
    int64_t lanes;
  };
  const Case cases[] = {
      {"64 channels, 512 per row", {1, 4, 4, 8, 8, 64, true, false}, images, output, 4},
      {"images misaligned", {1, 4, 4, 8, 8, 64, true, false}, images + 1, output, 1},
      {"output misaligned", {1, 4, 4, 8, 8, 64, true, false}, images, output + 2, 1},
      {"6 channels", {1, 4, 4, 100, 100, 6, true, false}, images, output, 1},
      {"32 groups per row", {1, 4, 4, 32, 32, 4, true, false}, images, output, 1},
      {"127 groups per row", {1, 4, 4, 127, 127, 4, true, false}, images, output, 1},
      {"128 groups per row", {1, 4, 4, 128, 128, 4, false, true}, images, output, 4},
      {"the identity", {1, 8, 8, 8, 8, 64, true, false}, images, output, 1},
  };
  for (const Case& c : cases) {
    const int64_t lanes = RowGridLanes(c.g, c.images, c.output);
    Expect(lanes == c.lanes, "%s: %lld lanes, want %lld", c.what,
           static_cast<long long>(lanes), static_cast<long long>(c.lanes));
  }
  const ResizeGeometry two_channels{1, 4, 4, 200, 200, 2, false, false};
  Expect(RowGridLanes(two_channels, wide, wide) == 2 &&
             RowGridLanes(two_channels, wide + 1, wide) == 1,
         "double: two lanes where aligned, else one");
  // Where the types differ in size, each tensor needs its own type's vectors:
  // 4 bytes of uint8 images but 16 of float outputs, 16 bytes of int64 images
  // but 8 of float outputs. A check against the other type's size would let a
  // vector store or load through a misaligned address, a fault on a GPU.
  alignas(16) static uint8_t bytes[16];
  alignas(16) static int64_t longs[8];
  const ResizeGeometry four_channels{1, 4, 4, 200, 200, 4, false, false};
  Expect(RowGridLanes(four_channels, bytes, output) == 4 &&
             RowGridLanes(four_channels, bytes + 4, output) == 4 &&
             RowGridLanes(four_channels, bytes + 2, output) == 1 &&
             RowGridLanes(four_channels, bytes, output + 1) == 1,
         "uint8 into float: 4-byte aligned images, 16-byte aligned output");
  Expect(RowGridLanes(two_channels, longs, output) == 2 &&
             RowGridLanes(two_channels, longs, output + 2) == 2 &&
             RowGridLanes(two_channels, longs + 1, output) == 1 &&
             RowGridLanes(two_channels, longs, output + 1) == 1,
         "int64 into float: 16-byte aligned images, 8-byte aligned output");
}

// The grid stays within CUDA's limits (an int of blocks) for any element
// count, and gives every element a thread of its own up to kMaxBlocks blocks.
BILINEAR_TEST(GridLimits) {
  for (const int64_t count : {int64_t{1}, int64_t{255}, int64_t{256}, int64_t{257},
                              kMaxBlocks * kThreadsPerBlock + 1, int64_t{1} << 31,
                              (int64_t{1} << 40) + 3}) {
    const LaunchGrid grid = GridFor(count);
    const bool fits = grid.blocks >= 1 && grid.blocks <= kMaxBlocks &&
                      grid.threads_per_block == kThreadsPerBlock;
    const bool one_each = count > kMaxBlocks * kThreadsPerBlock ||
                          (Stride(grid) >= count && Stride(grid) - count < kThreadsPerBlock);
    Expect(fits && one_each, "launch grid for %lld elements: %lld blocks of %lld threads",
           static_cast<long long>(count), static_cast<long long>(grid.blocks),
           static_cast<long long>(grid.threads_per_block));
  }
}

// Both grids over the CPU math test's matrix of small geometries.
BILINEAR_TEST(SmallGeometries) {
  std::mt19937 rng(20261130);
  const int64_t geometries = ForEachSmallGeometry(
      {1, 4, 10}, {1, 3, 4, 17},
      [&](const ResizeGeometry& g) { CheckGeometry(g, &rng); });
  std::printf("checked %lld geometries on two launch grids each\n",
              static_cast<long long>(geometries));
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
