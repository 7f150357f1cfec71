// Device buffers between guard zones, and how results are compared, for the
// GPU harness (bilinear_harness.cu).
//
// Every buffer a kernel gets sits in one cudaMalloc between two guard zones of
// kGuardBytes. Buffers the kernels read (images, gradients, the gradient's
// partial) are filled with a quiet NaN where the type has one, so a stray read
// turns a result into NaN, a mismatch; outputs are filled with 0xA5 bytes, so
// an element never written mismatches too. After each case the guard zones
// must hold exactly what they were filled with: any other byte is a write out
// of bounds. compute-sanitizer (device_check.sh) catches what lands outside
// the allocation.
#ifndef TOOLS_GPU_HARNESS_HARNESS_BUFFERS_H_
#define TOOLS_GPU_HARNESS_HARNESS_BUFFERS_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tensorflow_ops/my_bilinear/cc/math/bilinear_device_types.cu.h"
#include "tensorflow_ops/my_bilinear/cc/math/bilinear_storage_types.h"

namespace tensorflow_ops {
namespace bilinear {
namespace harness {

// A CUDA error ends the run (exit code 2): the device state is unknown.
inline void Check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}

template <typename T>
constexpr bool kIsSixteenBitFloat =
    std::is_same<T, Float16>::value || std::is_same<T, Bfloat16>::value;
template <typename T>
constexpr bool kHasNan = std::is_floating_point<T>::value || kIsSixteenBitFloat<T>;

template <typename T>
bool IsNan(const T& value) {
  if constexpr (std::is_same<T, Float16>::value) {
    return (value.bits & 0x7fffu) > 0x7c00u;
  } else if constexpr (std::is_same<T, Bfloat16>::value) {
    return (value.bits & 0x7fffu) > 0x7f80u;
  } else if constexpr (std::is_floating_point<T>::value) {
    return std::isnan(value);
  } else {
    return false;
  }
}

// Equal bits, or NaN on both sides whatever the bits: x86 makes 0xFFC00000
// and passes payloads on, a GPU makes 0x7FFFFFFF (0x7FFF for half).
template <typename T>
bool SameResult(const T& got, const T& want) {
  return std::memcmp(&got, &want, sizeof(T)) == 0 || (IsNan(got) && IsNan(want));
}

// The bits of `value`, for messages.
template <typename T>
unsigned long long BitsOf(const T& value) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "wider than 64 bits");
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

constexpr unsigned char kPatternByte = 0xA5;
// Each side of every buffer: a multiple of 256 keeps the data as aligned as
// cudaMalloc's, and it spans more than a row of the matrix's geometries.
constexpr int64_t kGuardBytes = 4096;

enum class Fill { kPattern, kNan };

// One element of a buffer's fill: 0xA5 in every byte, or for kNan and a type
// with NaN a quiet NaN that keeps 0xA5 in its payload where it fits.
template <typename T>
T FillElement(Fill fill) {
  T value;
  std::memset(&value, kPatternByte, sizeof(T));
  if constexpr (kHasNan<T>) {
    if (fill == Fill::kNan) {
      if constexpr (std::is_same<T, double>::value) {
        const uint64_t bits = 0x7ffda5a5a5a5a5a5u;
        std::memcpy(&value, &bits, sizeof(T));
      } else if constexpr (std::is_same<T, float>::value) {
        const uint32_t bits = 0x7fe5a5a5u;
        std::memcpy(&value, &bits, sizeof(T));
      } else {
        value.bits = std::is_same<T, Float16>::value ? 0x7ea5u : 0x7fe5u;
      }
    }
  }
  return value;
}

// Sets `count` elements of `bits` to `value`: NaN fills that cudaMemset's
// single byte cannot write.
template <typename Bits>
__global__ void FillKernel(Bits* bits, int64_t count, Bits value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    bits[i] = value;
  }
}

// `count` elements of host type T on the device, between guard zones; the
// whole allocation starts out as `fill`.
template <typename T>
class GuardedBuffer {
 public:
  static constexpr int64_t kGuardElements = kGuardBytes / sizeof(T);
  static_assert(kGuardBytes % sizeof(T) == 0, "guard zones hold whole elements");

  GuardedBuffer(int64_t count, Fill fill) : count_(count), fill_(FillElement<T>(fill)) {
    const int64_t total = count + 2 * kGuardElements;
    Check(cudaMalloc(&base_, Bytes(total)), "cudaMalloc");
    if constexpr (kHasNan<T>) {
      if (fill == Fill::kNan) {
        using Bits =
            std::conditional_t<sizeof(T) == 8, uint64_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
        static_assert(sizeof(Bits) == sizeof(T), "no integer of T's size");
        Bits bits;
        std::memcpy(&bits, &fill_, sizeof(T));
        const int64_t blocks = std::min<int64_t>(1024, (total + 255) / 256);
        FillKernel<Bits><<<static_cast<unsigned>(blocks), 256>>>(
            reinterpret_cast<Bits*>(base_), total, bits);
        Check(cudaGetLastError(), "FillKernel launch");
        return;
      }
    }
    Check(cudaMemset(base_, kPatternByte, Bytes(total)), "cudaMemset");
  }
  GuardedBuffer(const std::vector<T>& host, Fill fill)
      : GuardedBuffer(static_cast<int64_t>(host.size()), fill) {
    Check(cudaMemcpy(base_ + kGuardElements, host.data(), Bytes(count_),
                     cudaMemcpyHostToDevice),
          "upload");
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { cudaFree(base_); }

  DeviceType<T>* data() const {
    return reinterpret_cast<DeviceType<T>*>(base_ + kGuardElements);
  }
  int64_t count() const { return count_; }
  size_t bytes() const { return Bytes(count_); }

  std::vector<T> Download() const {
    std::vector<T> host(count_);
    Check(cudaMemcpy(host.data(), base_ + kGuardElements, Bytes(count_),
                     cudaMemcpyDeviceToHost),
          "download");
    return host;
  }

  // Guard elements no longer as filled: writes out of bounds.
  int64_t GuardHits() const {
    std::vector<T> zones(2 * kGuardElements);
    Check(cudaMemcpy(zones.data(), base_, kGuardBytes, cudaMemcpyDeviceToHost),
          "guard download");
    Check(cudaMemcpy(zones.data() + kGuardElements, base_ + kGuardElements + count_,
                     kGuardBytes, cudaMemcpyDeviceToHost),
          "guard download");
    int64_t hits = 0;
    for (const T& element : zones) {
      hits += std::memcmp(&element, &fill_, sizeof(T)) != 0;
    }
    return hits;
  }

 private:
  static size_t Bytes(int64_t count) { return static_cast<size_t>(count) * sizeof(T); }

  T* base_ = nullptr;  // device memory: only offset, never dereferenced here
  int64_t count_;
  T fill_;
};

}  // namespace harness
}  // namespace bilinear
}  // namespace tensorflow_ops

#endif  // TOOLS_GPU_HARNESS_HARNESS_BUFFERS_H_
