// serve_saved_model: runs one signature of a SavedModel on a .npy file, in a
// C++ process with no Python, after loading the custom-op library the model
// needs.
//
//   serve_saved_model SAVED_MODEL_DIR OP_LIBRARY INPUT.npy OUTPUT.npy
//                     [--signature NAME]
//
// The signature (default serving_default, the one Keras's model.export and
// tf.saved_model.save write) must have one input and one output. Any failure
// exits 1 (2 for bad arguments) with one line on stderr naming the problem.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "examples/serve_cpp/npy_io.h"
#include "examples/serve_cpp/op_library.h"
#include "tensorflow/cc/saved_model/loader.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/framework/types.pb.h"

namespace serve_cpp {
namespace {

// tensorflow/cc/saved_model/tag_constants.h and signature_constants.h hold
// these, but the pip wheel ships neither header.
constexpr char kServeTag[] = "serve";
constexpr char kDefaultSignature[] = "serving_default";

constexpr char kUsage[] =
    "usage: serve_saved_model SAVED_MODEL_DIR OP_LIBRARY INPUT.npy OUTPUT.npy "
    "[--signature NAME]";

struct Arguments {
  std::string saved_model_dir;
  std::string op_library;
  std::string input_path;
  std::string output_path;
  std::string signature = kDefaultSignature;
};

// The .npy dtypes this program feeds and writes, and TensorFlow's for each.
// bfloat16, complex, string and quantized tensors have no plain .npy form.
constexpr std::pair<const char*, tensorflow::DataType> kDtypes[] = {
    {"<f2", tensorflow::DT_HALF},   {"<f4", tensorflow::DT_FLOAT},
    {"<f8", tensorflow::DT_DOUBLE}, {"|u1", tensorflow::DT_UINT8},
    {"|i1", tensorflow::DT_INT8},   {"<u2", tensorflow::DT_UINT16},
    {"<i2", tensorflow::DT_INT16},  {"<u4", tensorflow::DT_UINT32},
    {"<i4", tensorflow::DT_INT32},  {"<u8", tensorflow::DT_UINT64},
    {"<i8", tensorflow::DT_INT64},  {"|b1", tensorflow::DT_BOOL},
};

tensorflow::DataType DtypeOfDescr(const std::string& descr) {
  for (const auto& [npy, dtype] : kDtypes) {
    if (descr == npy) return dtype;
  }
  return tensorflow::DT_INVALID;
}

const char* DescrOfDtype(tensorflow::DataType dtype) {
  for (const auto& [npy, tf_dtype] : kDtypes) {
    if (dtype == tf_dtype) return npy;
  }
  return nullptr;
}

std::string Describe(const tensorflow::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::string text = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    const int64_t size = shape.dim(i).size();
    text += (i ? ", " : "") + (size < 0 ? "None" : std::to_string(size));
  }
  return text + "]";
}

std::string Describe(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

// TensorFlow's messages span lines (a node's stack, a hint on its own line);
// the caller wants exactly one line on stderr.
std::string OneLine(std::string_view text) {
  std::string line;
  for (const char c : text) {
    const bool space = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (!space) {
      line.push_back(c);
    } else if (!line.empty() && line.back() != ' ') {
      line.push_back(' ');
    }
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// The keys of a protobuf map, sorted (its own order is unspecified) and
// comma-separated, for messages. Keys starting with "__" are left out: the
// SavedModel format reserves them (__saved_model_init_op is no signature to
// serve).
template <typename Map>
std::string SortedKeys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map) {
    if (entry.first.rfind("__", 0) != 0) keys.push_back(entry.first);
  }
  std::sort(keys.begin(), keys.end());
  std::string text;
  for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + key;
  return text;
}

// Returns "" when the arguments parse, else what is wrong with them.
std::string ParseArguments(int argc, char** argv, Arguments* arguments) {
  std::vector<std::string> positional;
  int signatures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--signature") {
      if (i + 1 == argc) return "--signature needs a NAME";
      arguments->signature = argv[++i];
      ++signatures;
    } else if (argument.rfind("--signature=", 0) == 0) {
      arguments->signature = argument.substr(std::strlen("--signature="));
      ++signatures;
    } else if (argument.rfind("--", 0) == 0) {
      return "unknown flag " + argument;
    } else {
      positional.push_back(argument);
    }
  }
  if (positional.size() != 4) {
    return "expected 4 paths, got " + std::to_string(positional.size());
  }
  if (signatures > 1) return "--signature is given more than once";
  if (arguments->signature.empty()) return "--signature is empty";
  arguments->saved_model_dir = positional[0];
  arguments->op_library = positional[1];
  arguments->input_path = positional[2];
  arguments->output_path = positional[3];
  return "";
}

// The tensor name of the signature's only entry in `map` ("inputs" or
// "outputs"), after checking there is one and it is a plain dense tensor.
absl::Status SingleTensor(
    const tensorflow::protobuf::Map<std::string, tensorflow::TensorInfo>& map,
    const std::string& signature, const char* kind,
    const tensorflow::TensorInfo** info) {
  if (map.size() != 1) {
    return absl::InvalidArgumentError(
        "signature '" + signature + "' has " + std::to_string(map.size()) +
        " " + kind + " (" + SortedKeys(map) + "); this program serves exactly "
        "one");
  }
  *info = &map.begin()->second;
  if ((*info)->encoding_case() != tensorflow::TensorInfo::kName) {
    return absl::InvalidArgumentError(
        "signature '" + signature + "': its " + kind +
        " is a sparse or composite tensor; this program serves dense ones");
  }
  return absl::OkStatus();
}

