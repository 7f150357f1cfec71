// Bilinear resize of NHWC images, one range of output rows at a time: the
// forward pass's entry point, ResizeRows, and the rules that pick its path.
//
// Every output value is TensorFlow's ResizeBilinear formula, in this order:
//   top    = in[y0][x0] + (in[y0][x1] - in[y0][x0]) * x_lerp
//   bottom = in[y1][x0] + (in[y1][x1] - in[y1][x0]) * x_lerp
//   out    = top + (bottom - top) * y_lerp
// with (y0, y1, y_lerp) and (x0, x1, x_lerp) from bilinear_weights.h. Its
// plainest statement in code, one output element at a time, is ResizeElement
// in bilinear_elements.h (the GPU kernels run it). The paths here compute the
// same expressions, faster on a CPU, and so give the same bits:
//   bilinear_reused_rows.h  up-sampled heights: each horizontal blend reused;
//   bilinear_span_rows.h    16-bit and integer images: spans converted at once;
//   bilinear_direct_rows.h  everything else, with row pairs and streaming stores.
//
// TensorFlow-free. Every output row is written by exactly one call and reads
// only the input, so a caller may hand disjoint row ranges to as many threads
// as it likes and any split gives the same bits. Nothing is allocated: the
// column weights are computed per block of columns into a fixed buffer.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_H_

#include <cstdint>
#include <type_traits>

#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_streaming_stores.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_copy_rows.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_direct_rows.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_reused_rows.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_blends.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_row_buffers.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_span_rows.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_unrolled_channels.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_weights.h"

