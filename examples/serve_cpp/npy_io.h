// Reads and writes NumPy .npy files (format versions 1.0, 2.0 and 3.0): one
// C-order, little-endian array of a plain numeric or bool dtype. TensorFlow-
// free, so that the program's only TensorFlow-bound code is the serving.

#ifndef EXAMPLES_SERVE_CPP_NPY_IO_H_
#define EXAMPLES_SERVE_CPP_NPY_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace serve_cpp {

// One array as stored in a .npy file.
struct NpyArray {
  // NumPy's type string, normalized to the form numpy writes: "<f4", "<i8",
  // "|u1", "|b1" (one-byte types carry "|", wider ones "<").
  std::string descr;
  std::vector<int64_t> shape;  // empty for a scalar
  std::string data;            // the elements, C order, little-endian
};

// The size in bytes of one element of `descr` (a normalized type string), or
// 0 if this file format does not support that dtype.
size_t NpyItemSize(const std::string& descr);

// Reads `path` into `array`. On failure returns false and sets `error` to one
// line naming the file and the problem (fortran order, big-endian or
// unsupported dtype, a malformed header, truncated or trailing data).
bool ReadNpy(const std::string& path, NpyArray* array, std::string* error);

// Writes `size` bytes at `data` as a .npy file of dtype `descr` (normalized)
// and `shape`; `size` must be the product of `shape` times the item size.
bool WriteNpy(const std::string& path, const std::string& descr,
              const std::vector<int64_t>& shape, const char* data, size_t size,
              std::string* error);

}  // namespace serve_cpp

#endif  // EXAMPLES_SERVE_CPP_NPY_IO_H_
