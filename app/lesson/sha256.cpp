#include "sha256.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <fstream>
#include <iterator>

#include "core/error.hpp"

namespace tplab::app {

std::string sha256_of_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw UsageError(fmt::format("cannot read {}", path.string()));
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw InternalError("OpenSSL's SHA-256 failed");
  }
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace tplab::app
