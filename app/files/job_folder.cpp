#include "job_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "job_result.hpp"
#include "random_name.hpp"
#include "safe_output.hpp"

namespace tplab::app {

JobFolder::JobFolder() : folder_("tplab-job", TPLAB_BINARY_DIR), token_(random_hex(16)) {
  setenv(kJobTokenVariable, token_.c_str(), 1);
}

JobFolder::~JobFolder() {
  unsetenv(kJobTokenVariable);
}

std::string JobFolder::file(std::string_view name) const {
  return (folder_.path() / name).string();
}

JobResult JobFolder::read(std::string_view name) const {
  const std::string file_name(name);
  const auto rejected = [](std::string why) {
    return JobResult{JobResult::State::rejected, nullptr, std::move(why)};
  };
  FileDescriptor file(openat(folder_.descriptor(), file_name.c_str(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file && errno == ENOENT) return {};
  if (!file && errno == ELOOP) return rejected("it is a symbolic link");
  if (!file) return rejected(fmt::format("it cannot be opened ({})", std::strerror(errno)));
  struct stat st {};
  if (fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return rejected("it is not a plain file");
  }
  if (st.st_uid != geteuid()) return rejected("it belongs to another user");
  if (st.st_nlink != 1) return rejected("it has other names (hard links)");
  std::string text;
  char buffer[65536];
  for (ssize_t got; (got = ::read(file.get(), buffer, sizeof buffer)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return rejected(fmt::format("reading it failed ({})", std::strerror(errno)));
    text.append(buffer, static_cast<std::size_t>(got));
  }
  nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return rejected("it is not a whole JSON object (the job may have ended while writing it)");
  }
  const auto token = document.find(kJobTokenField);
  if (token == document.end() || !token->is_string() || token->get<std::string>() != token_) {
    return rejected("it does not carry this job's token, so this job did not write it");
  }
  document.erase(kJobTokenField);
  return {JobResult::State::accepted, std::move(document), {}};
}

}  // namespace tplab::app