namespace tensorflow_ops {
namespace bilinear {

// Most channels whose float rows take the row-reusing path. With more, the
// direct path is vectorized along the channels and bound by the stores of the
// output, and adding a pass over the row buffers made it slower
// (docs/cpu_performance.md#reusescolumnblends).
constexpr int64_t kMaxReusedFloatChannels = 8;

// Whether T images into OutT output convert any value: images or output of
// another type than the accumulator.
template <typename T, typename OutT>
constexpr bool kConvertsValues = !std::is_same<T, AccumulatorType<OutT>>::value ||
                                 !std::is_same<OutT, AccumulatorType<OutT>>::value;

// Whether the direct path (ResizeRowsDirectly), which converts each value as
// it reads or writes it, is faster for T images into OutT output of
// `channels` than the buffered paths, which convert a span of input or a row
// of output in one vectorized loop: only where its channel loop is unrolled
// or long enough to vectorize the conversions, by type
// (docs/cpu_performance.md#directpathconvertsfaster). Equal heights count
// as not up-sampled; integer images up-sampled always take the row-reusing
// path.
template <typename T, typename OutT>
bool DirectPathConvertsFaster(int64_t channels, bool up_sampled) {
  using A = AccumulatorType<OutT>;
  const bool unrolled = IsUnrolledChannelCount(channels);
  if constexpr (std::is_same<T, A>::value) {  // A images into 16-bit output
    constexpr bool kIntoHalf = std::is_same<OutT, Float16>::value;
    return unrolled && channels >= (kIntoHalf && up_sampled ? 64 : 32);
  } else if constexpr (std::is_integral<T>::value) {
    if (up_sampled) return false;
    constexpr bool kIntoFloat = std::is_same<OutT, A>::value;
    if (sizeof(T) == 2 && kIntoFloat && channels >= 16) return true;
    return unrolled && channels >= (sizeof(T) == 1 && !kIntoFloat ? 64 : 32);
  }
  return false;
}

// Whether ResizeRows takes the row-reusing path: where output rows outnumber
// input rows, and either few channels or conversions of the images or the
// output that the direct path does not do faster (DirectPathConvertsFaster):
// they are then done once per input value, or in one loop per output row.
template <typename T, typename OutT>
bool ReusesColumnBlends(const ResizeGeometry& g) {
  using A = AccumulatorType<OutT>;
  if (g.out_height <= g.in_height || g.channels > kRowBufferElements<A>) return false;
  if (g.channels <= kMaxReusedFloatChannels) return true;
  if constexpr (!kConvertsValues<T, OutT>) return false;
  return !DirectPathConvertsFaster<T, OutT>(g.channels, /*up_sampled=*/true);
}

// Whether ResizeRows takes ResizeRowsFromConvertedSpans: images or output of
// another type than A, whose height is not up-sampled, where two pixels'
// channels fit a span's buffer, no output column is more than
// kMaxSpanPixelsPerColumn input pixels from the next, and the direct path
// does not convert faster (DirectPathConvertsFaster). Not for 32-bit and
// 64-bit integer images: their span conversion is not vectorized on the AVX2
// path, and read value by value they measured faster
// (docs/cpu_performance.md#convertsspans).
template <typename T, typename OutT>
bool ConvertsSpans(const ResizeGeometry& g) {
  using A = AccumulatorType<OutT>;
  if constexpr (!kConvertsValues<T, OutT>) return false;
  if constexpr (std::is_integral<T>::value && sizeof(T) > 2) return false;
  return g.out_height <= g.in_height && 2 * g.channels <= kRowBufferElements<A> &&
         g.in_width <= kMaxSpanPixelsPerColumn * g.out_width &&
         !DirectPathConvertsFaster<T, OutT>(g.channels, /*up_sampled=*/false);
}

// Whether a forward pass of T images into OutT output, one of them half or
// bfloat16, gains from 512-bit vectors (the AVX-512 path of BestCpuPath, in
// bilinear_cpu_features.h). It does where the channel loop is unrolled.
// Where the count is read at run time, GCC's 512-bit code can lose, by how
// many channels are left over after 8-wide vectors (C % 8 of 4 to 7), by type
// and by path ("up-sampled": the height); the rule keeps AVX2 where it
// measured faster (docs/cpu_performance.md#forwardgainsfromavx512). The
// gradient takes AVX-512 for bfloat16 only (kHasGradAvx512Path).
template <typename T, typename OutT>
bool ForwardGainsFromAvx512(const ResizeGeometry& g) {
  if (IsUnrolledChannelCount(g.channels)) return true;
  const bool long_tail = g.channels % 8 >= 4;  // 4 to 7 channels left over
  if constexpr (std::is_same<T, Bfloat16>::value) {
    return g.out_height > g.in_height || g.channels > 15 || !long_tail;
  } else if constexpr (std::is_same<T, Float16>::value) {
    return !long_tail;
  } else {
    return !long_tail && (ReusesColumnBlends<T, OutT>(g) || ConvertsSpans<T, OutT>(g));
  }
}

// Calls the math where it is: the default runner of ResizeRows.
struct RunInPlace {
  template <typename Fn>
  void operator()(const Fn& fn) const {
    fn();
  }
};

// Writes output rows [begin_row, end_row), where row r is image r / out_height,
// row r % out_height. `images` ([batch, in_height, in_width, channels] of T)
// and `output` ([batch, out_height, out_width, channels] of OutT) are dense.
// Values are computed in AccumulatorType<OutT>. With OutputStores::kStreaming
// (see StoresForOutput), rows of float pixels of 4, 8, 16, 32 or 64 channels
// computed directly are written with streaming stores when `output` is
// 16-byte aligned; the row-reusing path's rows measured slower with them, and
// keep the cache, written 64 bytes at a time with any stores but kCached.
// Any choice gives the same bits. `run(fn)` calls fn, which
// runs the chosen path: the compiled kernels (bilinear_cpu_paths.h) pass one
// that compiles each path into a function of its own for a CPU path.
template <typename T, typename OutT, typename Runner = RunInPlace>
void ResizeRows(const ResizeGeometry& g, const T* images, int64_t begin_row,
                int64_t end_row, OutT* output,
                OutputStores stores = OutputStores::kCached,
                const Runner& run = Runner()) {
  if (IsIdentity(g)) {
    return run([&] { CopyRows(g, images, begin_row, end_row, output); });
  }
  // One frame for whichever path runs: left to find that the paths' arrays
  // may share the stack, GCC shares only some of them
  // (docs/cpu_performance.md#resizerows-stack-frame).
  union Frame {
    ReusedRowBuffers<AccumulatorType<OutT>> reused;
    SpanBuffersFor<T, OutT> spans;
    AxisWeight<AccumulatorType<OutT>> columns[kColumnBlock];
  } frame;
  if (ReusesColumnBlends<T, OutT>(g)) {
    return run([&] {
      ResizeRowsReusingColumns(g, images, begin_row, end_row, output, stores,
                               frame.reused);
    });
  }
  if (ConvertsSpans<T, OutT>(g)) {
    return run([&] {
      ResizeRowsFromConvertedSpans(g, images, begin_row, end_row, output,
                                   frame.spans);
    });
  }
  run([&] {
    ResizeRowsDirectly(g, images, begin_row, end_row, output, stores, frame.columns);
  });
}

}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_MATH_BILINEAR_RESIZE_H_
