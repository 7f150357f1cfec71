// Gradient of the bilinear resize (its exact adjoint), one range of input rows
// at a time.
//
// TensorFlow-free. Rather than scattering every output pixel into the input
// gradient (which races when parallel), each input row gathers from the output
// rows that read it, in ascending order, so each input-row result is a fixed
// sequence of operations: the same bits whichever thread computes it and
// however the rows are split. Nothing is allocated: the output rows (and
// columns) that read an input row (or column) are found by binary search (they
// are contiguous), and each row is summed in tiles of input columns on the
// stack, so that every input-gradient value is written once, finished.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_GRAD_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_GRAD_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_resize.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Values of A in one tile (columns x channels, of the vertical sums and of
// the input-gradient sums): 32 KB, and the most output columns summed at once.
// Smaller tiles cost time (each one repeats the search for the output rows of
// every input row); these keep the stack frame near 95 KB for float and double
// alike (bilinear_stack_test runs it on a 256 KB stack).
template <typename A>
constexpr int64_t kTileElements = 32768 / sizeof(A);
constexpr int64_t kGradColumnBlock = 1024;

// The output rows [*begin, *end) that read input row `in_y`. Every output row
// blends two neighbouring (or equal) input rows, and both never decrease with
// the output row, so the rows with upper >= in_y and lower <= in_y are
// contiguous, and each of them reads `in_y`.
template <typename A>
void OutputRowsReading(const AxisSampler<A>& rows, int64_t out_height,
                       int64_t in_y, int64_t* begin, int64_t* end) {
  auto first = [&](auto is_past) {  // the first output row where is_past holds
    int64_t low = 0, high = out_height;
    while (low < high) {
      const int64_t middle = low + (high - low) / 2;
      if (is_past(rows.At(middle))) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    return low;
  };
  *begin = first([in_y](const AxisWeight<A>& w) { return w.upper >= in_y; });
  *end = first([in_y](const AxisWeight<A>& w) { return w.lower > in_y; });
}

// The vertical weight with which output row weight `w` reads input row `in_y`.
template <typename A>
A RowWeight(const AxisWeight<A>& w, int64_t in_y) {
  // Where both neighbours are the same row, the forward pass returns that row
  // unchanged: weight exactly 1.
  if (w.lower == w.upper) return A(1);
  return w.lower == in_y ? A(1) - w.lerp : w.lerp;
}

// Adds `weight` times the horizontal adjoint of `width` columns of output
// gradients into `row_grad`. Column x of `source` starts at x * source_stride,
// input pixel i of `row_grad` at (i - first_pixel) * pixel_stride; `channels`
// values of each are used. kChannels > 0 fixes all three at compile time. The left and right
// neighbours of a column are distinct pixels, so their channel ranges never
// overlap; saying so (__restrict__) lets the compiler vectorize the channels.
template <int kChannels, typename S, typename A>
void ScatterColumns(const S* __restrict__ source, int64_t source_stride, A weight,
                    const AxisWeight<A>* __restrict__ columns, int64_t width,
                    int64_t first_pixel, int64_t pixel_stride, int64_t channels,
                    A* __restrict__ row_grad) {
  const int64_t c_count = kChannels > 0 ? kChannels : channels;
  const int64_t s_stride = kChannels > 0 ? kChannels : source_stride;
  const int64_t p_stride = kChannels > 0 ? kChannels : pixel_stride;
  for (int64_t x = 0; x < width; ++x) {
    const S* __restrict__ g = source + x * s_stride;
    A* __restrict__ left = row_grad + (columns[x].lower - first_pixel) * p_stride;
    if (columns[x].upper == columns[x].lower) {
      // The forward pass returns that column unchanged: weight exactly 1.
      for (int64_t c = 0; c < c_count; ++c) left[c] += weight * static_cast<A>(g[c]);
      continue;
    }
    const A left_weight = weight * (A(1) - columns[x].lerp);
    const A right_weight = weight * columns[x].lerp;
    A* __restrict__ right = row_grad + (columns[x].upper - first_pixel) * p_stride;
    for (int64_t c = 0; c < c_count; ++c) {
      const A value = static_cast<A>(g[c]);
      left[c] += left_weight * value;
      right[c] += right_weight * value;
    }
  }
}

template <typename S, typename A>
void ScatterTile(const S* source, int64_t source_stride, A weight,
                 const AxisWeight<A>* columns, int64_t width, int64_t first_pixel,
                 int64_t channels, A* row_grad) {
  // `row_grad` holds `channels` values per pixel; `source` may be wider.
  switch (source_stride == channels ? channels : 0) {
    case 1:
      return ScatterColumns<1>(source, 1, weight, columns, width, first_pixel, 1,
                               1, row_grad);
    case 3:
      return ScatterColumns<3>(source, 3, weight, columns, width, first_pixel, 3,
                               3, row_grad);
    case 4:
      return ScatterColumns<4>(source, 4, weight, columns, width, first_pixel, 4,
                               4, row_grad);
    default:
      return ScatterColumns<0>(source, source_stride, weight, columns, width,
                               first_pixel, channels, channels, row_grad);
  }
}

// total[i] (=, where kFirst, else +=) weight * values[i], for `count` values.
template <bool kFirst, typename V, typename A>
void AddWeightedValues(const V* __restrict__ values, int64_t count, A weight,
                       A* __restrict__ total) {
  for (int64_t i = 0; i < count; ++i) {
    const A term = weight * static_cast<A>(values[i]);
    total[i] = kFirst ? term : total[i] + term;
  }
}

// AddWeightedValues of `count` contiguous values of T. Half and bfloat16 are
// converted a block at a time in one vectorized pass (F16C for half), not one
// value at a time in the sum; the conversion is exact, so the sums are the same.
template <bool kFirst, typename T, typename A>
void AddWeightedRun(const T* values, int64_t count, A weight, A* total) {
  if constexpr (std::is_same<T, A>::value) {
    AddWeightedValues<kFirst>(values, count, weight, total);
  } else {
    constexpr int64_t kBlock = 128;
    A converted[kBlock];
    for (int64_t i = 0; i < count; i += kBlock) {
      const int64_t n = std::min(kBlock, count - i);
      ConvertValues(values + i, n, converted);
      AddWeightedValues<kFirst>(converted, n, weight, total + i);
    }
  }
}

// sum (=, where kFirst, else +=) weight * the tile of `width` columns of
// `channels` values starting at `source`, whose columns are `stride` apart.
template <bool kFirst, typename T, typename A>
void AddWeightedTile(const T* source, int64_t stride, A weight, int64_t width,
                     int64_t channels, A* sum) {
  if (channels == stride) {  // the tile's values are contiguous
    return AddWeightedRun<kFirst>(source, width * channels, weight, sum);
  }
  for (int64_t x = 0; x < width; ++x) {
    AddWeightedRun<kFirst>(source + x * stride, channels, weight,
                           sum + x * channels);
  }
}

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

// Writes input-gradient rows [begin_row, end_row), where row r is image
// r / in_height, row r % in_height. `grads` is [batch, out_h, out_w, c] and
// `images_grad` [batch, in_h, in_w, c], both dense. Sums are formed in
// A = AccumulatorType<T> and written to `images_grad` once, converted.
//
// Each input row is summed one tile of input columns at a time: the output
// rows that read the row are added first (one multiply-add per value, in
// ascending order), then scattered to the tile's pixels by the output columns
// that read them, in ascending order. A tile's sums live on the stack with one
// pixel of margin each side, which takes the halves of the scatters of its
// edge columns that belong to the neighbouring tiles. So every pixel gets the
// same additions in the same order whatever the tiling, and the gradient is
// written once instead of zeroed, read and written back. Where one tile is
// the whole row of a float or double gradient, the row is its own tile; rows
// no output row reads are zeroed directly.
template <typename T, typename A = AccumulatorType<T>>
void ResizeGradRows(const ResizeGeometry& g, const T* grads, int64_t begin_row,
                    int64_t end_row, T* images_grad) {
  // The identity resize is its own adjoint: the upstream gradient passes
  // through unchanged (an Inf stays Inf).
  if (IsIdentity(g)) return CopyRows(g, grads, begin_row, end_row, images_grad);
  const AxisSampler<A> row_sampler(g.in_height, g.out_height, g.align_corners,
                                   g.half_pixel_centers);
  const AxisSampler<A> column_sampler(g.in_width, g.out_width, g.align_corners,
                                      g.half_pixel_centers);
  const int64_t c = g.channels;
  const int64_t out_row_size = g.out_width * c;
  const int64_t in_row_size = g.in_width * c;

  // Channels are taken `chunk` at a time, so that a tile holds 16 pixels at
  // least; output columns `block_columns` at a time.
  constexpr int64_t kTile = kTileElements<A>;
  const int64_t chunk = std::min(c, kTile / 16);
  const int64_t block_columns =
      std::max<int64_t>(1, std::min(kGradColumnBlock, kTile / chunk));
  const int64_t max_pixels = kTile / chunk;
  AxisWeight<A> columns[kGradColumnBlock];
  A vertical_sum[kTile];
  A tile_sums[kTile + 2 * kTile / 16];  // and the margins
  for (int64_t c0 = 0; c0 < c; c0 += chunk) {
    const int64_t channels = std::min(chunk, c - c0);
    int64_t end_pixel = 0;
    for (int64_t first_pixel = 0; first_pixel < g.in_width; first_pixel = end_pixel) {
      int64_t first_column = 0, end_column = 0;
      NextColumnTile(column_sampler, g.in_width, g.out_width, first_pixel,
                     max_pixels, block_columns, &end_pixel, &first_column,
                     &end_column);
      const int64_t tile_pixels = end_pixel - first_pixel;
      // Where the tile is the whole row, in every channel, no column reaches
      // past it: the sums of T = A are formed in the gradient itself.
      const bool in_place = std::is_same<T, A>::value && tile_pixels == g.in_width &&
                            channels == c;
      // Else the tile's sums start one pixel to the left (its margin).
      const int64_t margin_pixel = in_place ? 0 : first_pixel - 1;
      const int64_t tile_values = (tile_pixels + 2) * channels;
      // Weights of the output columns, computed once where one block holds them.
      const bool one_block = end_column - first_column <= block_columns;
      if (one_block) {
        for (int64_t x = first_column; x < end_column; ++x) {
          columns[x - first_column] = column_sampler.At(x);
        }
      }
      int64_t b = begin_row / g.in_height;
      int64_t next_in_y = begin_row % g.in_height;
      // The output rows [first, last) that read the current input row. Both
      // ends only grow with the input row, so after a search for the range's
      // first row they are advanced, not searched again.
      int64_t first = 0, last = 0;
      bool search = true;
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
        if (++next_in_y == g.in_height) {  // the next row starts a new image
          next_in_y = 0;
          ++b;
          search = true;
        }
        T* out = images_grad + row * in_row_size + first_pixel * c + c0;
        if (first == last) {  // no output row reads this row: zeros
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
        A* sums = tile_sums;
        if constexpr (std::is_same<T, A>::value) {
          if (in_place) sums = out;
        }
        std::fill(sums, sums + (in_place ? tile_pixels * c : tile_values), A(0));
        for (int64_t x0 = first_column; x0 < end_column; x0 += block_columns) {
          const int64_t width = std::min(block_columns, end_column - x0);
          if (!one_block) {
            for (int64_t x = 0; x < width; ++x) columns[x] = column_sampler.At(x0 + x);
          }
          auto source_row = [&](int64_t y) {
            return image_grads + y * out_row_size + x0 * c + c0;
          };
          if (last - first == 1) {
            const A weight = RowWeight(row_sampler.At(first), in_y);
            if constexpr (std::is_same<T, A>::value) {
              ScatterTile(source_row(first), c, weight, columns, width,
                          margin_pixel, channels, sums);
            } else {
              // Half and bfloat16 are converted first, in one pass (exactly:
              // 1 * value is the value), then scattered as float.
              AddWeightedTile</*kFirst=*/true>(source_row(first), c, A(1), width,
                                               channels, vertical_sum);
              ScatterTile(vertical_sum, channels, weight, columns, width,
                          margin_pixel, channels, sums);
            }
            continue;
          }
          // Several output rows read this row: their weighted sum first, in
          // ascending order, then one scatter.
          for (int64_t y = first; y < last; ++y) {
            const A weight = RowWeight(row_sampler.At(y), in_y);
            if (y == first) {
              AddWeightedTile</*kFirst=*/true>(source_row(y), c, weight, width,
                                               channels, vertical_sum);
            } else {
              AddWeightedTile</*kFirst=*/false>(source_row(y), c, weight, width,
                                                channels, vertical_sum);
            }
          }
          ScatterTile(vertical_sum, channels, A(1), columns, width, margin_pixel,
                      channels, sums);
        }
        if (in_place) continue;
        // The tile's own pixels, past the left margin.
        if (channels == c) {
          ConvertValues(tile_sums + channels, tile_pixels * c, out);
        } else {
          for (int64_t p = 0; p < tile_pixels; ++p) {
            ConvertValues(tile_sums + (p + 1) * channels, channels, out + p * c);
          }
        }
      }
    }
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_GRAD_H_