// The signature's input must take the array: same dtype, same rank, and the
// same size in every dimension the signature fixes.
absl::Status CheckInput(const tensorflow::TensorInfo& info,
                        const NpyArray& array, const std::string& path) {
  const tensorflow::DataType dtype = DtypeOfDescr(array.descr);
  if (dtype != info.dtype()) {
    return absl::InvalidArgumentError(
        path + " holds " + tensorflow::DataTypeString(dtype) + " (" +
        array.descr + "), but the signature's input takes " +
        tensorflow::DataTypeString(info.dtype()));
  }
  const tensorflow::TensorShapeProto& shape = info.tensor_shape();
  if (shape.unknown_rank()) return absl::OkStatus();
  bool fits = shape.dim_size() == static_cast<int>(array.shape.size());
  for (int i = 0; fits && i < shape.dim_size(); ++i) {
    fits = shape.dim(i).size() < 0 || shape.dim(i).size() == array.shape[i];
  }
  if (!fits) {
    return absl::InvalidArgumentError(
        path + " has shape " + Describe(array.shape) +
        ", but the signature's input takes shape " + Describe(shape));
  }
  return absl::OkStatus();
}

absl::Status Serve(const Arguments& arguments) {
  // The ops must be registered before the SavedModel's graph is imported.
  absl::Status status = LoadOpLibrary(arguments.op_library);
  if (!status.ok()) return status;

  // The input is read before the model: a bad file fails fast.
  NpyArray array;
  std::string error;
  if (!ReadNpy(arguments.input_path, &array, &error)) {
    return absl::InvalidArgumentError(error);
  }

  tensorflow::SavedModelBundleLite bundle;
  status = tensorflow::LoadSavedModel(
      tensorflow::SessionOptions(), tensorflow::RunOptions(),
      arguments.saved_model_dir, {kServeTag}, &bundle);
  if (!status.ok()) {
    return absl::Status(status.code(),
                        "loading SavedModel " + arguments.saved_model_dir +
                            ": " + std::string(status.message()));
  }

  const auto& signatures = bundle.GetSignatures();
  const auto found = signatures.find(arguments.signature);
  if (found == signatures.end()) {
    return absl::NotFoundError("SavedModel " + arguments.saved_model_dir +
                               " has no signature '" + arguments.signature +
                               "' (it has: " + SortedKeys(signatures) + ")");
  }
  const tensorflow::TensorInfo* input = nullptr;
  const tensorflow::TensorInfo* output = nullptr;
  status = SingleTensor(found->second.inputs(), arguments.signature, "inputs",
                        &input);
  if (status.ok()) {
    status = SingleTensor(found->second.outputs(), arguments.signature,
                          "outputs", &output);
  }
  if (status.ok()) status = CheckInput(*input, array, arguments.input_path);
  if (!status.ok()) return status;

  tensorflow::TensorShape shape;
  status = tensorflow::TensorShape::BuildTensorShape(array.shape, &shape);
  if (!status.ok()) {
    return absl::InvalidArgumentError(arguments.input_path + ": " +
                                      std::string(status.message()));
  }
  tensorflow::Tensor tensor(input->dtype(), shape);
  if (!array.data.empty()) {
    std::memcpy(tensor.data(), array.data.data(), array.data.size());
  }
  array.data.clear();
  array.data.shrink_to_fit();  // the tensor holds the only copy now

  std::vector<tensorflow::Tensor> outputs;
  status = bundle.GetSession()->Run({{input->name(), tensor}}, {output->name()},
                                    {}, &outputs);
  if (!status.ok()) {
    return absl::Status(status.code(), "running signature '" +
                                           arguments.signature + "': " +
                                           std::string(status.message()));
  }
  const tensorflow::Tensor& result = outputs.at(0);
  const char* descr = DescrOfDtype(result.dtype());
  if (descr == nullptr) {
    return absl::UnimplementedError(
        "the signature's output is " +
        tensorflow::DataTypeString(result.dtype()) +
        ", which has no .npy dtype this program writes");
  }
  const absl::string_view bytes = result.tensor_data();
  const auto dims = result.shape().dim_sizes();
  if (!WriteNpy(arguments.output_path, descr, {dims.begin(), dims.end()},
                bytes.data(), bytes.size(), &error)) {
    return absl::InternalError(error);
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace serve_cpp

int main(int argc, char** argv) {
  serve_cpp::Arguments arguments;
  const std::string usage_error =
      serve_cpp::ParseArguments(argc, argv, &arguments);
  if (!usage_error.empty()) {
    std::fprintf(stderr, "serve_saved_model: %s; %s\n", usage_error.c_str(),
                 serve_cpp::kUsage);
    return 2;
  }
  const absl::Status status = serve_cpp::Serve(arguments);
  if (!status.ok()) {
    std::fprintf(stderr, "serve_saved_model: %s\n",
                 serve_cpp::OneLine(status.message()).c_str());
    return 1;
  }
  return 0;
}
