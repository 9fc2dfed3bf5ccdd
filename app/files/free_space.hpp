/// @file
/// Room for an output on its file system, checked before anything runs: a series that writes
/// its --json after every job would otherwise find the disk full at its first job's end, or at
/// its last.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace tplab::app {

/// Refuses, with a UsageError naming `option` and both amounts, an output `path` whose file
/// system clearly lacks room for about `bytes`: less free (for the user, as statvfs says for its
/// folder) than twice that, since each version is written whole beside the last before it
/// replaces it. Says nothing where the file system cannot tell.
void require_free_space(const std::filesystem::path& path, std::uintmax_t bytes,
                        std::string_view option);

}  // namespace tplab::app
