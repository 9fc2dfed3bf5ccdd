/// @file
/// An open file descriptor that closes itself: the files tplab writes on the user's behalf are
/// opened with open(2) flags no C++ stream offers (O_EXCL, O_NOFOLLOW, O_DIRECTORY).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace tplab::app {

/// Owns one file descriptor; closes it when it goes out of scope.
class FileDescriptor {
 public:
  /// Takes `fd`, which may be -1 (a failed open(2): errno says why).
  explicit FileDescriptor(int fd = -1) noexcept : fd_(fd) {}
  /// Takes over `other`'s descriptor (`other` is left closed).
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  /// Closes this descriptor and takes over `other`'s.
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { close(); }

  /// The descriptor, for system calls.
  int get() const { return fd_; }
  /// Whether it is open.
  explicit operator bool() const { return fd_ >= 0; }
  /// Closes it now. Returns close(2)'s result: -1, with errno set, when data written through it
  /// may not have reached the file.
  int close() { return fd_ >= 0 ? ::close(std::exchange(fd_, -1)) : 0; }

  /// Reads what is left of the file, to its end; throws std::system_error when it cannot.
  std::string read_all() const {
    std::string text;
    char buffer[4096];
    while (true) {
      const ssize_t got = ::read(fd_, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw std::system_error(errno, std::generic_category());
      if (got == 0) return text;
      text.append(buffer, static_cast<std::size_t>(got));
    }
  }

  /// Writes all of `bytes` (write(2) may take them in parts); throws std::system_error when
  /// the file refuses them (a full disk, a broken pipe).
  void write_all(std::string_view bytes) const {
    while (!bytes.empty()) {
      const ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote < 0) throw std::system_error(errno, std::generic_category());
      bytes.remove_prefix(static_cast<std::size_t>(wrote));
    }
  }

 private:
  int fd_;
};

}  // namespace tplab::app
