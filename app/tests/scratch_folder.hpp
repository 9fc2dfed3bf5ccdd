/// @file
/// A fresh folder for one test, made with mkdtemp and removed afterwards.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tplab::app::testing {

/// The uid and gid of the user "nobody" on Debian: another user, for the tests that need one.
inline constexpr uid_t kNobody = 65534;
inline constexpr gid_t kNoGroup = 65534;

/// A folder of the test's own under /tmp (mode 0700), removed with everything in it.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string name = (std::filesystem::temp_directory_path() / "tplab-test-XXXXXX").string();
    path_ = mkdtemp(name.data());
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  /// A path inside the folder.
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  /// The folder.
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The whole text of a file.
inline std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Writes `text` as the file `path` (for setting the scene).
inline void put(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace tplab::app::testing
