// The gradient's sums along one axis, as a table: for every input index, the
// output indices that read it and their weights, in the order the CPU gradient
// (bilinear_resize_grad.h) adds them.
//
// TensorFlow-free. The XLA kernels (my_bilinear_xla.cc) replay these tables
// slot by slot in a loop of gathers, multiplies and adds, so the compiled
// gradient adds the same terms in the same order as the CPU kernel and, like
// it, is deterministic: there is no scatter.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ADJOINT_TERMS_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ADJOINT_TERMS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_axis_adjoint.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Term j of input index i is output index source[j * in_size + i] times
// weight[j * in_size + i], for j < count[i]: slot-major, so that slot j is
// one contiguous run of in_size values. Past count[i], source is a valid
// index (the last term's) and weight 0, so a gather of every slot stays in
// bounds; the caller masks those slots out rather than trusting 0 * value
// (0 * Inf is NaN).
template <typename A>
struct AdjointTerms {
  int64_t in_size = 0;
  int64_t slots = 0;            // the largest count
  std::vector<int64_t> first;   // [in_size]: the first output index reading i
  std::vector<int64_t> count;   // [in_size]
  std::vector<int64_t> source;  // [slots * in_size], from FillAdjointTables
  std::vector<A> weight;        // [slots * in_size], from FillAdjointTables
};

// The counts along an axis of `in_size` input and `out_size` output indices,
// without the tables, whose size (slots * in_size: a few entries per output
// index) a caller may want to know before it allocates them. Output indices
// reading one input index are contiguous and ascending (OutputRowsReading),
// which is the CPU kernel's order of addition.
template <typename A>
AdjointTerms<A> AxisAdjointCounts(const AxisSampler<A>& sampler, int64_t in_size,
                                  int64_t out_size) {
  AdjointTerms<A> terms;
  terms.in_size = in_size;
  terms.first.resize(in_size);
  terms.count.resize(in_size);
  for (int64_t i = 0; i < in_size; ++i) {
    int64_t end = 0;
    OutputRowsReading(sampler, out_size, i, &terms.first[i], &end);
    terms.count[i] = end - terms.first[i];
    terms.slots = std::max(terms.slots, terms.count[i]);
  }
  return terms;
}

// Fills the source and weight tables of `terms` (from AxisAdjointCounts with
// the same sampler and sizes).
template <typename A>
void FillAdjointTables(const AxisSampler<A>& sampler, int64_t out_size,
                       AdjointTerms<A>* terms) {
  const int64_t in_size = terms->in_size;
  terms->source.resize(terms->slots * in_size);
  terms->weight.assign(terms->slots * in_size, A(0));
  for (int64_t j = 0; j < terms->slots; ++j) {
    for (int64_t i = 0; i < in_size; ++i) {
      // Absent slots repeat the last present index (or 0 where none is).
      const int64_t last = std::max<int64_t>(terms->count[i] - 1, 0);
      const int64_t o = std::min(terms->first[i] + std::min(j, last), out_size - 1);
      terms->source[j * in_size + i] = o;
      if (j < terms->count[i]) {
        terms->weight[j * in_size + i] = WeightOfNeighbour(sampler.At(o), i);
      }
    }
  }
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_ADJOINT_TERMS_H_
