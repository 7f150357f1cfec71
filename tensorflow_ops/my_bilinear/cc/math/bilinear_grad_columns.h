// The horizontal half of the gradient (bilinear_resize_grad.h): the output
// columns that read each input pixel of a tile, found once per tile as a list
// of terms, and their weighted sum for every pixel, formed in registers.
//
// TensorFlow-free. Each pixel's terms are added in ascending column order from
// 0, with the products of scattering each column into its two neighbours
// (weight * column weight, then times the value): the order that the GPU
// (bilinear_grad_passes.h) and XLA (bilinear_adjoint_terms.h) kernels repeat,
// so all of them give the same bits.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_COLUMNS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_COLUMNS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_axis_adjoint.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// The most output columns summed at once.
constexpr int64_t kGradColumnBlock = 1024;

// The most input pixels in one tile.
constexpr int64_t kGradTilePixels = 2048;

// For each pixel of a tile, the output columns of one block that read it, in
// ascending order, and their weights: pixel i gets weight[k] * column
// column[k] (relative to the block) for k in [first_term[i], first_term[i + 1]).
// A column reads at most two pixels, so a block has at most two terms a column.
template <typename A>
struct ColumnTerms {
  int32_t most_terms;  // the most terms of any pixel
  int32_t first_term[kGradTilePixels + 1];
  int32_t column[2 * kGradColumnBlock];
  A weight[2 * kGradColumnBlock];
};

// The terms of output columns [first_column, first_column + width) for input
// pixels [first_pixel, first_pixel + pixels). A column's weight is that of its
// scatter: 1 where both its neighbours are the pixel (the forward pass returns
// the pixel unchanged), else 1 - lerp for its lower neighbour and lerp for its
// upper one.
template <typename A>
void FindColumnTerms(const AxisSampler<A>& sampler, int64_t first_column,
                     int64_t width, int64_t first_pixel, int64_t pixels,
                     ColumnTerms<A>* terms) {
  // The columns [begin, end) reading a pixel: both ends only grow with it.
  int64_t begin = 0, end = 0;
  int32_t count = 0;
  terms->most_terms = 0;
  for (int64_t i = 0; i < pixels; ++i) {
    const int64_t pixel = first_pixel + i;
    terms->first_term[i] = count;
    while (begin < width && sampler.At(first_column + begin).upper < pixel) ++begin;
    end = std::max(end, begin);
    while (end < width && sampler.At(first_column + end).lower <= pixel) ++end;
    for (int64_t x = begin; x < end; ++x) {
      const AxisWeight<A> w = sampler.At(first_column + x);
      terms->column[count] = static_cast<int32_t>(x);
      terms->weight[count] = WeightOfNeighbour(w, pixel);
      ++count;
    }
    terms->most_terms = std::max(terms->most_terms, count - terms->first_term[i]);
  }
  terms->first_term[pixels] = count;
}

// kLanes values of A, in a vector register (or two) where the target has
// them: its arithmetic is element by element, IEEE as the scalar's.
#if defined(__GNUC__)
template <typename A, int kLanes>
struct LaneVector {
  typedef A Type __attribute__((vector_size(kLanes * sizeof(A))));
};
#else
// Compilers without vector types: an array with the same arithmetic.
template <typename A, int kLanes>
struct LaneVector {
  struct Type {
    A lane[kLanes];
    friend Type operator+(const Type& a, const Type& b) {
      Type sum;
      for (int i = 0; i < kLanes; ++i) sum.lane[i] = a.lane[i] + b.lane[i];
      return sum;
    }
    friend Type operator*(A scale, const Type& a) {
      Type product;
      for (int i = 0; i < kLanes; ++i) product.lane[i] = scale * a.lane[i];
      return product;
    }
  };
};
#endif
template <typename A>
struct LaneVector<A, 1> {  // one lane: the scalar itself
  using Type = A;
};

