// The HLO of MyBilinear and MyBilinearGrad, built as the CPU kernels compute
// them, for the XLA kernels (my_bilinear_xla.cc).
//
// `size` is a compile-time constant, so every weight is computed here, on the
// host, with the CPU kernels' own AxisSampler, and enters the HLO as a
// constant. The HLO then performs the CPU kernels' operations in their order:
// the forward pass blends horizontally, then vertically; the gradient replays
// the CPU gradient's sums (bilinear_adjoint_terms.h) slot by slot, in a While
// loop where there are many, so that its HLO does not grow with the
// up-sampling factor.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_HLO_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_HLO_H_

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tensorflow/core/platform/mem.h"
#include "tensorflow/core/util/overflow.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_adjoint_terms.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"
#include "xla/hlo/builder/lib/constants.h"
#include "xla/hlo/builder/lib/loops.h"
#include "xla/hlo/builder/lib/slicing.h"
#include "xla/hlo/builder/xla_builder.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace tensorflow_ops {
namespace bilinear_hlo {

using ::xla::XlaBuilder;
using ::xla::XlaOp;

// NHWC axes.
inline constexpr int64_t kRowAxis = 1;
inline constexpr int64_t kColumnAxis = 2;

// The weights of every output index along one axis, as the CPU kernels
// compute them one by one (AxisSampler::At).
template <typename A>
struct AxisTable {
  std::vector<int64_t> lower;
  std::vector<int64_t> upper;
  std::vector<A> lerp;
};

template <typename A>
AxisTable<A> MakeAxisTable(const bilinear::AxisSampler<A>& sampler,
                           int64_t out_size) {
  AxisTable<A> table;
  for (int64_t i = 0; i < out_size; ++i) {
    const bilinear::AxisWeight<A> weight = sampler.At(i);
    table.lower.push_back(weight.lower);
    table.upper.push_back(weight.upper);
    table.lerp.push_back(weight.lerp);
  }
  return table;
}

template <typename A>
bilinear::AxisSampler<A> RowSampler(const bilinear::ResizeGeometry& g) {
  return {g.in_height, g.out_height, g.align_corners, g.half_pixel_centers};
}

template <typename A>
bilinear::AxisSampler<A> ColumnSampler(const bilinear::ResizeGeometry& g) {
  return {g.in_width, g.out_width, g.align_corners, g.half_pixel_centers};
}

// `input` with its slices along `axis` taken at `indices`, in that order.
inline XlaOp Take(XlaOp input, XlaBuilder* b, absl::Span<const int64_t> indices,
           int64_t axis) {
  return xla::TorchIndexSelect(input, xla::ConstantR1<int64_t>(b, indices), axis);
}

// `value` (rank 4) times `weights` along `axis`.
template <typename A>
XlaOp Weigh(XlaOp value, XlaBuilder* b, absl::Span<const A> weights,
            int64_t axis) {
  return xla::Mul(value, xla::ConstantR1<A>(b, weights), {axis});
}

// Host copies of a compile-time table while it is built and compiled: the
// kernel's vector, its HLO literal, and the copies XLA makes while it
// compiles (docs/xla.md#compile-time-and-memory).
inline constexpr int64_t kTableCopies = 6;

// The memory a compile may count on: the machine's, or less where the process
// has an address-space limit (ulimit -v; what is left of it beside the address
// space already mapped) or its cgroup a memory limit (v2's memory.max). Past
// the first, an allocation inside XLA crashes the process; past the second,
// the kernel kills it. 0 when unknown.
inline int64_t UsableMemoryBytes() {
  int64_t bytes = tensorflow::port::GetMemoryInfo().total;
  rlimit address_space;
  int64_t mapped_pages = 0;
  if (getrlimit(RLIMIT_AS, &address_space) == 0 &&
      address_space.rlim_cur != RLIM_INFINITY &&
      std::ifstream("/proc/self/statm") >> mapped_pages) {
    const int64_t left = static_cast<int64_t>(address_space.rlim_cur) -
                         mapped_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
    bytes = std::min(bytes, std::max<int64_t>(left, 1));
  }
  int64_t cgroup_limit = 0;  // "max" (no limit) does not parse
  if (std::ifstream("/sys/fs/cgroup/memory.max") >> cgroup_limit && cgroup_limit > 0) {
    bytes = std::min(bytes, cgroup_limit);
  }
  return bytes;
}

// Compile-time tables (the weights of every output index, or the gradient's
// slots) may take at most half of the memory the process can use
// (UsableMemoryBytes), counting every copy (kTableCopies): past that, the
// compile is refused with an error instead of failing inside XLA or being
// killed by the operating system. Only an axis of tens of millions of indices
// comes near it.
inline absl::Status CheckTableSize(absl::string_view op, int64_t entries,
                            int64_t entry_bytes) {
  const int64_t memory = UsableMemoryBytes();
  // MultiplyWithoutOverflow gives a negative value on overflow.
  const int64_t bytes = entries < 0 ? -1
                                    : tensorflow::MultiplyWithoutOverflow(
                                          entries, kTableCopies * entry_bytes);
  if (memory <= 0 || (bytes >= 0 && bytes <= memory / 2)) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      op, " under jit_compile needs tables of ",
      entries < 0 ? std::string("over 2^63") : absl::StrCat(entries),
      " entries at compile time (",
      bytes < 0 ? std::string("over 2^63") : absl::StrCat(bytes),
      " bytes with their copies), more than half of the ", memory,
      " bytes of memory this process can use; call it outside jit_compile"));
}

