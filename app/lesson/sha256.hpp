/// @file
/// SHA-256 digests (OpenSSL's), to name exactly which source a grade was given for.
#pragma once

#include <filesystem>
#include <string>

namespace tplab::app {

/// The SHA-256 digest of the file's bytes as 64 lowercase hexadecimal digits, as `sha256sum`
/// prints it. Throws UsageError when the file cannot be read.
std::string sha256_of_file(const std::filesystem::path& path);

}  // namespace tplab::app
