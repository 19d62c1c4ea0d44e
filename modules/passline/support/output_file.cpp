// OutputFile (support.cppm): the system calls, and the signal handlers
// that remove temporary files when a run is stopped.
module;
#include <array>
#include <atomic>
#include <charconv>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
module passline.support;

namespace passline::support {

namespace {

/// The temporary files of writes in progress, for the signal handlers: a
/// fixed table of C strings, read with nothing but atomic loads and unlink(2),
/// which a handler may call.
std::array<std::atomic<char*>, 64> pending{};

int remember(const std::string& path) {
  char* copy = ::strdup(path.c_str());
  if (!copy) return -1;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    char* expected = nullptr;
    if (pending[i].compare_exchange_strong(expected, copy)) return static_cast<int>(i);
  }
  std::free(copy);  // more writes at once than slots: this one is not cleaned up on a signal
  return -1;
}

void forget(int slot) {
  if (slot < 0) return;
  std::free(pending[static_cast<std::size_t>(slot)].exchange(nullptr));
}

extern "C" void remove_pending_and_reraise(int signal) {
  for (auto& entry : pending) {
    if (char* path = entry.load()) ::unlink(path);
  }
  ::raise(signal);  // the handler was installed with SA_RESETHAND: this one ends the process
}

/// The mode a new file gets: 0666 less the process's umask, read without
/// changing it (other threads may be creating files).
mode_t new_file_mode() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("Umask:")) return 0666 & ~static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return 0666 & ~mask;
}

/// Removes the temporary files that processes now gone left in `directory`
/// (`.NAME.passline-PID-XXXXXX`, killed before they could remove them),
/// once per directory per process: a directory of many dumps is not read
/// again for each. A process that is gone is one `kill(pid, 0)` says does
/// not exist; a live one, even one that reused the number, keeps its files.
void remove_stale_temporaries(const std::filesystem::path& directory) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::error_code error;
    const std::filesystem::path key = std::filesystem::weakly_canonical(directory, error);
    const std::lock_guard lock(mutex);
    if (!swept.insert(error ? directory.string() : key.string()).second) return;
  }
  std::error_code error;
  for (std::filesystem::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with('.')) continue;
    const std::size_t marker = name.rfind(".passline-");
    if (marker == std::string::npos) continue;
    const std::string_view rest = std::string_view(name).substr(marker + 10);  // PID-XXXXXX
    const std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos || dash == 0 || rest.size() != dash + 7) continue;
    pid_t pid = 0;
    const auto [end_of_pid, parsed] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (parsed != std::errc() || end_of_pid != rest.data() + dash || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    ::unlink(it->path().c_str());
  }
}

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& target) : name_(fmt::format("'{}'", target.string())), path_(target) {
  if (target == "-") {
    name_ = "standard output";
    fd_ = STDOUT_FILENO;
    in_place_ = true;
    return;
  }
  if (target.empty()) throw FileError("cannot write a file with an empty name");
  // Follow symbolic links to what they name, so that the link stays a link.
  struct stat info {};
  bool exists = false;
  for (int links = 0;; ++links) {
    if (::lstat(path_.c_str(), &info) != 0) {
      if (errno != ENOENT) fail("cannot write", errno);
      break;
    }
    if (!S_ISLNK(info.st_mode)) {
      exists = true;
      break;
    }
    if (links == 40) fail("cannot write", ELOOP);
    std::error_code error;
    const std::filesystem::path link = std::filesystem::read_symlink(path_, error);
    if (error) fail("cannot write", error.value());
    path_ = link.is_absolute() ? link : path_.parent_path() / link;
  }
  if (exists && S_ISDIR(info.st_mode)) fail("cannot write", EISDIR);
  if (exists && !S_ISREG(info.st_mode)) {  // a device or a FIFO: written in place, opened when written
    if (::access(path_.c_str(), W_OK) != 0) fail("cannot write", errno);
    in_place_ = true;
    return;
  }
  make_temporary(exists, &info);
}

OutputFile::OutputFile(const std::filesystem::path& target, Replacing)
    : name_(fmt::format("'{}'", target.string())), path_(target) {
  if (target.empty()) throw FileError("cannot write a file with an empty name");
  struct stat info {};
  if (::lstat(path_.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) fail("cannot write", EISDIR);
  make_temporary(false, nullptr);
}

OutputFile OutputFile::replacing(const std::filesystem::path& target) { return OutputFile(target, Replacing{}); }

/// A temporary file beside path_, to be renamed over it: `exists` says
/// whether path_ is a regular file, whose mode (and owner) `info` gives.
void OutputFile::make_temporary(bool exists, const struct stat* info) {
  const std::filesystem::path directory = path_.has_parent_path() ? path_.parent_path() : ".";
  const std::string prefix = "." + path_.filename().string() + ".passline-";
  remove_stale_temporaries(directory);
  std::string pattern = (directory / fmt::format("{}{}-XXXXXX", prefix, ::getpid())).string();
  fd_ = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd_ < 0) fail("cannot write", errno);
  temporary_ = pattern;
  slot_ = remember(pattern);
  // The old file's permissions (and owner, where allowed), or a new file's.
  if (::fchmod(fd_, exists ? info->st_mode & 07777 : new_file_mode()) != 0) fail("cannot write", errno);
  if (exists && (info->st_uid != ::geteuid() || info->st_gid != ::getegid())) {
    [[maybe_unused]] const int ignored = ::fchown(fd_, info->st_uid, info->st_gid);  // only root may give a file away
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
  if (!temporary_.empty() && !committed_) ::unlink(temporary_.c_str());
  forget(slot_);
}

void OutputFile::open_in_place() {
  if (fd_ >= 0) return;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) fail("cannot write", errno);
}

void OutputFile::write(std::string_view text) {
  if (committed_) throw FileError(fmt::format("cannot write {}: it is already written", name_));
  open_in_place();
  wrote_ = true;
  while (!text.empty()) {
    const ::ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", errno);
    if (n == 0) fail("cannot write", ENOSPC);
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputFile::commit() {
  if (committed_) return;
  open_in_place();
  // A write of nothing still tells a descriptor that cannot be written (a
  // closed standard output) from one that can.
  if (!wrote_ && ::write(fd_, "", 0) < 0) fail("cannot write", errno);
  if (fd_ == STDOUT_FILENO) {
    committed_ = true;
    return;
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write", errno);
  if (!temporary_.empty() && ::rename(temporary_.c_str(), path_.c_str()) != 0) fail("cannot write", errno);
  committed_ = true;
}

void OutputFile::fail(std::string_view what, int error) const {
  throw FileError(fmt::format("{} {}: {}", what, name_, std::strerror(error)));
}

void OutputFile::remove_temporaries_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_pending_and_reraise;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(signal, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // started to ignore it (nohup): keep that
    ::sigaction(signal, &action, nullptr);
  }
}

void write_file(const std::filesystem::path& target, std::string_view text) {
  OutputFile file(target);
  file.write(text);
  file.commit();
}

void replace_file(const std::filesystem::path& target, std::string_view text) {
  OutputFile file = OutputFile::replacing(target);
  file.write(text);
  file.commit();
}

}  // namespace passline::support
