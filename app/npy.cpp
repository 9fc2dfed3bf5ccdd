#include "npy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <fstream>

#include "core/error.hpp"

namespace tplab::app {

void write_npy(const std::filesystem::path& path, const verify::HostArray& array) {
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

  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError(fmt::format("cannot write {}", path.string()));
  const auto length = static_cast<std::uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(length & 0xff));
  out.put(static_cast<char>(length >> 8));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(array.values.data()),
            static_cast<std::streamsize>(array.values.size() * sizeof(double)));
  out.close();  // the last bytes reach the file here: a full disk shows now
  if (!out) throw UsageError(fmt::format("writing {} failed", path.string()));
}

}  // namespace tplab::app
