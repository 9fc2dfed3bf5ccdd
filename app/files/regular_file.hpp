/// @file
/// Inputs the user names (`--hosts FILE`): read only when they are regular files, so that a
/// named pipe, a device or a folder given by mistake is refused with what it is, and never
/// blocks tplab (a named pipe's read waits for a writer that may never come).
#pragma once

#include <sys/stat.h>

#include <string>
#include <string_view>

namespace tplab::app {

/// What a file of mode `mode` is, in words: "a regular file", "a folder", "a named pipe
/// (FIFO)", "a character device", ...
std::string kind_of_file(mode_t mode);

/// The text of the regular file `path`. Anything else is refused before a byte is read: checked
/// (stat) before it is opened, opened with O_NONBLOCK (a named pipe put in its place meanwhile
/// cannot block the open), and checked again (fstat) on what was opened. Throws UsageError
/// "`option` PATH: that is a named pipe (FIFO), not a regular file; `advice`", or "`option`
/// PATH: cannot read it (why); `advice`".
std::string read_regular_file(const std::string& path, std::string_view option,
                              std::string_view advice);

}  // namespace tplab::app
