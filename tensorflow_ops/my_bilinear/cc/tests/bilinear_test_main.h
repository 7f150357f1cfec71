// How a standalone C++ test of the math checks and reports (no TensorFlow, no
// gtest): a count of failed checks, printf-style messages, and cases that
// bilinear_test_main.cc's main() runs in the order they are written.
//
//   BILINEAR_TEST(IdentityIsExact) {
//     Expect(result == values, "identity is not a copy: %s", Describe(g).c_str());
//   }
//
// Apart from bilinear_test_support.h because it brings a main(): the GPU
// harness (nvcc) and the libFuzzer target include that header and have mains
// of their own.
#ifndef TENSORFLOW_OPS_MY_BILINEAR_CC_TESTS_BILINEAR_TEST_MAIN_H_
#define TENSORFLOW_OPS_MY_BILINEAR_CC_TESTS_BILINEAR_TEST_MAIN_H_

namespace tensorflow_ops {
namespace bilinear {

// Failures past this many are counted but not printed: one broken path can
// fail thousands of checks, and the first few say what went wrong.
constexpr int kPrintedFailures = 20;

// Counts a failed check and prints "FAIL <message>" (a printf format and its
// arguments) for the first kPrintedFailures. Safe to call from any thread.
void Fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Fail(format, ...) unless `condition`; returns `condition`. The arguments
// are evaluated either way, so checks in hot loops test first and call Fail.
bool Expect(bool condition, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

// How many checks have failed so far, in every case.
int FailureCount();

// Ends the whole run now, failed: this machine cannot run the case (no FMA,
// no thread of the stack size asked for). Never a skip: a test that cannot
// check what it is for must not pass.
[[noreturn]] void CannotRun(const char* format, ...)
    __attribute__((format(printf, 1, 2)));

namespace test_internal {

// Adds a case to the list main() runs. BILINEAR_TEST makes one per case, at
// static initialization, so the cases of one file run in the file's order.
struct Registration {
  Registration(const char* name, void (*body)());
};

}  // namespace test_internal
}  // namespace bilinear
}  // namespace tensorflow_ops

// Defines and registers a case: BILINEAR_TEST(Name) { checks }. Usable in any
// namespace; Name must be unique in its file.
#define BILINEAR_TEST(Name)                                                 \
  static void BilinearTest_##Name();                                        \
  static const ::tensorflow_ops::bilinear::test_internal::Registration     \
      bilinear_test_registration_##Name(#Name, &BilinearTest_##Name);       \
  static void BilinearTest_##Name()

#endif  // TENSORFLOW_OPS_MY_BILINEAR_CC_TESTS_BILINEAR_TEST_MAIN_H_
