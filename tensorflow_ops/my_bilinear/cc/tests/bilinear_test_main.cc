// The one main() of the standalone C++ tests: runs every BILINEAR_TEST case
// linked in, in order, printing each name, then PASS (exit 0) or how many
// checks failed (exit 1).
#include "tensorflow_ops/my_bilinear/cc/tests/bilinear_test_main.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tensorflow_ops {
namespace bilinear {
namespace {

struct TestCase {
  const char* name;
  void (*body)();
};

// A function's static, so that registrations from other files' static
// initializers find it constructed whatever the order of initialization.
std::vector<TestCase>& Cases() {
  static auto* cases = new std::vector<TestCase>;
  return *cases;
}

// Atomic because a case may check from threads of its own (the stack test).
std::atomic<int> failures{0};
const char* current_case = "";

// "FAIL <prefix><message>" on a line of its own.
void PrintFail(const std::string& prefix, const char* format, va_list arguments) {
  std::printf("FAIL %s", prefix.c_str());
  std::vprintf(format, arguments);
  std::printf("\n");
}

void CountFailure(const char* format, va_list arguments) {
  if (failures.fetch_add(1) < kPrintedFailures) PrintFail("", format, arguments);
}

// The last line of every run, and its exit status.
int Report() {
  const int count = failures.load();
  if (count > 0) {
    std::printf("%d failures\n", count);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

}  // namespace

void Fail(const char* format, ...) {
  va_list arguments;
  va_start(arguments, format);
  CountFailure(format, arguments);
  va_end(arguments);
}

bool Expect(bool condition, const char* format, ...) {
  if (condition) return true;
  va_list arguments;
  va_start(arguments, format);
  CountFailure(format, arguments);
  va_end(arguments);
  return false;
}

int FailureCount() { return failures.load(); }

void CannotRun(const char* format, ...) {
  ++failures;
  va_list arguments;
  va_start(arguments, format);
  PrintFail(std::string(current_case) + " cannot run: ", format, arguments);
  va_end(arguments);
  std::exit(Report());
}

namespace test_internal {

Registration::Registration(const char* name, void (*body)()) {
  Cases().push_back({name, body});
}

}  // namespace test_internal
}  // namespace bilinear
}  // namespace tensorflow_ops

int main() {
  namespace bilinear = tensorflow_ops::bilinear;
  for (const bilinear::TestCase& test : bilinear::Cases()) {
    bilinear::current_case = test.name;
    std::printf("RUN %s\n", test.name);
    std::fflush(stdout);  // so that a crash shows which case it was in
    const int before = bilinear::FailureCount();
    test.body();
    if (bilinear::FailureCount() > before) {
      std::printf("FAILED %s: %d failures\n", test.name,
                  bilinear::FailureCount() - before);
    }
  }
  return bilinear::Report();
}
