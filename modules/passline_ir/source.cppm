// Source text and positions: where a node came from, and errors that point there.
//
// Nodes carry a byte offset into the text they were parsed from; the module
// keeps the text, so an error can say `file:line:col` and underline the spot
// long after parsing, in any pass. A file's text is mapped rather than read,
// so what the parser is done with costs no memory.
module;
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <cerrno>
#include <mutex>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
export module passline.ir:source;
import passline;
import passline.support;

namespace passline::ir::detail {

/// Whether the program installed the watch (map_input_files): only then
/// are files mapped.
bool mappings_watched();
/// Mapped files, watched for the fault (SIGBUS) that reading a page of a
/// file truncated under the mapping raises: the page becomes zeros instead,
/// and the mapping is marked as faulted, for the parser to report
/// (source.cpp). The slot, or -1 when every slot is taken (then a
/// truncation ends the program, as it would without the watch).
int watch_mapping(const void* begin, std::size_t size);
void unwatch_mapping(int slot);
bool mapping_faulted(int slot);

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Lets `parse_file` map regular files instead of reading them: it installs
/// a process-wide SIGBUS handler that turns the pages of a file truncated
/// while it is mapped into zeros, and the truncation into a FileError. For
/// programs (passline-opt calls it first thing), as they own their signals;
/// a library or an extension module that never calls it reads files into
/// memory and installs no handler.
void map_input_files();

/// A line and column, both counted from 1.
struct Position {
  std::size_t line = 1;
  std::size_t column = 1;
};

/// The text a module was parsed from, with its name for messages. The text
/// is either held in memory or, for a file, mapped from it: then a parser that
/// is done with a stretch of text hands its pages back (`release`), and a
/// diagnostic that shows a line later reads it from the file again.
class Source {
 public:
  Source(std::string name, std::string text) : name_(std::move(name)), owned_(std::move(text)), text_(owned_) {}
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() {
    if (!mapped_) return;
    detail::unwatch_mapping(watch_);
    ::munmap(const_cast<char*>(text_.data()), text_.size());
  }

  /// The text of the file at `path`, mapped when it is a regular file and
  /// the program called map_input_files, and read otherwise (a pipe, a
  /// terminal). Throws std::system_error when it cannot be read. A mapped
  /// file truncated while it is read does not end the program: the text
  /// lost reads as zeros, and `check_intact` throws.
  static std::shared_ptr<const Source> open(const std::string& path, std::string name) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), fmt::format("cannot open '{}'", path));
    struct stat info {};
    std::shared_ptr<Source> source;
    if (detail::mappings_watched() && ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      void* at = ::mmap(nullptr, static_cast<std::size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (at != MAP_FAILED) {
        ::madvise(at, static_cast<std::size_t>(info.st_size), MADV_SEQUENTIAL);
        source = std::make_shared<Source>(std::move(name), std::string());
        source->text_ = std::string_view(static_cast<const char*>(at), static_cast<std::size_t>(info.st_size));
        source->mapped_ = true;
        source->watch_ = detail::watch_mapping(at, static_cast<std::size_t>(info.st_size));
      }
    }
    if (!source) {
      std::string text;
      char buffer[1 << 16];
      for (;;) {
        const ::ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          const int error = errno;
          ::close(fd);
          throw std::system_error(error, std::generic_category(), fmt::format("cannot read '{}'", path));
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
      }
      source = std::make_shared<Source>(std::move(name), std::move(text));
    }
    ::close(fd);
    return source;
  }

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  /// Throws FileError if the file was truncated while it was mapped (see open).
  void check_intact() const {
    if (mapped_ && detail::mapping_faulted(watch_)) {
      throw support::FileError(fmt::format("cannot read '{}': it was truncated while it was read", name_));
    }
  }

  /// Done with the text from `from` to `to` for now: a mapped file's whole
  /// pages there leave memory, to come back from the file if read again.
  /// Text held in memory stays.
  void release(std::size_t from, std::size_t to) const {
    if (!mapped_) return;
    static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t begin = (from + page - 1) / page * page;
    const std::size_t end = std::min(to, text_.size()) / page * page;
    if (end > begin) ::madvise(const_cast<char*>(text_.data()) + begin, end - begin, MADV_DONTNEED);
  }

  Position position(std::uint32_t offset) const {
    const std::vector<std::uint32_t>& starts = line_starts();
    auto it = std::upper_bound(starts.begin(), starts.end(), offset);
    const std::size_t line = static_cast<std::size_t>(it - starts.begin());
    return {line, offset - starts[line - 1] + 1};
  }
  std::string_view line_text(std::size_t line) const {
    const std::vector<std::uint32_t>& starts = line_starts();
    const std::size_t start = starts[line - 1];
    const std::size_t end = line < starts.size() ? starts[line] - 1 : text_.size();
    return text_.substr(start, end - start);
  }

  /// `file:line:col`.
  std::string location(std::uint32_t offset) const {
    const Position at = position(offset);
    return fmt::format("{}:{}:{}", name_, at.line, at.column);
  }
  /// The line holding `offset`, and a caret under it on the next line.
  std::string snippet(std::uint32_t offset) const {
    const Position at = position(offset);
    return support::caret_lines(line_text(at.line), at.column);
  }
  /// `file:line:col: severity: message`, then the line and a caret under the spot.
  std::string format(std::uint32_t offset, std::string_view severity, std::string_view message) const {
    return fmt::format("{}: {}: {}\n{}", location(offset), severity, message, snippet(offset));
  }

 private:
  /// Where each line starts, found the first time a position is asked for
  /// (most runs never ask), from any thread.
  const std::vector<std::uint32_t>& line_starts() const {
    std::call_once(lines_once_, [this] {
      line_starts_.push_back(0);
      for (std::size_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\n') line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
      }
    });
    return line_starts_;
  }

  std::string name_;
  std::string owned_;
  std::string_view text_;
  bool mapped_ = false;
  int watch_ = -1;
  mutable std::once_flag lines_once_;
  mutable std::vector<std::uint32_t> line_starts_;
};

/// Malformed IR text or an ill-formed module. `what()` is the whole message
/// with its caret; `message()` is the bare message.
class IRError : public std::runtime_error {
 public:
  IRError(const Source& source, std::uint32_t offset, const std::string& message)
      : std::runtime_error(source.format(offset, "error", message)),
        message_(message), position_(source.position(offset)) {}
  /// An error with no position (a module built in memory).
  explicit IRError(const std::string& message) : std::runtime_error("error: " + message), message_(message) {}
  const std::string& message() const { return message_; }
  Position position() const { return position_; }

 private:
  std::string message_;
  Position position_;
};

}  // namespace passline::ir
