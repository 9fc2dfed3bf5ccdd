/// @file
/// A rank's result file. Launched by tplab, a job writes it into the launcher's private job
/// folder (see job_folder.hpp): a name nothing (not even a link) had when the job started,
/// written whole into a new file beside it (readable by the user alone) and renamed over it, and
/// stamped with the job's token so that the launcher can tell it from anything else. A job may
/// write its results so far first (write_progress), which the final result replaces. Run by the
/// user under mpiexec, the job writes the user's file directly, by the rules of safe_output.hpp.
#pragma once

#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tplab::app {

/// The environment variable through which a launcher hands its job's token to the ranks.
inline constexpr const char* kJobTokenVariable = "TPLAB_JOB_TOKEN";

/// The field of a result file that carries the token.
inline constexpr const char* kJobTokenField = "job_token";

/// The token of the tplab launcher that started this process, or "" when none did.
std::string job_token();

/// Why a job folder with this status is not private to the user, or "" when it is: it belongs
/// to another user, or someone else may read, write or enter it.
std::string not_private_reason(const struct stat& folder);

/// Refuses (UsageError naming `option`), before the job computes anything, a `path` this
/// process could not write its result to: launched by tplab, a name already taken or a folder
/// that is not private; otherwise what require_writable_file refuses.
void require_result_target(const std::string& path, std::string_view option);

/// Writes `document` as this process's result at `path`: launched by tplab, into the job folder
/// with the job's token added, flushed to the disk; otherwise the user's file, with
/// write_file_safely.
void write_result(const std::string& path, nlohmann::json document, std::string_view option);

/// The same for the results so far, which the next call or the final result replaces (in the
/// job folder without waiting for the disk): a job ended early (past its --timeout) leaves them.
void write_progress(const std::string& path, nlohmann::json document, std::string_view option);

}  // namespace tplab::app