// Adds its terms to each of pixels [first_pixel, pixels), `groups` groups of
// kVectors vectors of kLanes channels: pixel i, at sums + i * sums_stride, gets
// (weight * term weight) * column for each of its terms in ascending order,
// summed in registers and stored once. Column x of `source` starts at
// x * source_stride. These are the products, and the order, of scattering the
// columns one at a time into sums that start at 0 (or hold earlier blocks'
// terms, where kAccumulate): the same bits. A pixel's groups are summed one
// after the other, so that its values are stored in order (a pass over the
// pixels per group, which stored every other part of each pixel, stalled on
// its stores: docs/cpu_performance.md#gathercolumns). kStream writes the
// sums with streaming stores (GatherColumns says where).
template <int kLanes, int kVectors, bool kAccumulate, bool kStream = false,
          typename A>
void GatherLanes(const A* source, int64_t source_stride, A weight,
                 const ColumnTerms<A>& terms, int64_t pixels, int64_t groups,
                 A* sums, int64_t sums_stride, int64_t first_pixel = 0) {
  static_assert(!kStream || (std::is_same<A, float>::value && kLanes % 4 == 0 &&
                             !kAccumulate),
                "streams whole 16-byte units of float sums");
  using Vector = typename LaneVector<A, kLanes>::Type;
  constexpr int64_t kGroupValues = int64_t{kLanes} * kVectors;
  auto store = [](const Vector& total, A* out) {
    if constexpr (kStream) {
      float values[kLanes];
      std::memcpy(values, &total, sizeof(Vector));
      for (int h = 0; h < kLanes; h += 4) StreamFourFloats(values + h, out + h);
    } else {
      std::memcpy(out, &total, sizeof(Vector));
    }
  };
  // Tiles where no pixel has more than one term (every 2x down-sampling):
  // the same products and sums as below, without the loop over terms, whose
  // bookkeeping cost more than the stores where the result is in the cache
  // or streamed (benchmarks/README.md#against-the-simplest-kernels-c).
  if constexpr (!kAccumulate) {
    if (terms.most_terms <= 1) {
      for (int64_t i = first_pixel; i < pixels; ++i) {
        const int32_t k = terms.first_term[i];
        A* pixel_sums = sums + i * sums_stride;
        if (terms.first_term[i + 1] == k) {  // no term: the sums' start, 0
          for (int64_t v = 0; v < groups * kVectors; ++v) {
            store(Vector{}, pixel_sums + v * kLanes);
          }
          continue;
        }
        const A term_weight = weight * terms.weight[k];
        const A* column = source + terms.column[k] * source_stride;
        for (int64_t v = 0; v < groups * kVectors; ++v) {
          Vector value;
          std::memcpy(&value, column + v * kLanes, sizeof(Vector));
          store(Vector{} + term_weight * value, pixel_sums + v * kLanes);
        }
      }
      return;
    }
  }
  for (int64_t i = first_pixel; i < pixels; ++i) {
    for (int64_t group = 0; group < groups; ++group) {
      const int64_t offset = group * kGroupValues;
      A* group_sums = sums + i * sums_stride + offset;
      Vector total[kVectors];
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) {
        total[v] = Vector{};
        if (kAccumulate) std::memcpy(&total[v], group_sums + v * kLanes, sizeof(Vector));
      }
      for (int32_t k = terms.first_term[i]; k < terms.first_term[i + 1]; ++k) {
        const A term_weight = weight * terms.weight[k];
        const A* column = source + terms.column[k] * source_stride + offset;
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
          Vector value;
          std::memcpy(&value, column + v * kLanes, sizeof(Vector));
          total[v] = total[v] + term_weight * value;
        }
      }
#pragma GCC unroll 8
      for (int v = 0; v < kVectors; ++v) store(total[v], group_sums + v * kLanes);
    }
  }
}

