/// @file
/// Files tplab writes on the user's behalf (`--json`, `dump --out`, the lesson progress, a
/// calibrated profile): checked before any job is launched, and written so that a link or a
/// folder that another user planted can neither redirect them nor swap what they hold.
///
/// The rules, the same for every such file:
///   - the target is a plain file or does not exist yet: never a folder, a device such as
///     /dev/full, or a symbolic link (tplab writes through no link: on a shared machine another
///     user may have planted it);
///   - its folder exists, the user may write into it, and nobody else can change what is in
///     it: it belongs to the user or to root, and if every user may write into it, it has the
///     sticky bit (as /tmp has), so that nobody can remove or rename another user's files;
///   - the file is written whole into a new temporary file beside it (created with O_EXCL and
///     O_NOFOLLOW), flushed to the disk, and renamed over the target: a reader sees the old file
///     or the new one, never a part, and a link that appears at the target is replaced, not
///     followed.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "file_descriptor.hpp"

namespace tplab::app {

/// Why another user could replace or redirect what tplab writes into a folder with this
/// status, or "" when nobody but the user (and root) can: it belongs to another user, or every
/// user may write into it and it has no sticky bit.
std::string untrusted_folder_reason(const struct stat& folder);

/// Refuses, with a UsageError that names `option` and says what would work, a path tplab
/// cannot write a file to safely (see the rules above), or one the file system cannot hold: a
/// name in it longer than its folder's _PC_NAME_MAX (the file's own, with room for the
/// temporary file beside it), or the whole longer than _PC_PATH_MAX. Call it before anything
/// is launched.
void require_writable_file(const std::string& path, std::string_view option);

/// The folder of the file `path`, opened and checked again (it must still pass the folder rules
/// above), for files made in it through the descriptor (openat): its temporary file, a lock
/// beside it. Throws UsageError naming `option` when it cannot be opened or is not to trust.
FileDescriptor open_trusted_folder(const std::filesystem::path& path, std::string_view option);

/// Writes `contents` as the file `path`, whole (see the rules above). Throws UsageError naming
/// `option` when the folder is not one to trust or the disk refuses the data (full, read-only).
void write_file_safely(const std::filesystem::path& path, std::string_view contents,
                       std::string_view option);

/// Refuses a folder tplab cannot fill safely (`dump --out`): an existing folder must pass the
/// folder rules above; a missing one needs a parent that does; no name in its path may be
/// longer than the file system takes.
void require_output_folder(const std::string& path, std::string_view option);

/// Makes the folder `path` when it does not exist (its parent must) and checks it again, as
/// require_output_folder does. Files go into it through write_file_safely.
void make_output_folder(const std::string& path, std::string_view option);

/// The text of `path`, a small file of the user's own (the lesson progress), or nothing when
/// it does not exist. Refuses (UsageError naming `what`) a symbolic link, anything but a plain
/// file, and a file that belongs to another user.
std::optional<std::string> read_own_file(const std::filesystem::path& path, std::string_view what);

}  // namespace tplab::app
