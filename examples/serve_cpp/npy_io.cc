#include "examples/serve_cpp/npy_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace serve_cpp {
namespace {

// The format's constants (numpy/lib/format.py).
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy pads the header so that the data starts at a multiple of 64 bytes.
constexpr size_t kAlignment = 64;
// Headers past this are refused rather than allocated: numpy's own reader
// refuses headers over 10,000 bytes by default, shapes need far less.
constexpr uint32_t kMaxHeaderSize = 1 << 20;
// numpy's largest rank (NPY_MAXDIMS): it can read no file of a larger one.
constexpr size_t kMaxRank = 64;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
// Elements are copied as they lie in memory and labelled little-endian.
#error "npy_io supports little-endian hosts only"
#endif

// A cursor over the header's Python literal: the dict numpy writes with
// repr(), e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : text_(text) {}

  bool Parse(std::string* descr, bool* fortran_order,
             std::vector<int64_t>* shape, std::string* problem) {
    std::set<std::string> seen;
    if (!Expect('{', problem)) return false;
    while (true) {
      SkipSpaces();
      if (Peek() == '}') break;
      std::string key;
      if (!ParseString(&key, problem) || !Expect(':', problem)) return false;
      if (!seen.insert(key).second) {
        *problem = "key '" + key + "' appears twice";
        return false;
      }
      bool ok = false;
      if (key == "descr") {
        SkipSpaces();
        if (Peek() == '[') {
          *problem = "structured dtypes are not supported";
          return false;
        }
        ok = ParseString(descr, problem);
      } else if (key == "fortran_order") {
        ok = ParseBool(fortran_order, problem);
      } else if (key == "shape") {
        ok = ParseShape(shape, problem);
      } else {
        *problem = "unexpected key '" + key + "'";
        return false;
      }
      if (!ok || !SkipSeparator('}', problem)) return false;
    }
    ++pos_;  // '}'
    SkipSpaces();
    if (pos_ != text_.size()) {
      *problem = "text after the header's dict";
      return false;
    }
    for (const char* key : {"descr", "fortran_order", "shape"}) {
      if (seen.count(key) == 0) {
        *problem = std::string("no '") + key + "' key";
        return false;
      }
    }
    return true;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void SkipSpaces() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }

  bool Expect(char c, std::string* problem) {
    SkipSpaces();
    if (Peek() != c) {
      *problem = std::string("expected '") + c + "' at offset " +
                 std::to_string(pos_);
      return false;
    }
    ++pos_;
    return true;
  }

  // After an item of a dict or tuple: a comma, or the closing bracket, which
  // is left for the caller's loop to see.
  bool SkipSeparator(char closer, std::string* problem) {
    SkipSpaces();
    if (Peek() == ',') {
      ++pos_;
      return true;
    }
    if (Peek() == closer) return true;
    *problem = std::string("expected ',' or '") + closer + "' at offset " +
               std::to_string(pos_);
    return false;
  }

  // A quoted string without escapes: the keys and type strings numpy writes
  // have none.
  bool ParseString(std::string* out, std::string* problem) {
    SkipSpaces();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') {
      *problem = "expected a string at offset " + std::to_string(pos_);
      return false;
    }
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos || text_.find('\\', pos_) < end) {
      *problem = "unterminated or escaped string at offset " +
                 std::to_string(pos_);
      return false;
    }
    *out = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return true;
  }

  bool ParseBool(bool* out, std::string* problem) {
    SkipSpaces();
    for (const auto& [word, value] :
         {std::pair<const char*, bool>{"True", true}, {"False", false}}) {
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        *out = value;
        return true;
      }
    }
    *problem = "fortran_order is neither True nor False";
    return false;
  }

  // A tuple of non-negative integers: (), (5,), (2, 3). Python 2's numpy
  // wrote longs as "3L"; the suffix is accepted.
  bool ParseShape(std::vector<int64_t>* shape, std::string* problem) {
    if (!Expect('(', problem)) return false;
    shape->clear();
    bool comma_after_last = false;
    while (true) {
      SkipSpaces();
      if (Peek() == ')') break;
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) {
        const size_t end = text_.find_first_of(",)}", pos_);
        *problem = "shape holds '" +
                   text_.substr(pos_, std::min<size_t>(end, pos_ + 24) - pos_) +
                   "', not a non-negative integer";
        return false;
      }
      int64_t dim = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        const int digit = text_[pos_++] - '0';
        if (dim > (std::numeric_limits<int64_t>::max() - digit) / 10) {
          *problem = "a dimension of the shape overflows 64 bits";
          return false;
        }
        dim = dim * 10 + digit;
      }
      if (Peek() == 'L') ++pos_;
      shape->push_back(dim);
      if (!SkipSeparator(')', problem)) return false;
      comma_after_last = text_[pos_ - 1] == ',';
    }
    ++pos_;  // ')'
    // "(3)" is the integer 3 to Python, not a tuple: numpy refuses it.
    if (shape->size() == 1 && !comma_after_last) {
      *problem = "shape (" + std::to_string((*shape)[0]) +
                 ") is not a tuple (a one-element shape is written (" +
                 std::to_string((*shape)[0]) + ",))";
      return false;
    }
    return true;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