// The forward resize of `images` ([b, h, w, c], any type) computed in A,
// converted to `out_type`: CPU's ResizeRows as whole-tensor operations.
template <typename A>
absl::StatusOr<XlaOp> ResizeHlo(XlaOp images, XlaBuilder* b,
                                const bilinear::ResizeGeometry& g,
                                xla::PrimitiveType out_type) {
  // Integer and narrow images are read as A, as the CPU kernel casts each
  // value; the identity casts through A too, like the CPU's static_cast.
  const XlaOp values =
      xla::ConvertElementType(images, xla::primitive_util::NativeToPrimitiveType<A>());
  if (bilinear::IsIdentity(g)) return xla::ConvertElementType(values, out_type);
  // An empty batch needs no weights (nor memory for their tables).
  if (g.batch == 0) {
    return xla::Zeros(b, xla::ShapeUtil::MakeShape(
                             out_type, {0, g.out_height, g.out_width, g.channels}));
  }
  // lower, upper and lerp of every output row and column.
  TF_RETURN_IF_ERROR(CheckTableSize("MyBilinear", g.out_height + g.out_width,
                                    2 * sizeof(int64_t) + sizeof(A)));
  const AxisTable<A> rows = MakeAxisTable(RowSampler<A>(g), g.out_height);
  const AxisTable<A> columns = MakeAxisTable(ColumnSampler<A>(g), g.out_width);
  // Horizontal first, as the CPU kernel (and TensorFlow's) does.
  auto blend_columns = [&](XlaOp image_rows) {
    const XlaOp left = Take(image_rows, b, columns.lower, kColumnAxis);
    const XlaOp right = Take(image_rows, b, columns.upper, kColumnAxis);
    return xla::Add(left, Weigh<A>(xla::Sub(right, left), b, columns.lerp,
                                   kColumnAxis));
  };
  const XlaOp top = blend_columns(Take(values, b, rows.lower, kRowAxis));
  const XlaOp bottom = blend_columns(Take(values, b, rows.upper, kRowAxis));
  const XlaOp blended =
      xla::Add(top, Weigh<A>(xla::Sub(bottom, top), b, rows.lerp, kRowAxis));
  return xla::ConvertElementType(blended, out_type);
}

// A term of the gradient's sums for one slot: `data` gathered at `source`
// along the slots' axis and weighed by `weight` (both [in_size] there).
using SlotTerm = std::function<XlaOp(XlaOp data, XlaOp source, XlaOp weight)>;

// Up to this many slots are unrolled into straight-line HLO, which XLA fuses
// well; more (an up-sampling factor past about 7) run in a While loop of
// kSlotsPerIteration slots an iteration, whose HLO has the same size at any
// factor. Several slots an iteration spread the loop's own cost (a few
// microseconds an iteration) and its copies of the sums.
inline constexpr int64_t kMaxUnrolledSlots = 16;
inline constexpr int64_t kSlotsPerIteration = 16;

// A predicate of shape `dims`, true along `axis` where count > slot.
inline XlaOp SlotPresent(XlaBuilder* b, const std::vector<int64_t>& count, XlaOp slot,
                  absl::Span<const int64_t> dims, int64_t axis) {
  return xla::BroadcastInDim(xla::Gt(xla::ConstantR1<int64_t>(b, count), slot),
                             dims, {axis});
}

