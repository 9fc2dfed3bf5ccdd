// main() for GoogleTest binaries that run under mpiexec. Every rank runs every test; only
// rank 0 prints the usual report, other ranks print their failures. A failure on any rank ends
// the whole job at once (MPI_Abort), naming the rank and the test: the other ranks may be
// waiting in a collective that the failed rank will never enter, and would otherwise hang
// until CTest's timeout.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>

namespace {

/// Prints only failed assertions, prefixed with the rank (for ranks other than 0).
class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_, result.file_name(),
                 result.line_number(), result.summary());
  }

 private:
  int rank_;
};

/// Ends the whole job on the first failed assertion, fatal (ASSERT_*) or not (EXPECT_*), or on
/// an exception a test lets escape (GoogleTest reports it as a failure). Aborting on the first
/// failure is the one rule that never hangs: after a failed EXPECT a rank may still take another
/// path than the others (a size, a count or a branch that depends on the wrong value) and miss a
/// collective. Appended after the printers, so the failure itself is printed first.
class AbortOnFailure : public testing::EmptyTestEventListener {
 public:
  AbortOnFailure(int rank, int size) : rank_(rank), size_(size) {}
  // The test's name is kept here: GoogleTest holds its lock while it reports a result, so
  // UnitTest::current_test_info() would wait on it forever.
  void OnTestStart(const testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestEnd(const testing::TestInfo&) override { test_ = kOutsideTests; }
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    // GoogleTest gives an escaped exception no file (nullptr) and no line (-1).
    const std::string how =
        result.file_name() == nullptr
            ? std::string("with an uncaught exception")
            : std::string("at ") + result.file_name() + ":" + std::to_string(result.line_number());
    std::fflush(stdout);
    std::fprintf(stderr, "rank %d of %d: %s failed %s; ending the job\n", rank_, size_,
                 test_.c_str(), how.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

 private:
  static constexpr const char* kOutsideTests = "a set-up or tear-down outside the tests";
  int rank_, size_;
  std::string test_ = kOutsideTests;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  listeners.Append(new AbortOnFailure(rank, size));
  // A failed test has ended the job already: a rank that gets here passed every test.
  const int failed = RUN_ALL_TESTS();
  MPI_Finalize();
  return failed;
}