uint32_t LittleEndian(const unsigned char* bytes, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

// Maps a type string as found in a file to the normalized one, or explains
// why it is refused.
bool NormalizeDescr(const std::string& descr, std::string* normalized,
                    std::string* problem) {
  if (descr.size() < 2) {
    *problem = "unsupported dtype '" + descr + "'";
    return false;
  }
  const char order = descr[0];
  const std::string type = descr.substr(1);
  // One-byte types have no byte order: numpy reads '>u1' as '|u1'.
  const bool one_byte = NpyItemSize("|" + type) == 1;
  if (order == '>' && !one_byte) {
    *problem = "big-endian dtype '" + descr +
               "' is not supported (convert with astype('<" + type + "'))";
    return false;
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    *problem = "unsupported dtype '" + descr + "'";
    return false;
  }
  const std::string candidate =
      (NpyItemSize("|" + type) == 1 ? "|" : "<") + type;
  if (NpyItemSize(candidate) == 0 ||
      (order == '|' && candidate[0] != '|')) {
    *problem = "unsupported dtype '" + descr + "'";
    return false;
  }
  *normalized = candidate;
  return true;
}

}  // namespace

size_t NpyItemSize(const std::string& descr) {
  static const std::set<std::string> kOneByte = {"|b1", "|u1", "|i1"};
  static const std::set<std::string> kWide = {"<f2", "<f4", "<f8", "<u2",
                                              "<i2", "<u4", "<i4", "<u8",
                                              "<i8"};
  if (kOneByte.count(descr)) return 1;
  if (kWide.count(descr)) return descr[2] - '0';
  return 0;
}

bool ReadNpy(const std::string& path, NpyArray* array, std::string* error) {
  auto fail = [&](const std::string& problem) {
    *error = path + ": " + problem;
    return false;
  };
  // A FIFO or a device would block the read or never end; a folder is no file.
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(info.st_mode)) return fail("not a regular file");
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) return fail(std::string("cannot open: ") + std::strerror(errno));
  const std::streamoff file_size = file.tellg();
  file.seekg(0);

  unsigned char preamble[kMagicSize + 2 + 4] = {};
  if (file_size < static_cast<std::streamoff>(kMagicSize + 4) ||
      !file.read(reinterpret_cast<char*>(preamble), kMagicSize + 4) ||
      std::memcmp(preamble, kMagic, kMagicSize) != 0) {
    return fail("not a .npy file (no \\x93NUMPY magic)");
  }
  const int major = preamble[kMagicSize];
  const int minor = preamble[kMagicSize + 1];
  if (major < 1 || major > 3 || minor != 0) {
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(minor));
  }
  // Version 1.0 stores the header length in 2 bytes, 2.0 and 3.0 in 4.
  const int length_bytes = major == 1 ? 2 : 4;
  if (length_bytes == 4 &&
      !file.read(reinterpret_cast<char*>(preamble) + kMagicSize + 4, 2)) {
    return fail("truncated header");
  }
  const uint32_t header_size =
      LittleEndian(preamble + kMagicSize + 2, length_bytes);
  const std::streamoff data_offset = kMagicSize + 2 + length_bytes +
                                     static_cast<std::streamoff>(header_size);
  if (header_size > kMaxHeaderSize) {
    return fail("header length " + std::to_string(header_size) +
                " is past the 1 MiB this reader accepts");
  }
  if (data_offset > file_size) {
    return fail("truncated header: its length is " +
                std::to_string(header_size) + " bytes, the file holds " +
                std::to_string(file_size) + " in all");
  }
  std::string header(header_size, '\0');
  if (!file.read(header.data(), header_size)) return fail("truncated header");

  std::string descr, problem;
  bool fortran_order = false;
  HeaderParser parser(header);
  if (!parser.Parse(&descr, &fortran_order, &array->shape, &problem)) {
    return fail("malformed header: " + problem);
  }
  if (!NormalizeDescr(descr, &array->descr, &problem)) return fail(problem);
  if (array->shape.size() > kMaxRank) {
    return fail("rank " + std::to_string(array->shape.size()) +
                " is past numpy's largest, 64");
  }
  // A Fortran-order array of at most one dimension larger than 1 lies as a
  // C-order one does.
  int64_t long_dimensions = 0;
  for (const int64_t dim : array->shape) long_dimensions += dim > 1;
  if (fortran_order && long_dimensions > 1) {
    return fail(
        "Fortran-order arrays are not supported (save "
        "np.ascontiguousarray(x))");
  }

  // Byte size, refusing a shape whose nonzero dimensions overflow a signed
  // 64-bit size even when another dimension is 0, as numpy does: (0, 2^62,
  // 2^62) holds no bytes but no tensor shape can represent it.
  constexpr uint64_t kMaxBytes = std::numeric_limits<int64_t>::max();
  uint64_t bytes = NpyItemSize(array->descr);
  bool empty = false;
  for (const int64_t dim : array->shape) {
    const uint64_t udim = static_cast<uint64_t>(dim);
    if (udim == 0) {
      empty = true;
      continue;
    }
    if (bytes > kMaxBytes / udim) {
      return fail("the shape's size in bytes overflows 64 bits");
    }
    bytes *= udim;
  }
  if (empty) bytes = 0;
  const uint64_t available = static_cast<uint64_t>(file_size - data_offset);
  if (bytes > available) {
    return fail("truncated data: the header's shape needs " +
                std::to_string(bytes) + " bytes, the file holds " +
                std::to_string(available));
  }
  if (bytes < available) {
    return fail(std::to_string(available - bytes) +
                " bytes after the data the header describes");
  }
  array->data.resize(bytes);
  if (!file.read(array->data.data(), static_cast<std::streamsize>(bytes))) {
    return fail("read error");
  }
  return true;
}

