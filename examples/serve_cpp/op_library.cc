#include "examples/serve_cpp/op_library.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "tensorflow/c/c_api.h"

namespace serve_cpp {
namespace {

// Keep in sync with _BUILD_INFO_MARKER in third_party/tf/tf_configure.bzl:
// every tf_custom_op_library of this workspace holds "<marker><version>;".
constexpr char kBuildInfoMarker[] = "tensorflow_ops_built_against_tf=";
constexpr size_t kMaxVersionSize = 64;

// The TensorFlow version recorded in the library, or nullopt for a library
// without the marker (one built elsewhere, which is loaded unchecked). Read
// in chunks: op libraries with GPU kernels run to hundreds of megabytes.
std::optional<std::string> BuiltAgainst(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  const std::string marker = kBuildInfoMarker;
  constexpr size_t kChunk = 1 << 20;
  // Each window keeps the previous one's tail, so that a marker or version
  // cut by a chunk boundary is still found whole.
  const size_t keep = marker.size() + kMaxVersionSize;
  std::string window;
  std::string chunk(kChunk, '\0');
  while (file) {
    file.read(chunk.data(), kChunk);
    window.append(chunk.data(), static_cast<size_t>(file.gcount()));
    const size_t start = window.find(marker);
    if (start != std::string::npos) {
      const size_t version = start + marker.size();
      const size_t end = window.find(';', version);
      if (end != std::string::npos && end - version <= kMaxVersionSize) {
        return window.substr(version, end - version);
      }
      if (window.size() - version > kMaxVersionSize) return std::nullopt;
      continue;  // the version runs into the next chunk
    }
    if (window.size() > keep) window.erase(0, window.size() - keep);
  }
  return std::nullopt;
}

// "2.21.0" -> "2.21": TensorFlow keeps its C++ ABI within a minor release.
std::string Release(const std::string& version) {
  const size_t first = version.find('.');
  if (first == std::string::npos) return version;
  return version.substr(0, version.find('.', first + 1));
}

}  // namespace

absl::Status LoadOpLibrary(const std::string& path) {
  // dlopen searches LD_LIBRARY_PATH and the system folders for a name without
  // a '/', so "my_op.so" could load another file than the one checked here.
  // Check and load the one absolute path.
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) {
    return absl::NotFoundError("op library " + path + ": " +
                               std::strerror(errno));
  }
  const std::string absolute = resolved;
  free(resolved);
  struct stat info;
  if (stat(absolute.c_str(), &info) != 0) {
    return absl::NotFoundError("op library " + path + ": no such file");
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError("op library " + path +
                                      ": not a regular file");
  }
  // A library compiled against another TensorFlow fails to load with an
  // undefined symbol at best; at worst it loads and its kernels misread
  // TensorFlow's changed classes. Refuse it before dlopen, as Python does.
  const std::optional<std::string> built = BuiltAgainst(absolute);
  const std::string running = TF_Version();
  if (built.has_value() && Release(*built) != Release(running)) {
    return absl::FailedPreconditionError(
        "op library " + path + " was built against TensorFlow " + *built +
        ", but this program runs TensorFlow " + running +
        "; rebuild it against this TensorFlow");
  }
  TF_Status* status = TF_NewStatus();
  TF_Library* library = TF_LoadLibrary(absolute.c_str(), status);
  const TF_Code code = TF_GetCode(status);
  const std::string message = TF_Message(status);
  TF_DeleteStatus(status);
  if (code != TF_OK) {
    return absl::InvalidArgumentError("op library " + path +
                                      " could not be loaded: " + message);
  }
  // Frees only the handle: the library stays loaded and its ops and kernels
  // registered for the life of the process.
  TF_DeleteLibraryHandle(library);
  return absl::OkStatus();
}

}  // namespace serve_cpp
