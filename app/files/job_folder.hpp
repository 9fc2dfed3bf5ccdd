/// @file
/// The private folder of one launcher's jobs, where the ranks leave their results for it.
///
/// Made fresh with mkdtemp (a name nobody can guess, mode 0700) under $TMPDIR, or under the
/// build folder when TMPDIR is not set; a folder the launcher did not make is refused, and so
/// is a $TMPDIR that another user could change. While it lives, its random token is exported
/// to the jobs the launcher starts (job_result.hpp), and results are read back without
/// following a link, only when they belong to the user and carry that token. Everything in it
/// is removed when the object goes, on every way out of the launcher that unwinds the stack.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "private_folder.hpp"

namespace tplab::app {

/// What a job left in its folder under one name.
struct JobResult {
  /// Nothing there; a result of the job's own; something else, which is not used.
  enum class State { missing, accepted, rejected };
  /// Which of the three it is.
  State state = State::missing;
  /// accepted: what the job wrote, less its token.
  nlohmann::json document;
  /// rejected: why it is not taken for the job's result.
  std::string why_rejected;
};

/// One launcher's job folder (see the file comment).
class JobFolder {
 public:
  /// Makes the folder. Throws UsageError when $TMPDIR is no folder to trust.
  JobFolder();
  /// Removes the folder and everything in it, and withdraws the token from the environment.
  ~JobFolder();
  JobFolder(const JobFolder&) = delete;
  JobFolder& operator=(const JobFolder&) = delete;

  /// The folder.
  const std::filesystem::path& path() const { return folder_.path(); }
  /// The path a job is told to write its result `name` to.
  std::string file(std::string_view name) const;
  /// The result `name` as the job left it (see JobResult).
  JobResult read(std::string_view name) const;

 private:
  PrivateFolder folder_;
  std::string token_;
};

}  // namespace tplab::app
