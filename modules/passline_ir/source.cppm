// Source text and positions: where a node came from, and errors that point there.
//
// Nodes carry a byte offset into the text they were parsed from; the module
// keeps the text, so an error can say `file:line:col` and underline the spot
// long after parsing, in any pass.
module;
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
export module passline.ir:source;

export namespace passline::ir {

/// A line and column, both counted from 1.
struct Position {
  std::size_t line = 1;
  std::size_t column = 1;
};

/// The text a module was parsed from, with its name for messages.
class Source {
 public:
  Source(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
    }
  }
  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  Position position(std::uint32_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    return {line, offset - line_starts_[line - 1] + 1};
  }
  std::string_view line_text(std::size_t line) const {
    const std::size_t start = line_starts_[line - 1];
    const std::size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
    return std::string_view(text_).substr(start, end - start);
  }

  /// `file:line:col`.
  std::string location(std::uint32_t offset) const {
    const Position at = position(offset);
    return fmt::format("{}:{}:{}", name_, at.line, at.column);
  }
  /// The line holding `offset`, and a caret under it on the next line.
  std::string snippet(std::uint32_t offset) const {
    const Position at = position(offset);
    std::string line(line_text(at.line));
    std::ranges::replace(line, '\t', ' ');
    return fmt::format("{}\n{}^", line, std::string(at.column - 1, ' '));
  }
  /// `file:line:col: severity: message`, then the line and a caret under the spot.
  std::string format(std::uint32_t offset, std::string_view severity, std::string_view message) const {
    return fmt::format("{}: {}: {}\n{}", location(offset), severity, message, snippet(offset));
  }

 private:
  std::string name_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
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
