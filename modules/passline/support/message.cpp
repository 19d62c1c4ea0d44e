// printable, first_character and caret_lines (support.cppm): text from the input, as error messages show it.
//
// Input can be anything: a hundred thousand digits, a NUL, a byte that is not
// UTF-8, a line a megabyte long. A message must still be one readable line,
// so what it quotes is cut to a sensible length and escaped, and a snippet
// shows a window of its line around the caret. Every parser's messages go
// through here, so they all read the same.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <fmt/format.h>
module passline.support;

namespace passline::support {
namespace {

/// The length of the valid UTF-8 sequence of two to four bytes at the start
/// of `text`, or 0.
std::size_t utf8_sequence(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t lead = byte(0);
  const std::size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                             : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (length == 0 || text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
  }
  // No overlong forms, no surrogates, nothing past U+10FFFF.
  if ((lead == 0xE0 && byte(1) < 0xA0) || (lead == 0xED && byte(1) > 0x9F) || (lead == 0xF0 && byte(1) < 0x90) ||
      (lead == 0xF4 && byte(1) > 0x8F)) {
    return 0;
  }
  return length;
}

/// The code point of the valid UTF-8 sequence `text` (of `length` bytes).
std::uint32_t code_point(std::string_view text, std::size_t length) {
  std::uint32_t c = static_cast<std::uint8_t>(text[0]) & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) c = (c << 6) | (static_cast<std::uint8_t>(text[i]) & 0x3F);
  return c;
}

/// Code points that show nothing, or change how the text around them shows:
/// C1 controls, zero-width characters, the byte-order mark, line and
/// paragraph separators, and bidirectional controls.
bool invisible(std::uint32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF;
}

}  // namespace
}  // namespace passline::support

namespace passline::support {

/// `text` as a message quotes it: printable characters (valid UTF-8
/// included) as they are, a character that shows nothing or reorders the
/// text (a zero-width space, a bidirectional control) as `\u{NNNN}`, any
/// other byte as `\xNN`, and no more than `limit` characters of it, with
/// `...` for the rest.
std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size(); ++shown) {
    if (shown == limit) return out + "...";
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = c >= 0x80 ? utf8_sequence(text.substr(i)) : 0; n > 0) {
      const std::uint32_t point = code_point(text.substr(i), n);
      if (invisible(point)) {
        out += fmt::format("\\u{{{:04X}}}", point);
      } else {
        out += text.substr(i, n);
      }
      i += n;
    } else {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    }
  }
  return out;
}

/// The first character of `text`: one byte, or a valid UTF-8 sequence.
std::string_view first_character(std::string_view text) {
  if (text.empty()) return text;
  const std::size_t n = static_cast<unsigned char>(text[0]) >= 0x80 ? utf8_sequence(text) : 0;
  return text.substr(0, std::max<std::size_t>(n, 1));
}

/// A line of input and, under it, a caret at `column` (from 1) marking
/// `width` characters: `^` or `^~~~`. A long line is shown as a window of
/// about `limit` characters around the caret, `...` where it is cut;
/// control bytes show as `?`, so that the caret stays under its character.
std::string caret_lines(std::string_view line, std::size_t column, std::size_t width,
                               std::size_t limit) {
  std::size_t at = std::min(column == 0 ? 0 : column - 1, line.size());
  width = std::max<std::size_t>(width, 1);
  std::size_t begin = 0;
  std::size_t end = line.size();
  if (line.size() > limit) {
    begin = at > limit / 2 ? at - limit / 2 : 0;
    end = std::min(line.size(), begin + limit);
  }
  std::string shown = begin > 0 ? "..." : "";
  const std::size_t caret = shown.size() + (at - begin);
  for (char c : line.substr(begin, end - begin)) {
    const auto u = static_cast<unsigned char>(c);
    shown += c == '\t' ? ' ' : u < 0x20 || u == 0x7F ? '?' : c;
  }
  if (end < line.size()) shown += "...";
  width = std::min(width, std::max<std::size_t>(end - std::min(at, end), 1));
  return shown + "\n" + std::string(caret, ' ') + "^" + std::string(width - 1, '~');
}

}  // namespace passline::support