// `sums` plus the terms of slots [first_slot, terms.slots), added in
// ascending slot order, each where the input index along `axis` has that
// many terms: sums = select(slot < count, sums + term(slot), sums). The
// slots that do not fill a whole loop iteration come first, unrolled, with
// their tables as constants; the rest loop, each iteration slicing its slots
// out of the whole tables (a few entries per output index).
template <typename A>
absl::StatusOr<XlaOp> AddSlots(XlaBuilder* b, const bilinear::AdjointTerms<A>& terms,
                               int64_t first_slot, int64_t axis,
                               absl::Span<const int64_t> dims, XlaOp sums,
                               XlaOp data, const SlotTerm& term) {
  const int64_t in_size = terms.in_size;
  const int64_t slots = terms.slots - first_slot;
  const int64_t unrolled =
      slots <= kMaxUnrolledSlots ? slots : slots % kSlotsPerIteration;
  for (int64_t slot = first_slot; slot < first_slot + unrolled; ++slot) {
    const XlaOp source = xla::ConstantR1<int64_t>(
        b, absl::MakeConstSpan(terms.source).subspan(slot * in_size, in_size));
    const XlaOp weight = xla::ConstantR1<A>(
        b, absl::MakeConstSpan(terms.weight).subspan(slot * in_size, in_size));
    const XlaOp sum = xla::Add(sums, term(data, source, weight));
    const bool everywhere = std::all_of(terms.count.begin(), terms.count.end(),
                                        [slot](int64_t c) { return c > slot; });
    sums = everywhere ? sum
                      : xla::Select(SlotPresent(b, terms.count,
                                                xla::ConstantR0<int64_t>(b, slot),
                                                dims, axis),
                                    sum, sums);
  }
  const int64_t iterations = (slots - unrolled) / kSlotsPerIteration;
  if (iterations == 0) return sums;
  const int64_t loop_first_slot = first_slot + unrolled;
  auto body = [&](XlaOp iteration, absl::Span<const XlaOp> values,
                  XlaBuilder* body_builder) -> absl::StatusOr<std::vector<XlaOp>> {
    const XlaOp source_table = xla::ConstantR1<int64_t>(body_builder, terms.source);
    const XlaOp weight_table = xla::ConstantR1<A>(body_builder, terms.weight);
    const XlaOp first = xla::Add(
        xla::Mul(iteration, xla::ConstantR0<int64_t>(body_builder, kSlotsPerIteration)),
        xla::ConstantR0<int64_t>(body_builder, loop_first_slot));
    XlaOp loop_sums = values[0];
    for (int64_t k = 0; k < kSlotsPerIteration; ++k) {
      const XlaOp slot = xla::Add(first, xla::ConstantR0<int64_t>(body_builder, k));
      const XlaOp start =
          xla::Mul(slot, xla::ConstantR0<int64_t>(body_builder, in_size));
      const XlaOp source = xla::DynamicSlice(source_table, {start}, {in_size});
      const XlaOp weight = xla::DynamicSlice(weight_table, {start}, {in_size});
      loop_sums = xla::Select(
          SlotPresent(body_builder, terms.count, slot, dims, axis),
          xla::Add(loop_sums, term(values[1], source, weight)), loop_sums);
    }
    return std::vector<XlaOp>{loop_sums, values[1]};
  };
  TF_ASSIGN_OR_RETURN(const std::vector<XlaOp> results,
                      xla::ForEachIndex(iterations, xla::S64, body, {sums, data},
                                        "bilinear_grad_slots", b));
  return results[0];
}

