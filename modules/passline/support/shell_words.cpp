// shell_word and shell_words (support.cppm): words of a POSIX shell command line, written so that a shell reads them
// back, and read back without a shell.
//
// A reproducer's first line is a command line a person pastes into a shell,
// and a file the driver replays. Replaying must not be a shell: a file from
// someone else must not expand variables or globs or run commands. So the
// reader takes quotes and backslashes as a shell does and refuses, instead of
// expanding, anything a shell would expand or treat as an operator.
module;
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>
#include <fmt/format.h>
module passline.support;

namespace passline::support {

/// `word` as one word of a POSIX shell command line: as it is when it holds
/// nothing a shell reads specially, else in single quotes, with each quote
/// it holds written `\'` outside them. A shell and `shell_words` read it back
/// the same.
std::string shell_word(std::string_view word) {
  const bool plain = !word.empty() && std::ranges::all_of(word, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-+=,./:@%").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  if (word.empty()) return "''";
  std::string quoted;
  bool open = false;  // no empty '' pieces
  for (char c : word) {
    if (c == '\'') {
      if (open) quoted += '\'';
      open = false;
      quoted += "\\'";
    } else {
      if (!open) quoted += '\'';
      open = true;
      quoted += c;
    }
  }
  if (open) quoted += '\'';
  return quoted;
}

/// The words of `line` as a POSIX shell splits them: blanks separate words;
/// single quotes keep what they hold; double quotes too, but for `\` before
/// `$`, `` ` ``, `"`, `\` or a newline; a backslash outside quotes keeps the
/// character after it. Nothing is expanded: a `$`, `` ` `` or glob
/// character outside quotes, a `~` that begins a word, or an operator
/// (`; | & < > ( )`) is a ShellWordsError, as is a quote left open.
std::vector<std::string> shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  auto fail = [&](std::size_t at, std::string_view why) {
    throw ShellWordsError(fmt::format("column {}: {}", at + 1, why));
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    if (c == '\'') {
      const std::size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos) fail(i, "a single quote is never closed");
      word += line.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '$' || line[j] == '`') fail(j, fmt::format("'{}' inside double quotes would be expanded", line[j]));
        if (line[j] == '\\' && j + 1 < line.size() && std::string_view("$`\"\\\n").find(line[j + 1]) != std::string_view::npos) ++j;
        word += line[j];
      }
      if (j == line.size()) fail(i, "a double quote is never closed");
      i = j;
    } else if (c == '\\') {
      if (i + 1 == line.size()) fail(i, "a backslash ends the line");
      word += line[++i];
    } else if (std::string_view("$`;|&<>()*?[").find(c) != std::string_view::npos || (c == '~' && !in_word)) {
      fail(i, fmt::format("'{}' outside quotes would be read by a shell; quote it", c));
    } else {
      word += c;
    }
    in_word = true;
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace passline::support