// GatherLanes<1, 3, /*kAccumulate=*/false> for pixels and columns of 3
// values, 4 at a time: each pixel reads and stores a fourth value, that of
// the next column and pixel, which that pixel's own store then replaces (the
// tile's last pixel, and those from the first that reads the last column, go
// value by value). The first three lanes' products and sums are the scalar
// ones: the same bits (NaNs' sign and payload aside, as between CPU paths),
// with one vector load a term and one store a pixel
// (docs/cpu_performance.md#gatherthreechannels).
template <typename A>
void GatherThreeChannels(const A* source, A weight, const ColumnTerms<A>& terms,
                         int64_t pixels, A* sums) {
  using Vector = typename LaneVector<A, 4>::Type;
  // Pixels from `vector_end` on go value by value: the last, and those that
  // read the last column. A pixel's last column only grows with the pixel
  // (neighbours may share columns), so those that read it, and any that read
  // none among them, end the tile: each pixel before them reads only columns
  // with another after them.
  int64_t vector_end = pixels - 1;
  const int32_t all_terms = terms.first_term[pixels];
  if (all_terms > 0) {
    const int32_t last_column = terms.column[all_terms - 1];
    while (vector_end > 0) {
      const int32_t end = terms.first_term[vector_end];
      if (end > terms.first_term[vector_end - 1] &&
          terms.column[end - 1] != last_column) {
        break;
      }
      --vector_end;
    }
  }
  int64_t i = 0;
  for (; i < vector_end; ++i) {
    const int32_t first = terms.first_term[i], end = terms.first_term[i + 1];
    Vector total = Vector{};
    if (end - first == 1) {  // the usual count, without the loop's branch
      Vector value;
      std::memcpy(&value, source + terms.column[first] * 3, sizeof(Vector));
      total = total + (weight * terms.weight[first]) * value;
    } else {
      for (int32_t k = first; k < end; ++k) {
        Vector value;
        std::memcpy(&value, source + terms.column[k] * 3, sizeof(Vector));
        total = total + (weight * terms.weight[k]) * value;
      }
    }
    std::memcpy(sums + i * 3, &total, sizeof(Vector));
  }
  GatherLanes<1, 3, /*kAccumulate=*/false>(source, 3, weight, terms, pixels,
                                           /*groups=*/1, sums, 3, i);
}

// GatherLanes over `channels` channels: in vectors of 32 bytes, four or two
// at a time where they divide the channels, else one at a time, then 16
// bytes, then one value at a time.
//
// With `stream` (float sums straight into a 16-byte aligned output of whole
// 8-float groups; not with kAccumulate), the sums are written with streaming
// stores.
template <bool kAccumulate, typename A>
void GatherColumns(const A* source, int64_t source_stride, A weight,
                   const ColumnTerms<A>& terms, int64_t pixels, int64_t channels,
                   A* sums, int64_t sums_stride, bool stream = false) {
  constexpr int kWide = 32 / sizeof(A);  // 8 floats, 4 doubles
  if constexpr (std::is_same<A, float>::value && !kAccumulate && kHaveStreamingStores) {
    if (stream && channels % (4 * kWide) == 0) {
      return GatherLanes<kWide, 4, false, true>(source, source_stride, weight, terms,
                                                pixels, channels / (4 * kWide), sums,
                                                sums_stride);
    }
    if (stream && channels % kWide == 0) {
      return GatherLanes<kWide, 1, false, true>(source, source_stride, weight, terms,
                                                pixels, channels / kWide, sums,
                                                sums_stride);
    }
  }
  auto lanes = [&](auto lane_count, auto vector_count, int64_t groups, int64_t c) {
    GatherLanes<decltype(lane_count)::value, decltype(vector_count)::value,
                kAccumulate>(source + c, source_stride, weight, terms, pixels,
                             groups, sums + c, sums_stride);
  };
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Three = std::integral_constant<int, 3>;
  using Four = std::integral_constant<int, 4>;
  using Wide = std::integral_constant<int, kWide>;
  if (channels == 3) return lanes(One(), Three(), 1, 0);
  if (channels % (4 * kWide) == 0) {
    return lanes(Wide(), Four(), channels / (4 * kWide), 0);
  }
  if (channels % (2 * kWide) == 0) {
    return lanes(Wide(), Two(), channels / (2 * kWide), 0);
  }
  int64_t c = channels / kWide * kWide;
  if (c > 0) lanes(Wide(), One(), c / kWide, 0);
  if (c + kWide / 2 <= channels) {
    lanes(std::integral_constant<int, kWide / 2>(), One(), 1, c);
    c += kWide / 2;
  }
  for (; c < channels; ++c) lanes(One(), One(), 1, c);
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_COLUMNS_H_
