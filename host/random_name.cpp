#include "random_name.hpp"

#include <fmt/format.h>
#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.hpp"

namespace tplab::app {

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  std::size_t filled = 0;
  while (filled < bytes) {
    const ssize_t got = getrandom(raw.data() + filled, bytes - filled, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InternalError(fmt::format("getrandom failed: {}", std::strerror(errno)));
    filled += static_cast<std::size_t>(got);
  }
  std::string hex;
  for (unsigned char b : raw) hex += fmt::format("{:02x}", b);
  return hex;
}

}  // namespace tplab::app