// The gradient of the resize for `grads` ([b, out_h, out_w, c] of T), in A,
// converted to T: the CPU's ResizeGradRows as whole-tensor operations. For
// every input row, the CPU kernel sums the weighted output rows that read it
// (ascending), then adds each column of that sum into the input columns it
// reads, in ascending column order, into sums that start at 0. An input row
// read by one output row alone is not summed: its row weight joins the column
// weights instead (weight * (1 - lerp)), and so it does here.
template <typename A>
absl::StatusOr<XlaOp> ResizeGradHlo(XlaOp grads, XlaBuilder* b,
                                    const bilinear::ResizeGeometry& g,
                                    xla::PrimitiveType grad_type) {
  // The identity is its own adjoint: the gradient passes through unchanged.
  if (bilinear::IsIdentity(g)) return grads;
  if (g.batch == 0) {
    return xla::Zeros(b, xla::ShapeUtil::MakeShape(
                             grad_type, {0, g.in_height, g.in_width, g.channels}));
  }
  const xla::PrimitiveType acc = xla::primitive_util::NativeToPrimitiveType<A>();
  const XlaOp values = xla::ConvertElementType(grads, acc);
  // The first output index and the count of every input row and column; the
  // caller checked that the input gradient fits in memory, so this sum
  // cannot overflow.
  TF_RETURN_IF_ERROR(CheckTableSize("MyBilinearGrad", g.in_height + g.in_width,
                                    2 * sizeof(int64_t)));
  const bilinear::AxisSampler<A> row_sampler = RowSampler<A>(g);
  const bilinear::AxisSampler<A> column_sampler = ColumnSampler<A>(g);
  bilinear::AdjointTerms<A> rows =
      bilinear::AxisAdjointCounts(row_sampler, g.in_height, g.out_height);
  bilinear::AdjointTerms<A> columns =
      bilinear::AxisAdjointCounts(column_sampler, g.in_width, g.out_width);
  // A source index and a weight per slot of every input row and column.
  const int64_t row_entries = tensorflow::MultiplyWithoutOverflow(rows.slots, g.in_height);
  const int64_t column_entries =
      tensorflow::MultiplyWithoutOverflow(columns.slots, g.in_width);
  TF_RETURN_IF_ERROR(CheckTableSize(
      "MyBilinearGrad",
      row_entries < 0 || column_entries < 0 ? -1 : row_entries + column_entries,
      sizeof(int64_t) + sizeof(A)));
  bilinear::FillAdjointTables(row_sampler, g.out_height, &rows);
  bilinear::FillAdjointTables(column_sampler, g.out_width, &columns);

  // Vertical sums [b, in_h, out_w, c]. `row_scale` is 1 for summed rows and
  // the row weight for rows read once, whose first slot then weighs 1.
  std::vector<A> row_scale(g.in_height, A(1));
  std::vector<A> first_weight(rows.weight.begin(),
                              rows.weight.begin() + g.in_height);
  for (int64_t y = 0; y < g.in_height; ++y) {
    if (rows.count[y] == 1) std::swap(row_scale[y], first_weight[y]);
  }
  const std::vector<int64_t> row_sum_dims = {g.batch, g.in_height, g.out_width,
                                             g.channels};
  const std::vector<int64_t> first_source(rows.source.begin(),
                                          rows.source.begin() + g.in_height);
  XlaOp row_sums =
      Weigh<A>(Take(values, b, first_source, kRowAxis), b, first_weight, kRowAxis);
  auto row_term = [](XlaOp data, XlaOp source, XlaOp weight) {
    return xla::Mul(xla::TorchIndexSelect(data, source, kRowAxis), weight,
                    {kRowAxis});
  };
  TF_ASSIGN_OR_RETURN(row_sums, AddSlots<A>(b, rows, /*first_slot=*/1, kRowAxis,
                                            row_sum_dims, row_sums, values,
                                            row_term));
  // Input rows no output row reads get 0 (the gathered row is a stand-in).
  if (std::find(rows.count.begin(), rows.count.end(), 0) != rows.count.end()) {
    const XlaOp read = SlotPresent(b, rows.count, xla::ConstantR0<int64_t>(b, 0),
                                   row_sum_dims, kRowAxis);
    row_sums = xla::Select(read, row_sums,
                           xla::Zeros(b, xla::ShapeUtil::MakeShape(acc, row_sum_dims)));
  }

  // Horizontal sums [b, in_h, in_w, c], starting from 0 as the CPU's do; the
  // weight of a term is row_scale * column weight, one rounding, as on CPU.
  const std::vector<int64_t> dims = {g.batch, g.in_height, g.in_width, g.channels};
  auto column_term = [&](XlaOp data, XlaOp source, XlaOp weight) {
    const XlaOp scale = xla::ConstantR1<A>(data.builder(), row_scale);
    const XlaOp pixel_weight =
        xla::Mul(xla::BroadcastInDim(scale, {g.in_height, g.in_width}, {0}),
                 xla::BroadcastInDim(weight, {g.in_height, g.in_width}, {1}));
    return xla::Mul(pixel_weight, xla::TorchIndexSelect(data, source, kColumnAxis),
                    {1, 2});
  };
  TF_ASSIGN_OR_RETURN(
      const XlaOp sums,
      AddSlots<A>(b, columns, /*first_slot=*/0, kColumnAxis, dims,
                  xla::Zeros(b, xla::ShapeUtil::MakeShape(acc, dims)), row_sums,
                  column_term));
  // The CPU's sums start at +0, so none is -0 (+0 + -0 is +0); XLA drops
  // that first `0 +`, and a sum of -0 terms stays -0. Only the zero's sign
  // differs, so it is made +0 here.
  const XlaOp positive_sums = xla::Select(
      xla::Eq(sums, xla::ZerosLike(sums)), xla::ZerosLike(sums), sums);
  return xla::ConvertElementType(positive_sums, grad_type);
}

}  // namespace bilinear_hlo
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_KERNELS_MY_BILINEAR_HLO_H_
