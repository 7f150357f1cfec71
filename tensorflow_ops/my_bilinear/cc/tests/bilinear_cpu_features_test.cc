// Standalone test of the CPU path the kernels take: the widest this CPU
// supports, read here independently from the flags in /proc/cpuinfo, narrowed
// by TENSORFLOW_OPS_CPU_PATH in any letter case, and left alone, with a
// warning, by any other value. WidestCpuPath decides once per process, so each
// value is tried in a forked child; this process never calls it.
#include "tensorflow_ops/my_bilinear/cc/cpu/bilinear_cpu_features.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

namespace tensorflow_ops {
namespace bilinear {
namespace {

constexpr char kVariable[] = "TENSORFLOW_OPS_CPU_PATH";

// The flags Linux reports for the first CPU.
std::set<std::string> CpuFlags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      return {std::istream_iterator<std::string>(words),
              std::istream_iterator<std::string>()};
    }
  }
  return {};
}

// The widest path the kernels may take here, from the CPU's flags.
CpuPath WidestPathFromFlags() {
  if (!BILINEAR_HAS_AVX2_PATH) return CpuPath::kBaseline;
  const std::set<std::string> flags = CpuFlags();
  const auto has = [&](std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (flags.count(name) == 0) return false;
    }
    return true;
  };
  if (!has({"avx2", "fma", "f16c"})) return CpuPath::kBaseline;
  if (!has({"avx512f", "avx512bw", "avx512vl", "avx512dq"}))
    return CpuPath::kAvx2;
  return CpuPath::kAvx512;
}

struct ChildPath {
  int path = -1;         // WidestCpuPath() in the child; -1 if it failed
  std::string warnings;  // what the child wrote to stderr
};

// WidestCpuPath() in a child whose TENSORFLOW_OPS_CPU_PATH is `value`
// (nullptr: unset).
ChildPath PathInChild(const char* value) {
  ChildPath result;
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) return result;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_ends[0]);
    dup2(pipe_ends[1], STDERR_FILENO);
    if (value == nullptr) {
      unsetenv(kVariable);
    } else {
      setenv(kVariable, value, 1);
    }
    const int path = static_cast<int>(WidestCpuPath());
    std::fflush(stderr);
    _exit(path);
  }
  close(pipe_ends[1]);
  char buffer[256];
  ssize_t read_bytes;
  while ((read_bytes = read(pipe_ends[0], buffer, sizeof(buffer))) > 0) {
    result.warnings.append(buffer, static_cast<size_t>(read_bytes));
  }
  close(pipe_ends[0]);
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    result.path = WEXITSTATUS(status);
  }
  return result;
}

BILINEAR_TEST(UnsetOrEmptyTakesTheWidestPath) {
  const int widest = static_cast<int>(WidestPathFromFlags());
  for (const char* value : {static_cast<const char*>(nullptr), ""}) {
    const ChildPath child = PathInChild(value);
    Expect(child.path == widest, "%s=%s: path %d, the CPU's flags say %d",
           kVariable, value == nullptr ? "(unset)" : "\"\"", child.path,
           widest);
    Expect(child.warnings.empty(), "unexpected warning: %s",
           child.warnings.c_str());
  }
}

BILINEAR_TEST(NamedPathsNarrowInAnyCase) {
  const int widest = static_cast<int>(WidestPathFromFlags());
  const int avx2 = std::min(widest, static_cast<int>(CpuPath::kAvx2));
  for (const auto& [value, expected] :
       {std::pair<const char*, int>{"baseline", 0},
        {"BaseLine", 0},
        {"BASELINE", 0},
        {"avx2", avx2},
        {"Avx2", avx2},
        {"AVX2", avx2}}) {
    const ChildPath child = PathInChild(value);
    Expect(child.path == expected, "%s=%s: path %d, expected %d", kVariable,
           value, child.path, expected);
    Expect(child.warnings.empty(), "%s: unexpected warning: %s", value,
           child.warnings.c_str());
  }
}

BILINEAR_TEST(OtherValuesAreIgnoredWithAWarning) {
  const int widest = static_cast<int>(WidestPathFromFlags());
  for (const char* value :
       {"avx-9000", "avx512", "avx2 ", " baseline", "sse"}) {
    const ChildPath child = PathInChild(value);
    Expect(child.path == widest, "%s=\"%s\": path %d, expected the widest, %d",
           kVariable, value, child.path, widest);
    if (BILINEAR_HAS_AVX2_PATH) {
      Expect(child.warnings.find("is neither baseline nor avx2: ignored") !=
                 std::string::npos,
             "%s=\"%s\": no warning on stderr, got \"%s\"", kVariable, value,
             child.warnings.c_str());
    }
  }
}

}  // namespace
}  // namespace bilinear
}  // namespace tensorflow_ops