bool WriteNpy(const std::string& path, const std::string& descr,
              const std::vector<int64_t>& shape, const char* data, size_t size,
              std::string* error) {
  if (path.empty()) {
    *error = "the output path is empty";
    return false;
  }
  if (shape.size() > kMaxRank) {
    *error = path + ": rank " + std::to_string(shape.size()) +
             " is past numpy's largest, 64: no .npy reader could load it";
    return false;
  }
  // Python's repr of a tuple: (), (5,), (2, 3).
  std::ostringstream shape_text;
  shape_text << "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    shape_text << (i ? ", " : "") << shape[i];
  }
  shape_text << (shape.size() == 1 ? ",)" : ")");
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " +
                       shape_text.str() + ", }";
  // Version 1.0 (2-byte length) unless the header needs more; then 2.0.
  const int major = header.size() + 1 + 10 < 65536 ? 1 : 2;
  const size_t preamble = kMagicSize + 2 + (major == 1 ? 2 : 4);
  const size_t total = preamble + header.size() + 1;
  header.append((kAlignment - total % kAlignment) % kAlignment, ' ');
  header.push_back('\n');

  struct stat existing;
  if (stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
    *error = path + ": is a folder";
    return false;
  }
  // Written in place, so that a symlink's target, the file's mode and owner,
  // and /dev/stdout work as the caller meant; on failure a regular file is
  // emptied or removed, so that no partial array is left where the result
  // was expected.
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    *error = path + ": cannot create the file: " + std::strerror(errno);
    return false;
  }
  const uint32_t length = static_cast<uint32_t>(header.size());
  const char version[2] = {static_cast<char>(major), 0};
  const char length_bytes[4] = {
      static_cast<char>(length & 0xff), static_cast<char>((length >> 8) & 0xff),
      static_cast<char>((length >> 16) & 0xff),
      static_cast<char>((length >> 24) & 0xff)};
  file.write(kMagic, kMagicSize);
  file.write(version, 2);
  file.write(length_bytes, major == 1 ? 2 : 4);
  file << header;
  file.write(data, static_cast<std::streamsize>(size));
  file.close();
  if (!file) {
    const int write_errno = errno;
    // Emptied through any symlink; removed where it is the file itself.
    struct stat written;
    if (stat(path.c_str(), &written) == 0 && S_ISREG(written.st_mode)) {
      if (truncate(path.c_str(), 0) != 0) {
        // Left as it is: the error below names the path either way.
      }
      if (lstat(path.c_str(), &written) == 0 && S_ISREG(written.st_mode)) {
        std::remove(path.c_str());
      }
    }
    *error = path + ": write error: " + std::strerror(write_errno);
    return false;
  }
  return true;
}

}  // namespace serve_cpp
