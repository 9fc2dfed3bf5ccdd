/// @file
/// What a learner needs from a failed build of a lesson: the compiler's and the linker's
/// diagnostics and the link fence's refusal, without the build tool's progress lines and the
/// command lines it ran (a compiler's command line alone is some 1,800 characters).
#pragma once

#include <filesystem>
#include <string>

namespace tplab::app {

/// The diagnostics in `build_output` (what `cmake --build` printed for a failed build), in
/// their order: every line that names an error, a warning, a note, the function it is in, an
/// undefined reference, or the file that included the one at fault; the source excerpt and the
/// caret that follow such a line; and the link fence's refusal (lessons/cmake/
/// check_exercise_links.cmake: "... calls the finished library ...", and what to use instead).
/// When no line is of those kinds (a build that failed some other way), the output less the
/// build tool's progress lines ("[3/7] ...", "ninja: ...", "FAILED: ..."), so that the reason
/// is never lost. A file a diagnostic names at its start (or after "In file included from")
/// is named relative to `source_folder` when it is a file there: the compiler may have seen it by a
/// path relative to `build_folder` ("../lessons/01-column-split/exercise.cpp", as ccache's base
/// folder makes it), which means nothing where the learner stands.
std::string compiler_messages(const std::string& build_output,
                              const std::filesystem::path& build_folder,
                              const std::filesystem::path& source_folder);

}  // namespace tplab::app
