// Gradient of the bilinear resize (its exact adjoint), one range of input rows
// at a time.
//
// TensorFlow-free. Rather than scattering every output pixel into the input
// gradient (which races when parallel), each input row gathers from the output
// rows that read it. A ResizeGradPlan lists those rows per input row in
// ascending order, so each input-row result is a fixed sequence of operations:
// the same bits whichever thread computes it and however the rows are split.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_GRAD_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_GRAD_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/kernels/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// An output row read by some input row, with the vertical weight it was read with.
template <typename A>
struct RowContribution {
  int64_t out_row;
  A weight;
};

template <typename A>
struct ResizeGradPlan {
  ResizeGeometry geometry;
  std::vector<AxisWeight<A>> columns;  // one per output column
  // Contributions to input row i are row_entries[row_begin[i], row_begin[i + 1]),
  // in ascending out_row.
  std::vector<int64_t> row_begin;
  std::vector<RowContribution<A>> row_entries;
};

template <typename A>
ResizeGradPlan<A> MakeResizeGradPlan(const ResizeGeometry& geometry) {
  ResizeGradPlan<A> plan;
  plan.geometry = geometry;
  plan.columns =
      ComputeAxisWeights<A>(geometry.in_width, geometry.out_width,
                            geometry.align_corners, geometry.half_pixel_centers);
  const std::vector<AxisWeight<A>> rows =
      ComputeAxisWeights<A>(geometry.in_height, geometry.out_height,
                            geometry.align_corners, geometry.half_pixel_centers);

  // Counting sort of (input row, output row) pairs by input row.
  std::vector<int64_t> count(geometry.in_height, 0);
  for (const AxisWeight<A>& row : rows) {
    ++count[row.lower];
    if (row.upper != row.lower) ++count[row.upper];
  }
  plan.row_begin.assign(geometry.in_height + 1, 0);
  for (int64_t i = 0; i < geometry.in_height; ++i) {
    plan.row_begin[i + 1] = plan.row_begin[i] + count[i];
  }
  plan.row_entries.resize(plan.row_begin.back());
  std::vector<int64_t> next(plan.row_begin.begin(), plan.row_begin.end() - 1);
  for (int64_t y = 0; y < geometry.out_height; ++y) {
    const AxisWeight<A>& row = rows[y];
    if (row.upper == row.lower) {
      // The forward pass returns that row unchanged: weight exactly 1.
      plan.row_entries[next[row.lower]++] = {y, A(1)};
    } else {
      plan.row_entries[next[row.lower]++] = {y, A(1) - row.lerp};
      plan.row_entries[next[row.upper]++] = {y, row.lerp};
    }
  }
  return plan;
}

// Adds `weight` times the horizontal adjoint of one row of output gradients
// (`source`, out_width x channels) into `row_grad` (in_width x channels). The
// left and right neighbours of a column are distinct pixels, so their channel
// ranges never overlap; saying so (__restrict__) lets the compiler vectorize
// the channel loop.
template <int kChannels, typename S, typename A>
void ScatterColumns(const S* __restrict__ source, A weight,
                    const AxisWeight<A>* __restrict__ columns, int64_t out_width,
                    int64_t channels, A* __restrict__ row_grad) {
  const int64_t c_count = kChannels > 0 ? kChannels : channels;
  for (int64_t x = 0; x < out_width; ++x) {
    const S* __restrict__ g = source + x * c_count;
    A* __restrict__ left = row_grad + columns[x].lower * c_count;
    if (columns[x].upper == columns[x].lower) {
      // The forward pass returns that column unchanged: weight exactly 1.
      for (int64_t c = 0; c < c_count; ++c) left[c] += weight * static_cast<A>(g[c]);
      continue;
    }
    const A left_weight = weight * (A(1) - columns[x].lerp);
    const A right_weight = weight * columns[x].lerp;
    A* __restrict__ right = row_grad + columns[x].upper * c_count;
    for (int64_t c = 0; c < c_count; ++c) {
      const A value = static_cast<A>(g[c]);
      left[c] += left_weight * value;
      right[c] += right_weight * value;
    }
  }
}

