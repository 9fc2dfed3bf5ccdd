#include "free_space.hpp"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include "core/error.hpp"

namespace tplab::app {
namespace {

/// "512 B", "4.0 KiB", "3.2 MiB", "1.5 GiB": what a person reads at a glance.
std::string size_text(double bytes) {
  if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 0x1p20) return fmt::format("{:.1f} KiB", bytes / 0x1p10);
  if (bytes < 0x1p30) return fmt::format("{:.1f} MiB", bytes / 0x1p20);
  return fmt::format("{:.1f} GiB", bytes / 0x1p30);
}

}  // namespace

void require_free_space(const std::filesystem::path& path, std::uintmax_t bytes,
                        std::string_view option) {
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  struct statvfs fs {};
  if (statvfs(folder.c_str(), &fs) != 0) return;
  const double free = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  const double needed = 2.0 * static_cast<double>(bytes);
  if (free >= needed) return;
  throw UsageError(fmt::format(
      "{} {}: the file system of {} has {} free, and this run writes about {} there (twice "
      "over while each version replaces the last); free space there or write elsewhere",
      option, path.string(), folder.string(), size_text(free),
      size_text(static_cast<double>(bytes))));
}

}  // namespace tplab::app
