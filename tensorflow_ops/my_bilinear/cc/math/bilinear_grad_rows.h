// The vertical half of the gradient (bilinear_resize_grad.h): the weighted
// sum of the output rows that read one input row, over one tile of columns,
// added in ascending row order.
//
// TensorFlow-free. Each sum is the same sequence of roundings (a product,
// then a sum, per row) however many rows one pass adds, so the GPU and XLA
// kernels, which add them one at a time, give the same bits.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_ROWS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_axis_adjoint.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// total[i] (=, where kFirst, else +=) the weighted sum of kRows rows of
// `count` values, added in ascending order: per row, one product and one sum,
// the roundings of adding the rows one pass each, with one load and store of
// `total` instead of kRows.
template <bool kFirst, int kRows, typename A>
void AddWeightedRowGroup(const A* const* rows, const A* weights, int64_t count,
                         A* __restrict__ total) {
  static_assert(kRows >= 1 && kRows <= 4, "one to four rows");
  const A* __restrict__ row0 = rows[0];
  const A* __restrict__ row1 = rows[kRows > 1 ? 1 : 0];
  const A* __restrict__ row2 = rows[kRows > 2 ? 2 : 0];
  const A* __restrict__ row3 = rows[kRows > 3 ? 3 : 0];
  const A weight0 = weights[0];
  const A weight1 = weights[kRows > 1 ? 1 : 0];
  const A weight2 = weights[kRows > 2 ? 2 : 0];
  const A weight3 = weights[kRows > 3 ? 3 : 0];
  for (int64_t i = 0; i < count; ++i) {
    A sum = kFirst ? weight0 * row0[i] : total[i] + weight0 * row0[i];
    if constexpr (kRows > 1) sum = sum + weight1 * row1[i];
    if constexpr (kRows > 2) sum = sum + weight2 * row2[i];
    if constexpr (kRows > 3) sum = sum + weight3 * row3[i];
    total[i] = sum;
  }
}

#if BILINEAR_HAS_AVX2_PATH
// AddWeightedRowGroup of half rows, each value converted by F16C as it is
// read (exactly: the same floats as ConvertValues), 8 at a time.
template <bool kFirst, int kRows>
__attribute__((target("avx,f16c"))) void AddWeightedHalfRowGroupF16c(
    const Float16* const* rows, const float* weights, int64_t count, float* total) {
  __m256 weight[kRows];
  for (int k = 0; k < kRows; ++k) weight[k] = _mm256_set1_ps(weights[k]);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256 sum = _mm256_mul_ps(weight[0], HalvesF16c(rows[0] + i));
    if (!kFirst) sum = _mm256_add_ps(_mm256_loadu_ps(total + i), sum);
    for (int k = 1; k < kRows; ++k) {
      sum = _mm256_add_ps(sum, _mm256_mul_ps(weight[k], HalvesF16c(rows[k] + i)));
    }
    _mm256_storeu_ps(total + i, sum);
  }
  for (; i < count; ++i) {
    float sum = weights[0] * HalfToFloatF16c(rows[0][i]);
    if (!kFirst) sum = total[i] + sum;
    for (int k = 1; k < kRows; ++k) sum = sum + weights[k] * HalfToFloatF16c(rows[k][i]);
    total[i] = sum;
  }
}
#endif

// fn(std::integral_constant<int, n>()) for n = row_count, 1 to 4.
template <typename Fn>
void WithRowCount(int row_count, const Fn& fn) {
  switch (row_count) {
    case 1:
      return fn(std::integral_constant<int, 1>());
    case 2:
      return fn(std::integral_constant<int, 2>());
    case 3:
      return fn(std::integral_constant<int, 3>());
    default:
      return fn(std::integral_constant<int, 4>());
  }
}

// AddWeightedRowGroup of `row_count` (1 to 4) rows of `count` values of T.
// Half is converted by F16C as it is read, where the CPU has it; otherwise
// half and bfloat16 are converted a block at a time in one vectorized pass,
// not one value at a time in the sum. The conversion is exact, so the sums
// are the same.
template <bool kFirst, typename T, typename A>
void AddWeightedRows(const T* const* rows, const A* weights, int row_count,
                     int64_t count, A* total) {
  auto add = [&](const A* const* values, int64_t n, A* to) {
    WithRowCount(row_count, [&](auto rows_in_group) {
      AddWeightedRowGroup<kFirst, decltype(rows_in_group)::value>(values, weights, n,
                                                                  to);
    });
  };
  if constexpr (std::is_same<T, A>::value) {
    add(rows, count, total);
  } else {
#if BILINEAR_HAS_AVX2_PATH
    if constexpr (std::is_same<T, Float16>::value) {
      if (UseAvx2()) {
        return WithRowCount(row_count, [&](auto rows_in_group) {
          AddWeightedHalfRowGroupF16c<kFirst, decltype(rows_in_group)::value>(
              rows, weights, count, total);
        });
      }
    }
#endif
    constexpr int64_t kBlock = 128;
    A converted[4][kBlock];
    const A* blocks[4] = {converted[0], converted[1], converted[2], converted[3]};
    for (int64_t i = 0; i < count; i += kBlock) {
      const int64_t n = std::min(kBlock, count - i);
      for (int k = 0; k < row_count; ++k) ConvertValues(rows[k] + i, n, converted[k]);
      add(blocks, n, total + i);
    }
  }
}

// sum (=, where kFirst, else +=) the weighted sum of `row_count` (1 to 4)
// tiles of `width` columns of `channels` values, whose columns are `stride`
// apart, in ascending order.
template <bool kFirst, typename T, typename A>
void AddWeightedTiles(const T* const* rows, const A* weights, int row_count,
                      int64_t stride, int64_t width, int64_t channels, A* sum) {
  if (channels == stride) {  // the tiles' values are contiguous
    return AddWeightedRows<kFirst>(rows, weights, row_count, width * channels, sum);
  }
  const T* columns[4];
  for (int64_t x = 0; x < width; ++x) {
    for (int k = 0; k < row_count; ++k) columns[k] = rows[k] + x * stride;
    AddWeightedRows<kFirst>(columns, weights, row_count, channels, sum + x * channels);
  }
}

// sum = the weighted sum of output rows [first, last) that read input row
// `in_y`, in ascending order, up to four rows a pass: of tiles of `width`
// columns of `channels` values, `stride` apart; row `first` starts at
// `source`, and each next row `row_size` values further. With `unweighted`,
// every row weighs exactly 1 (a conversion, for one row of half or bfloat16).
template <typename T, typename A>
void SumOutputRows(const AxisSampler<A>& row_sampler, int64_t first, int64_t last,
                   int64_t in_y, bool unweighted, const T* source, int64_t row_size,
                   int64_t stride, int64_t width, int64_t channels, A* sum) {
  for (int64_t y = first; y < last; y += 4) {
    const int row_count = static_cast<int>(std::min<int64_t>(4, last - y));
    const T* rows[4];
    A weights[4];
    for (int k = 0; k < row_count; ++k) {
      rows[k] = source + (y + k - first) * row_size;
      weights[k] = unweighted ? A(1) : WeightOfNeighbour(row_sampler.At(y + k), in_y);
    }
    if (y == first) {
      AddWeightedTiles</*kFirst=*/true>(rows, weights, row_count, stride, width,
                                        channels, sum);
    } else {
      AddWeightedTiles</*kFirst=*/false>(rows, weights, row_count, stride, width,
                                         channels, sum);
    }
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_GRAD_ROWS_H_
