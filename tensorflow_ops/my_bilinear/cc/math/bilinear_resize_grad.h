// Gradient of the bilinear resize (its exact adjoint), one range of input rows
// at a time.
//
// TensorFlow-free. Rather than scattering every output pixel into the input
// gradient (which races when parallel), each input row gathers from the output
// rows that read it, in ascending order, so each input-row result is a fixed
// sequence of operations: the same bits whichever thread computes it and
// however the rows are split. Nothing is allocated: the output rows (and
// columns) that read an input row (or column) are contiguous and found by
// search, and each row is summed in tiles of input columns on the stack
// (bilinear_grad_rows.h, then bilinear_grad_columns.h), so that every
// input-gradient value is written once, finished.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_GRAD_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_GRAD_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_prefetch.h"
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_axis_adjoint.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_copy_rows.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_columns.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_grad_rows.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Values of A in one tile (columns x channels, of the vertical sums and of
// the input-gradient sums): 32 KB, and the most output columns summed at once.
// Smaller tiles cost time (each one repeats the search for the output rows of
// every input row); these keep the stack frame near 60 KB for float and
// under 100 KB for the other dtypes (bilinear_stack_test runs it on a 112 KB
// stack).
template <typename A>
constexpr int64_t kTileElements = 32768 / sizeof(A);

// The input columns [*begin, *end) of one tile from `begin`, and the output
// columns [*first_column, *end_column) that read them: at most
// `max_pixels` pixels, fewer where more than `block_columns` output
// columns would read them, but at least one.
template <typename A>
void NextColumnTile(const AxisSampler<A>& columns, int64_t in_width,
                    int64_t out_width, int64_t begin, int64_t max_pixels,
                    int64_t block_columns, int64_t* end, int64_t* first_column,
                    int64_t* end_column) {
  int64_t unused;
  OutputRowsReading(columns, out_width, begin, first_column, &unused);
  *end = std::min(in_width, begin + max_pixels);
  OutputRowsReading(columns, out_width, *end - 1, &unused, end_column);
  while (*end_column - *first_column > block_columns && *end - begin > 1) {
    // Fewer pixels, in proportion to the excess of columns (and at least one).
    const int64_t pixels = *end - begin;
    const int64_t fitting = pixels * block_columns / (*end_column - *first_column);
    *end = begin + std::max<int64_t>(1, std::min(pixels - 1, fitting));
    OutputRowsReading(columns, out_width, *end - 1, &unused, end_column);
  }
}

// The most bytes of output rows read ahead: they go to the L1 cache, which
// must still hold the rows being summed.
constexpr int64_t kGradPrefetchBytes = 32 * 1024;

// Asks the cache for the output rows from `first_new` that input row `in_y`
// reads (`count` values of each, from tile + row * row_size), where they fit
// in kGradPrefetchBytes.
template <typename A, typename T>
void PrefetchNextRows(const AxisSampler<A>& rows, int64_t out_height, int64_t in_y,
                      int64_t first_new, const T* tile, int64_t row_size,
                      int64_t count) {
  if (count == 0) return;
  int64_t end = first_new;
  while (end < out_height && rows.At(end).lower <= in_y) ++end;
  const int64_t bytes = count * static_cast<int64_t>(sizeof(T));
  if (end == first_new || (end - first_new) * bytes > kGradPrefetchBytes) return;
  PrefetchRuns(reinterpret_cast<const char*>(tile + first_new * row_size),
               end - first_new, row_size * static_cast<int64_t>(sizeof(T)), bytes);
}

// Input rows that gather the same values as the row before them copy it where
// a pixel's sums take at most this many bytes: the gather of a few channels a
// pixel costs more than the copy; that of 64 float channels, bound by its
// stores, cost less (docs/cpu_performance.md#kmaxcopiedpixelbytes).
constexpr int64_t kMaxCopiedPixelBytes = 64;

// Copies `pixels` pixels of `channels` values each, `stride` values apart,
// from `source` to `destination`.
template <typename T>
void CopyTile(const T* source, int64_t pixels, int64_t channels, int64_t stride,
              T* destination) {
  if (channels == stride) {
    std::copy(source, source + pixels * channels, destination);
    return;
  }
  for (int64_t p = 0; p < pixels; ++p) {
    std::copy(source + p * stride, source + p * stride + channels,
              destination + p * stride);
  }
}

// Writes input-gradient rows [begin_row, end_row), where row r is image
// r / in_height, row r % in_height. `grads` is [batch, out_h, out_w, c] and
// `images_grad` [batch, in_h, in_w, c], both dense. Sums are formed in
// A = AccumulatorType<T> and written to `images_grad` once, converted.
//
// Each input row is summed one tile of input columns at a time: the output
// rows that read the row are added first, up to four in one pass, in
// ascending order (one product and one sum per row and value); then each
// pixel of the tile adds, in registers, the columns of that sum that read it,
// in ascending order, and is stored once. So every pixel gets the same
// additions in the same order whatever the tiling. Where one output row alone
// reads the input row, its columns are added straight from the upstream
// gradient, with the row weight in each term's weight; rows no output row
// reads are zeroed directly. Float and double sums are formed in the gradient
// itself; half and bfloat16 ones on the stack, converted once. While a row is
// summed, the output rows that only the next one reads are fetched into the
// cache, where they are few. A row that gathers what the row before it did
// (each pair of rows of a half-pixel 2x down-sampling) copies it instead,
// where pixels are narrow (kMaxCopiedPixelBytes).
//
// kChannels, where nonzero, is g.channels known at compile time: with 3,
// pixels are gathered 4 values at a time (GatherThreeChannels).
//
// With OutputStores::kStreaming (StoresForOutput), float rows of whole
// 8-float groups in a 16-byte aligned output are written with streaming
// stores, gathered (never copied from the row before, which is not in the
// cache), and fenced before returning; other rows and types are cached.
template <typename T, int kChannels, typename A = AccumulatorType<T>>
void ResizeGradRowsOf(const ResizeGeometry& g, const T* grads, int64_t begin_row,
                      int64_t end_row, T* images_grad,
                      OutputStores stores = OutputStores::kCached) {
  // The identity resize is its own adjoint: the upstream gradient passes
  // through unchanged (an Inf stays Inf).
  if (IsIdentity(g)) return CopyRows(g, grads, begin_row, end_row, images_grad);
  const Samplers<A> samplers = SamplersFor<A>(g);
  const AxisSampler<A>& row_sampler = samplers.rows;
  const AxisSampler<A>& column_sampler = samplers.columns;
  const int64_t c = kChannels > 0 ? kChannels : g.channels;
  const int64_t out_row_size = g.out_width * c;
  const int64_t in_row_size = g.in_width * c;
  const bool stream = std::is_same<T, float>::value && kHaveStreamingStores &&
                      stores == OutputStores::kStreaming && c % 8 == 0 &&
                      reinterpret_cast<uintptr_t>(images_grad) % 16 == 0;

  // Channels are taken `chunk` at a time, so that a tile holds 16 pixels at
  // least; output columns `block_columns` at a time.
  constexpr int64_t kTile = kTileElements<A>;
  const int64_t chunk = std::min(c, kTile / 16);
  const int64_t block_columns =
      std::max<int64_t>(1, std::min(kGradColumnBlock, kTile / chunk));
  const int64_t max_pixels = std::min(kGradTilePixels, kTile / chunk);
  ColumnTerms<A> terms;
  A vertical_sum[kTile];
  A tile_sums[kTile];
  for (int64_t c0 = 0; c0 < c; c0 += chunk) {
    const int64_t channels = std::min(chunk, c - c0);
    int64_t end_pixel = 0;
    for (int64_t first_pixel = 0; first_pixel < g.in_width; first_pixel = end_pixel) {
      int64_t first_column = 0, end_column = 0;
      NextColumnTile(column_sampler, g.in_width, g.out_width, first_pixel,
                     max_pixels, block_columns, &end_pixel, &first_column,
                     &end_column);
      const int64_t tile_pixels = end_pixel - first_pixel;
      // The columns' terms, found once where one block holds them.
      const bool one_block = end_column - first_column <= block_columns;
      if (one_block) {
        FindColumnTerms(column_sampler, first_column, end_column - first_column,
                        first_pixel, tile_pixels, &terms);
      }
      int64_t b = begin_row / g.in_height;
      int64_t next_in_y = begin_row % g.in_height;
      // The output rows [first, last) that read the current input row. Both
      // ends only grow with the input row, so after a search for the range's
      // first row they are advanced, not searched again.
      int64_t first = 0, last = 0;
      bool search = true;
      // Where the previous input row of this tile read one output row alone,
      // that row and its weight: an input row that reads the same one with
      // the same weight (each pair of rows of a half-pixel 2x down-sampling)
      // gets the same values, copied instead of gathered again, where a
      // pixel's sums fit in kMaxCopiedPixelBytes.
      const bool copies_rows =
          !stream && channels * static_cast<int64_t>(sizeof(A)) <= kMaxCopiedPixelBytes;
      const T* single_grads = nullptr;
      int64_t single_row = -1;
      A single_weight = A(0);
      for (int64_t row = begin_row; row < end_row; ++row) {
        const int64_t in_y = next_in_y;
        const T* image_grads = grads + b * g.out_height * out_row_size;
        if (search) {
          OutputRowsReading(row_sampler, g.out_height, in_y, &first, &last);
          search = false;
        } else {
          while (first < g.out_height && row_sampler.At(first).upper < in_y) ++first;
          while (last < g.out_height && row_sampler.At(last).lower <= in_y) ++last;
        }
        // The output rows that the next input row adds to these, read now
        // (while these are summed) from memory, where they are few enough to
        // stay near: the prefetcher does not see them coming.
        if (channels == c && in_y + 1 < g.in_height) {
          PrefetchNextRows(row_sampler, g.out_height, in_y + 1, last,
                           image_grads + first_column * c, out_row_size,
                           (end_column - first_column) * c);
        }
        if (++next_in_y == g.in_height) {  // the next row starts a new image
          next_in_y = 0;
          ++b;
          search = true;
        }
        T* out = images_grad + row * in_row_size + first_pixel * c + c0;
        if (copies_rows && one_block && last - first == 1) {
          const A weight = WeightOfNeighbour(row_sampler.At(first), in_y);
          if (image_grads == single_grads && first == single_row &&
              weight == single_weight) {
            CopyTile(out - in_row_size, tile_pixels, channels, c, out);
            continue;
          }
          single_grads = image_grads;
          single_row = first;
          single_weight = weight;
        } else {
          single_grads = nullptr;
        }
        // No output row reads this row, or no output column these pixels:
        // zeros.
        if (first == last || first_column == end_column) {
          const T zero = static_cast<T>(A(0));
          if (channels == c) {
            std::fill(out, out + tile_pixels * c, zero);
          } else {
            for (int64_t p = 0; p < tile_pixels; ++p) {
              std::fill(out + p * c, out + p * c + channels, zero);
            }
          }
          continue;
        }
        // The tile's sums: in the gradient itself where T = A, else on the
        // stack, converted at the end.
        A* sums = tile_sums;
        int64_t sums_stride = channels;
        if constexpr (std::is_same<T, A>::value) {
          sums = out;
          sums_stride = c;
        }
        if (!one_block) {  // each block adds to the sums of those before it
          for (int64_t p = 0; p < tile_pixels; ++p) {
            std::fill(sums + p * sums_stride, sums + p * sums_stride + channels, A(0));
          }
        }
        for (int64_t x0 = first_column; x0 < end_column; x0 += block_columns) {
          const int64_t width = std::min(block_columns, end_column - x0);
          if (!one_block) {
            FindColumnTerms(column_sampler, x0, width, first_pixel, tile_pixels, &terms);
          }
          auto source_row = [&](int64_t y) {
            return image_grads + y * out_row_size + x0 * c + c0;
          };
          auto gather = [&](const A* source, int64_t source_stride, A weight) {
            if constexpr (kChannels == 3) {
              if (one_block) {
                return GatherThreeChannels(source, weight, terms, tile_pixels, sums);
              }
            }
            if (one_block) {
              GatherColumns</*kAccumulate=*/false>(source, source_stride, weight,
                                                  terms, tile_pixels, channels,
                                                  sums, sums_stride, stream);
            } else {
              GatherColumns</*kAccumulate=*/true>(source, source_stride, weight,
                                                 terms, tile_pixels, channels,
                                                 sums, sums_stride);
            }
          };
          if (last - first == 1) {
            const A weight = WeightOfNeighbour(row_sampler.At(first), in_y);
            if constexpr (std::is_same<T, A>::value) {
              gather(source_row(first), c, weight);
            } else {
              // Half and bfloat16 are converted first, in one pass (exactly:
              // 1 * value is the value), then gathered as float.
              SumOutputRows(row_sampler, first, last, in_y, /*unweighted=*/true,
                            source_row(first), out_row_size, c, width, channels,
                            vertical_sum);
              gather(vertical_sum, channels, weight);
            }
            continue;
          }
          // Several output rows read this row: their weighted sum first, then
          // one gather.
          SumOutputRows(row_sampler, first, last, in_y, /*unweighted=*/false,
                        source_row(first), out_row_size, c, width, channels,
                        vertical_sum);
          gather(vertical_sum, channels, A(1));
        }
        if constexpr (!std::is_same<T, A>::value) {
          if (channels == c) {
            ConvertValues(tile_sums, tile_pixels * c, out);
          } else {
            for (int64_t p = 0; p < tile_pixels; ++p) {
              ConvertValues(tile_sums + p * channels, channels, out + p * c);
            }
          }
        }
      }
    }
  }
  if (stream) FinishStreamingStores();
}

// Calls fn(std::integral_constant<int, kChannels>()) with the kChannels of
// ResizeGradRowsOf's instance for `channels`: 3 for RGB pixels, whose code
// is kept apart so that it leaves that of other channel counts as it is
// (ResizeGradRowsOnPath compiles each instance into a function of its own),
// else 0.
template <typename Fn>
void WithGradChannels(int64_t channels, const Fn& fn) {
  if (channels == 3) return fn(std::integral_constant<int, 3>());
  fn(std::integral_constant<int, 0>());
}

// ResizeGradRowsOf's instance for g's channel count.
template <typename T>
void ResizeGradRows(const ResizeGeometry& g, const T* grads, int64_t begin_row,
                    int64_t end_row, T* images_grad,
                    OutputStores stores = OutputStores::kCached) {
  WithGradChannels(g.channels, [&](auto channels) {
    ResizeGradRowsOf<T, decltype(channels)::value>(g, grads, begin_row, end_row,
                                                   images_grad, stores);
  });
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_GRAD_H_