template <typename S, typename A>
void ScatterColumnsAnyChannels(const S* source, A weight,
                               const AxisWeight<A>* columns, int64_t out_width,
                               int64_t channels, A* row_grad) {
  switch (channels) {
    case 1:
      return ScatterColumns<1>(source, weight, columns, out_width, 1, row_grad);
    case 3:
      return ScatterColumns<3>(source, weight, columns, out_width, 3, row_grad);
    case 4:
      return ScatterColumns<4>(source, weight, columns, out_width, 4, row_grad);
    default:
      return ScatterColumns<0>(source, weight, columns, out_width, channels,
                               row_grad);
  }
}

// Up to this many output rows per input row, each is scattered on its own;
// beyond it, they are first summed vertically (one multiply-add per element)
// and the sum is scattered once. The choice depends only on the geometry, so
// it never changes the bits between runs or thread counts.
constexpr int64_t kMaxRowsScatteredSeparately = 1;

// Writes input-gradient rows [begin_row, end_row), where row r is image
// r / in_height, row r % in_height. `grads` is [batch, out_h, out_w, c] and
// `images_grad` [batch, in_h, in_w, c], both dense.
template <typename T, typename A>
void ResizeGradRows(const ResizeGradPlan<A>& plan, const T* grads,
                    int64_t begin_row, int64_t end_row, T* images_grad) {
  const ResizeGeometry& g = plan.geometry;
  const int64_t out_row_size = g.out_width * g.channels;
  const int64_t in_row_size = g.in_width * g.channels;
  std::vector<A> combined;
  // Where T is the accumulator type, rows are accumulated in the output itself.
  constexpr bool kAccumulateInOutput = std::is_same<T, A>::value;
  std::vector<A> row_buffer(kAccumulateInOutput ? 0 : in_row_size);
  for (int64_t row = begin_row; row < end_row; ++row) {
    const int64_t b = row / g.in_height;
    const int64_t in_y = row % g.in_height;
    T* out = images_grad + row * in_row_size;
    // (The cast is a no-op where it is taken: T is A.)
    A* row_grad = kAccumulateInOutput ? reinterpret_cast<A*>(out) : row_buffer.data();
    std::fill(row_grad, row_grad + in_row_size, A(0));
    const RowContribution<A>* first = plan.row_entries.data() + plan.row_begin[in_y];
    const RowContribution<A>* last = plan.row_entries.data() + plan.row_begin[in_y + 1];
    auto output_row = [&](const RowContribution<A>& entry) {
      return grads + (b * g.out_height + entry.out_row) * out_row_size;
    };
    if (last - first <= kMaxRowsScatteredSeparately) {
      for (const RowContribution<A>* entry = first; entry != last; ++entry) {
        ScatterColumnsAnyChannels(output_row(*entry), entry->weight,
                                  plan.columns.data(), g.out_width, g.channels,
                                  row_grad);
      }
    } else {
      // Vertical adjoint first: the weighted sum of the output rows, in order.
      combined.resize(out_row_size);
      A* __restrict__ sum = combined.data();
      const T* __restrict__ source = output_row(*first);
      for (int64_t i = 0; i < out_row_size; ++i) {
        sum[i] = first->weight * static_cast<A>(source[i]);
      }
      for (const RowContribution<A>* entry = first + 1; entry != last; ++entry) {
        source = output_row(*entry);
        for (int64_t i = 0; i < out_row_size; ++i) {
          sum[i] += entry->weight * static_cast<A>(source[i]);
        }
      }
      ScatterColumnsAnyChannels(combined.data(), A(1), plan.columns.data(),
                                g.out_width, g.channels, row_grad);
    }
    if constexpr (!kAccumulateInOutput) {
      for (int64_t i = 0; i < in_row_size; ++i) out[i] = static_cast<T>(row_grad[i]);
    }
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_BILINEAR_RESIZE_GRAD_H_
