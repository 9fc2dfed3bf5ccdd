// What `lesson check` and `lesson grade` keep of a failed build: the compiler's diagnostics with
// their source excerpts, and the link fence's refusal, never the build tool's command lines.
#include "compiler_messages.hpp"

#include <gtest/gtest.h>

#include <string>

#include "scratch_folder.hpp"

namespace tplab::app {
namespace {

/// The build and source folders of a test whose files are not on this machine: the files the
/// messages name stay as the compiler named them.
const std::filesystem::path kNoFolder = "/nonexistent";

/// A compiler's command line as ninja echoes it after "FAILED:", shortened: the real one is some
/// 1,800 characters of -D, -I and -f flags.
const std::string kCommandLine =
    "/usr/bin/ccache /usr/bin/c++ -DFMT_HEADER_ONLY=1 -I/work/main/lessons/common "
    "-Werror=return-type -O3 -std=gnu++20 -MD -MT lessons/CMakeFiles/lesson_01_code.dir/"
    "01-column-split/exercise.cpp.o -o lessons/CMakeFiles/lesson_01_code.dir/01-column-split/"
    "exercise.cpp.o -c /work/main/lessons/01-column-split/exercise.cpp\n";

TEST(CompilerMessages, KeepsTheErrorsAndTheirExcerptsAndDropsTheCommandLines) {
  const std::string output =
      "[1/3] Building CXX object lessons/CMakeFiles/lesson_01_code.dir/01-column-split/"
      "exercise.cpp.o\n"
      "FAILED: lessons/CMakeFiles/lesson_01_code.dir/01-column-split/exercise.cpp.o \n" +
      kCommandLine +
      "/work/main/lessons/01-column-split/exercise.cpp: In function 'tplab::Tensor "
      "column_parallel_matmul(Device&, const Tensor&, const Tensor&)':\n"
      "/work/main/lessons/01-column-split/exercise.cpp:12:14: error: 'undefined_name' was not "
      "declared in this scope\n"
      "   12 |   return a + undefined_name;\n"
      "      |              ^~~~~~~~~~~~~~\n"
      "ninja: build stopped: subcommand failed.\n";
  EXPECT_EQ(compiler_messages(output, kNoFolder, kNoFolder),
            "/work/main/lessons/01-column-split/exercise.cpp: In function 'tplab::Tensor "
            "column_parallel_matmul(Device&, const Tensor&, const Tensor&)':\n"
            "/work/main/lessons/01-column-split/exercise.cpp:12:14: error: 'undefined_name' was "
            "not declared in this scope\n"
            "   12 |   return a + undefined_name;\n"
            "      |              ^~~~~~~~~~~~~~\n");
}

TEST(CompilerMessages, KeepsAnIncludeChainAndTheLinkersUndefinedReference) {
  const std::string output =
      "FAILED: x.o\n" + kCommandLine +
      "In file included from /work/main/lessons/06-summa/exercise.cpp:3:\n"
      "                 from /work/main/lessons/06-summa/other.hpp:1,\n"
      "/work/main/lessons/06-summa/other.hpp:2:10: fatal error: tp1d/mlp_1d.hpp: No such file "
      "or directory\n"
      "    2 | #include \"tp1d/mlp_1d.hpp\"\n"
      "      |          ^~~~~~~~~~~~~~~~~\n"
      "compilation terminated.\n"
      "FAILED: lessons/lesson_06\n"
      ": && /usr/bin/c++ -O3 lessons/check.cpp.o -o lessons/lesson_06 && :\n"
      "/usr/bin/ld: lessons/liblesson_06_code.a(exercise.cpp.o): in function `summa':\n"
      "exercise.cpp:(.text+0x1c): undefined reference to `helper()'\n"
      "collect2: error: ld returned 1 exit status\n";
  EXPECT_EQ(compiler_messages(output, kNoFolder, kNoFolder),
            "In file included from /work/main/lessons/06-summa/exercise.cpp:3:\n"
            "                 from /work/main/lessons/06-summa/other.hpp:1,\n"
            "/work/main/lessons/06-summa/other.hpp:2:10: fatal error: tp1d/mlp_1d.hpp: No such "
            "file or directory\n"
            "    2 | #include \"tp1d/mlp_1d.hpp\"\n"
            "      |          ^~~~~~~~~~~~~~~~~\n"
            "/usr/bin/ld: lessons/liblesson_06_code.a(exercise.cpp.o): in function `summa':\n"
            "exercise.cpp:(.text+0x1c): undefined reference to `helper()'\n"
            "collect2: error: ld returned 1 exit status\n");
}

TEST(CompilerMessages, KeepsTheLinkFencesRefusalAsItsParagraphs) {
  // CMake's form of a script's message(FATAL_ERROR): indented by two, wrapped near 80
  // columns, a line indented further kept as it is.
  const std::string output =
      "[2/2] Linking CXX static library lessons/liblesson_06_code.a\n"
      "FAILED: lessons/liblesson_06_code.a\n"
      "cd /work/main/build/lessons && /usr/bin/cmake -E rm -f liblesson_06_code.a && "
      "/usr/bin/ar qc liblesson_06_code.a exercise.cpp.o && /usr/bin/cmake "
      "-DEXERCISE=liblesson_06_code.a -P /work/main/lessons/cmake/check_exercise_links.cmake\n"
      "CMake Error at /work/main/lessons/cmake/check_exercise_links.cmake:58 (message):\n"
      "  lesson_06_code calls the finished library, which an exercise may not use:\n"
      "\n"
      "    tplab::tp2d::summa_forward(tplab::Device&, tplab::Grid2D&, tplab::Tensor const&, "
      "tplab::Tensor const&)  (defined in summa.cpp.o)\n"
      "\n"
      "  Write the step with the Device operations (device/device.hpp) and the Comm\n"
      "  collectives (comm/comm.hpp) instead.\n"
      "\n"
      "\n"
      "ninja: build stopped: subcommand failed.\n";
  EXPECT_EQ(compiler_messages(output, kNoFolder, kNoFolder),
            "lesson_06_code calls the finished library, which an exercise may not use:\n"
            "  tplab::tp2d::summa_forward(tplab::Device&, tplab::Grid2D&, tplab::Tensor const&, "
            "tplab::Tensor const&)  (defined in summa.cpp.o)\n"
            "Write the step with the Device operations (device/device.hpp) and the Comm "
            "collectives (comm/comm.hpp) instead.\n");
}

TEST(CompilerMessages, NamesAFileOfTheCheckoutRelativeToItWhereverTheCompilerSawIt) {
  testing::ScratchFolder checkout;
  std::filesystem::create_directories(checkout / "build");
  std::filesystem::create_directories(checkout / "lessons/01-x");
  testing::put(checkout / "lessons/01-x/exercise.cpp", "");
  const std::string output =
      "../lessons/01-x/exercise.cpp: In function 'f':\n"
      "../lessons/01-x/exercise.cpp:3:1: error: oops\n"
      "In file included from " +
      (checkout / "lessons/01-x/exercise.cpp").string() +
      ":2:\n"
      "collect2: error: ld returned 1 exit status\n";
  EXPECT_EQ(compiler_messages(output, checkout / "build", checkout.path()),
            "lessons/01-x/exercise.cpp: In function 'f':\n"
            "lessons/01-x/exercise.cpp:3:1: error: oops\n"
            "In file included from lessons/01-x/exercise.cpp:2:\n"
            "collect2: error: ld returned 1 exit status\n");
}

TEST(CompilerMessages, AnOutputWithNoDiagnosticIsKeptLessTheProgressLines) {
  EXPECT_EQ(compiler_messages("[1/1] Building x\nFAILED: x.o\nno space left on device\n"
                              "ninja: build stopped: subcommand failed.\n",
                              kNoFolder, kNoFolder),
            "no space left on device\n");
}

}  // namespace
}  // namespace tplab::app
