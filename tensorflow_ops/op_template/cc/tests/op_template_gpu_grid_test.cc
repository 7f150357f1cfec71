// The GPU kernels' loop, checked on the host (no GPU, no TensorFlow).
//
// The CUDA kernels (op_template_gpu_kernels.cu.h) are a grid-stride loop
// around the per-element functions of op_template_elements.h. This test walks
// the same loop over every (block, thread) of the grid GridFor() gives, and of
// a small grid in which each thread walks several elements, calls the same
// functions, and checks that every index is written exactly once, with the
// CPU kernel's value, and nothing outside the output.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tensorflow_ops/op_template/cc/math/op_template_elements.h"
#include "tensorflow_ops/op_template/cc/math/op_template_ranges.h"

namespace tensorflow_ops {
namespace op_template {
namespace {

constexpr int64_t kGuard = 16;
constexpr float kCanary = -12345.0f;

int failures = 0;

void Fail(const char* what, int64_t count, int64_t blocks) {
  if (++failures <= 20) {
    std::printf("FAIL %s: count %lld, %lld blocks\n", what,
                static_cast<long long>(count), static_cast<long long>(blocks));
  }
}

// What a kernel does: each thread of each block walks its indices and stores
// `element(i)` at i. Also counts the writes of each index.
template <typename Element>
void RunGrid(const LaunchGrid& grid, int64_t count, Element element,
             float* output, std::vector<int>* writes) {
  for (int64_t block = 0; block < grid.blocks; ++block) {
    for (int64_t thread = 0; thread < grid.threads_per_block; ++thread) {
      for (int64_t i = FirstIndex(grid, block, thread); i < count;
           i += Stride(grid)) {
        output[i] = element(i);
        ++(*writes)[i];
      }
    }
  }
}

// Runs `element` over `grid` into an output between canaries and compares it,
// bit for bit, with `want` (the CPU kernel's result).
template <typename Element>
void CheckGrid(const char* what, const LaunchGrid& grid, int64_t count,
               Element element, const std::vector<float>& want) {
  std::vector<float> buffer(count + 2 * kGuard, kCanary);
  std::vector<int> writes(count, 0);
  RunGrid(grid, count, element, buffer.data() + kGuard, &writes);
  for (int64_t i = 0; i < count; ++i) {
    if (writes[i] != 1) {
      return Fail("index not written exactly once", count, grid.blocks);
    }
    if (std::memcmp(&buffer[kGuard + i], &want[i], sizeof(float)) != 0) {
      return Fail(what, count, grid.blocks);
    }
  }
  for (int64_t i = 0; i < kGuard; ++i) {
    if (buffer[i] != kCanary || buffer[kGuard + count + i] != kCanary) {
      return Fail("write outside the output", count, grid.blocks);
    }
  }
}

void CheckCount(int64_t count) {
  const float scale = -1.75f;
  std::vector<float> x(count);
  for (int64_t i = 0; i < count; ++i) {
    x[i] = 0.25f * static_cast<float>(i % 97) - 9.0f;
  }
  std::vector<float> want(count);
  OpTemplateRange(x.data(), scale, 0, count, want.data());
  // --grad: begin
  std::vector<float> grads(count);
  for (int64_t i = 0; i < count; ++i) {
    grads[i] = 1.0f - 0.125f * static_cast<float>(i % 31);
  }
  std::vector<float> want_grad(count);
  OpTemplateGradRange(grads.data(), x.data(), scale, 0, count,
                      want_grad.data());
  // --grad: end
  // The op's grid, and one of 3 blocks in which each thread walks several
  // elements, as every thread does past kMaxBlocks * kThreadsPerBlock.
  const LaunchGrid strided = {3, kThreadsPerBlock};
  for (const LaunchGrid& grid : {GridFor(count), strided}) {
    auto element = [&](int64_t i) { return OpTemplateElement(x[i], scale); };
    CheckGrid("OpTemplate differs from the CPU kernel", grid, count, element,
              want);
    // --grad: begin
    auto grad_element = [&](int64_t i) {
      return OpTemplateGradElement(grads[i], x[i], scale);
    };
    CheckGrid("OpTemplateGrad differs from the CPU kernel", grid, count,
              grad_element, want_grad);
    // --grad: end
  }
}

// The grid stays within CUDA's limits (an int of blocks) for any element count,
// and gives every element a thread of its own up to kMaxBlocks blocks.
void CheckGridLimits() {
  constexpr int64_t kLargestGrid = kMaxBlocks * kThreadsPerBlock;
  const int64_t counts[] = {1,
                            255,
                            256,
                            257,
                            kLargestGrid,
                            kLargestGrid + 1,
                            int64_t{1} << 31,
                            (int64_t{1} << 40) + 3};
  for (const int64_t count : counts) {
    const LaunchGrid grid = GridFor(count);
    const bool fits = grid.blocks >= 1 && grid.blocks <= kMaxBlocks &&
                      grid.threads_per_block == kThreadsPerBlock;
    const bool one_each =
        count > kLargestGrid ||
        (Stride(grid) >= count && Stride(grid) - count < kThreadsPerBlock);
    if (!fits || !one_each) Fail("launch grid", count, grid.blocks);
  }
}

int CheckAll() {
  for (const int64_t count : {1, 2, 255, 256, 257, 1000, 3 * 256 * 4 + 5}) {
    CheckCount(count);
  }
  CheckGridLimits();
  return failures;
}

}  // namespace
}  // namespace op_template
}  // namespace tensorflow_ops

int main() {
  const int failures = tensorflow_ops::op_template::CheckAll();
  if (failures > 0) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
