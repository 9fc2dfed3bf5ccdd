#include "npy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>

#include "safe_output.hpp"

namespace tplab::app {

void write_npy(const std::filesystem::path& path, const verify::HostArray& array,
               std::string_view option) {
  static_assert(std::endian::native == std::endian::little, "'<f8' assumes a little-endian host");
  const std::string shape = array.extents.size() == 1
                                ? fmt::format("({},)", array.extents[0])
                                : fmt::format("({})", fmt::join(array.extents, ", "));
  std::string header =
      fmt::format("{{'descr': '<f8', 'fortran_order': False, 'shape': {}, }}", shape);
  // magic (6) + version (2) + header length (2) + header + '\n', padded to a multiple of 64
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  const auto length = static_cast<std::uint16_t>(header.size());
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(length & 0xff);
  bytes += static_cast<char>(length >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(array.values.data()),
               array.values.size() * sizeof(double));
  write_file_safely(path, bytes, option);
}

}  // namespace tplab::app
