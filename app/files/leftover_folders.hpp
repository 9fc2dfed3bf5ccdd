/// @file
/// The private folders a launcher killed outright (kill -9) could not remove, found and removed
/// by the next launcher, never one of a run that still lives.
///
/// Every private folder holds an owner record, `owner`, with the boot of the machine, the pid
/// namespace, and the pid and start time of the process that made it. Before a launcher makes its
/// own folder under a base, it removes every folder there that has the same prefix, belongs to the
/// user, is no link, and whose record says its maker is gone: it ran on this machine since its last
/// boot, in this pid namespace, and no process with its pid lives, or the one that does started at
/// another time (a pid used again). A folder without a record (being made at this moment, or left
/// by an older tplab), one made on another machine (a build folder shared over the network) or one
/// whose maker lives, is left as it is.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace tplab::app {

/// The file in a private folder that names the process that made it.
inline constexpr const char* kOwnerRecordName = "owner";

/// This process's owner record: "BOOT_ID PID_NAMESPACE PID START_TIME\n" (the start time in
/// clock ticks since boot, as /proc/PID/stat gives it).
std::string owner_record();

/// Whether the process that `record` names is gone (see the file comment); false for a record
/// that cannot be read as one.
bool owner_is_gone(std::string_view record);

/// Removes the folders under `base` named `<prefix>-XXXXXX` that were left by a gone owner (see
/// the file comment), saying on standard error which it removed.
void remove_leftover_folders(const std::filesystem::path& base, std::string_view prefix);

}  // namespace tplab::app
