// Loads a custom-op library (a tf_custom_op_library .so) into this process,
// as tf.load_op_library does in Python, with the same version check as
// tensorflow_ops/library_loader.py.

#ifndef EXAMPLES_SERVE_CPP_OP_LIBRARY_H_
#define EXAMPLES_SERVE_CPP_OP_LIBRARY_H_

#include <string>

#include "absl/status/status.h"

namespace serve_cpp {

// Registers the ops and kernels of the library at `path`. Refuses, with a
// message naming the path, a missing file, a library built against another
// TensorFlow release than the one this program runs, and one the dynamic
// loader or TensorFlow's registry rejects.
absl::Status LoadOpLibrary(const std::string& path);

}  // namespace serve_cpp

#endif  // EXAMPLES_SERVE_CPP_OP_LIBRARY_H_
