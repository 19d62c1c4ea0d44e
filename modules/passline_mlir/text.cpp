// passline.mlir's reading and writing on the context's threads: MLIR's text
// read a share of the module's top-level operations on each thread, with
// MLIR's own parser, into one context and one module, and a module's body
// printed an operation on each, with MLIR's own printer; the same bytes as
// MLIR's parser and printer give on one thread.
module;

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/Hashing.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/Bytecode/BytecodeReader.h>
#include <mlir/IR/AttrTypeSubElements.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/DialectResourceBlobManager.h>
#include <mlir/IR/OpImplementation.h>
#include <mlir/IR/Threading.h>
#include <mlir/IR/Verifier.h>
#include <mlir/Parser/Parser.h>
#include <mlir/Tools/ParseUtilities.h>

module passline.mlir;

namespace passline::mlir {

namespace {

/// Where a top-level item of MLIR's text begins: its offset, line and column
/// (both from 1).
struct Start {
  std::size_t offset;
  std::size_t line;
  std::size_t column;
};

bool is_identifier_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_identifier(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9') || c == '$' || c == '.' || c == '-'; }

/// What MLIR's lexer skips between tokens: a NUL inside the text too.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0'; }

/// Where the name `#x` or `!x` that begins at `i` ends, as MLIR's lexer
/// reads one (digits alone, or letters, digits and `_$.-`), or nothing where
/// no name begins there.
std::optional<std::size_t> prefixed_name_end(std::string_view text, std::size_t i) {
  if (i + 1 >= text.size() || (text[i] != '#' && text[i] != '!')) return std::nullopt;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t end = i + 1;
  if (digit(text[end])) {
    while (end < text.size() && digit(text[end])) ++end;
  } else {
    while (end < text.size() && is_identifier(text[end])) ++end;
  }
  if (end == i + 1) return std::nullopt;
  return end;
}

/// Where the string that opens at `i` closes (its quote), or nothing where it
/// does not before `to` or its line's end (MLIR's strings span no line).
std::optional<std::size_t> string_end(std::string_view text, std::size_t i, std::size_t to) {
  for (++i; i < to && text[i] != '"'; ++i) {
    if (text[i] == '\n' || text[i] == '\v' || text[i] == '\f') return std::nullopt;
    if (text[i] == '\\') ++i;
  }
  if (i >= to) return std::nullopt;
  return i;
}

/// Where the line of `i` ends (its newline, or `to`): a comment's end.
std::size_t line_end(std::string_view text, std::size_t i, std::size_t to) {
  return std::min(text.find('\n', i), to);
}

/// Where the next token after `i` begins: past blanks and comments.
std::size_t skip_blanks(std::string_view text, std::size_t i) {
  while (i < text.size()) {
    if (is_blank(text[i])) {
      ++i;
    } else if (text.substr(i, 2) == "//") {
      i = line_end(text, i, text.size());
    } else {
      break;
    }
  }
  return i;
}

/// The alias an item defines (`#map =`, `!type =`, with blanks or comments
/// before the `=`), or nothing.
std::optional<std::string_view> alias_of(std::string_view item) {
  const std::optional<std::size_t> end = prefixed_name_end(item, 0);
  if (!end) return std::nullopt;
  const std::size_t next = skip_blanks(item, *end);
  if (next >= item.size() || item[next] != '=') return std::nullopt;
  return item.substr(0, *end);
}

/// Whether `text` has the keyword `word` followed, past blanks and
/// comments, by `next` (`distinct [0]`, `dense_resource <blob>`), strings
/// and comments included.
bool has_keyword_before(std::string_view text, std::string_view word, char next) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const std::size_t after = skip_blanks(text, at + word.size());
    if (after < text.size() && text[after] == next) return true;
  }
  return false;
}

/// The items of `text` between `from` and `to` at bracket depth zero: each
/// begins a line (the first, where it begins) at the column of the first,
/// with what begins an operation or an alias (`#a =`, `!t =`). Strings and
/// comments are skipped, brackets counted. Nothing when the text is not
/// balanced there, or holds file metadata (`{-#`): MLIR's parser reads it
/// whole then.
std::optional<std::vector<Start>> item_starts(std::string_view text, std::size_t from, std::size_t to,
                                              std::size_t line) {
  std::vector<Start> starts;
  int depth = 0;
  bool line_start = true;
  std::size_t line_begin = from == 0 ? 0 : text.rfind('\n', from - 1) + 1;  // npos + 1 is 0
  for (std::size_t i = from; i < to; ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      line_begin = i + 1;
      continue;
    }
    if (is_blank(c)) continue;
    if (line_start) {
      line_start = false;
      const std::size_t column = i - line_begin + 1;
      const bool begins = is_identifier_start(c) || c == '"' || c == '%' || c == '#' || c == '!';
      const bool comment = c == '/' && i + 1 < to && text[i + 1] == '/';
      if (depth == 0 && begins && (starts.empty() || column == starts.front().column)) {
        starts.push_back({i, line, column});
      } else if (starts.empty() && !comment) {
        return std::nullopt;  // text before the first item: what MLIR's parser makes of it is its to tell
      }
    }
    switch (c) {
      case '"': {
        const std::optional<std::size_t> end = string_end(text, i, to);
        if (!end) return std::nullopt;
        i = *end;
        break;
      }
      case '/':
        if (i + 1 < to && text[i + 1] == '/') i = line_end(text, i, to) - 1;
        break;
      case '#':
      case '!':
        // An alias defined where no item begins (inside a module's body, or
        // after an operation on its line): MLIR's parser tells what it is.
        if (depth == 0 && (starts.empty() || starts.back().offset != i) && alias_of(text.substr(i, to - i))) {
          return std::nullopt;
        }
        break;
      case '{':
        if (depth == 0 && text.substr(i, 3) == "{-#") return std::nullopt;
        [[fallthrough]];
      case '(':
      case '[':
        ++depth;
        break;
      case '}':
      case ')':
      case ']':
        if (--depth < 0) return std::nullopt;
        break;
      default:
        break;
    }
  }
  if (depth != 0) return std::nullopt;
  return starts;
}

bool starts_word(std::string_view text, std::string_view word) {
  return text.starts_with(word) && (text.size() == word.size() || !is_identifier(text[word.size()]));
}

bool is_module(std::string_view item) { return starts_word(item, "module") || starts_word(item, "builtin.module"); }

/// The offset of the `{` that opens the body of the module `item` begins at
/// (past `attributes {...}`), and of the `}` that closes it.
std::optional<std::pair<std::size_t, std::size_t>> module_body(std::string_view text, std::size_t begin,
                                                               std::size_t end) {
  std::optional<std::size_t> open;
  int depth = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::optional<std::size_t> closed = string_end(text, i, end);
      if (!closed) return std::nullopt;
      i = *closed;
      continue;
    }
    if (c == '/' && i + 1 < end && text[i + 1] == '/') {
      i = line_end(text, i, end);
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (depth == 0 && c == '{' && !open) {
        std::string_view before = text.substr(begin, i - begin);
        while (!before.empty() && is_blank(before.back())) before.remove_suffix(1);
        if (!before.ends_with("attributes")) open = i;  // else the attribute dictionary's
      }
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0 && open && c == '}') return std::pair{*open, i};
    }
  }
  return std::nullopt;
}

/// Calls `name(at, size)` for each name of an alias in `text`: `#x` or `!x`
/// outside strings, as MLIR's lexer reads a name.
template <class Name>
void for_each_alias_name(std::string_view text, Name&& name) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) i += text[i] == '\\' ? 1 : 0;
      continue;
    }
    if (const std::optional<std::size_t> end = prefixed_name_end(text, i)) {
      name(i, *end - i);
      i = *end - 1;
    }
  }
}

/// The names (`#a`, `!t`) a text refers to, as aliases may be.
void referred(std::string_view text, const std::unordered_map<std::string_view, std::size_t>& aliases,
              std::vector<std::size_t>& found) {
  for_each_alias_name(text, [&](std::size_t at, std::size_t size) {
    if (auto alias = aliases.find(text.substr(at, size)); alias != aliases.end()) found.push_back(alias->second);
  });
}

/// The dialects a text may load as MLIR's parser reads it: every
/// `name.` (an operation, a dialect's type, attribute or attribute name),
/// `!name<`, `#name<` and a string's first word (`"name.op"`, `"name"`)
/// outside comments, in strings too; not SSA values' (`%a.b`), symbols' or
/// blocks' names.
void dialects_named(std::string_view text, std::unordered_set<std::string_view>& names) {
  auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  bool in_string = false;  // whose words count too, but not a `//` in it
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
        continue;
      }
      if (c == '"' || c == '\n') {
        in_string = false;
        continue;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = line_end(text, i, text.size());
      continue;
    } else if (c == '"') {
      // A string's first word: a generic operation's name, `"dialect"`
      // alone included, or an attribute's.
      in_string = true;
      std::size_t end = i + 1;
      while (end < text.size() && word(text[end])) ++end;
      if (end > i + 1 && is_identifier_start(text[i + 1])) names.insert(text.substr(i + 1, end - i - 1));
      continue;
    }
    if (c != '.' && c != '<') continue;
    std::size_t begin = i;
    while (begin > 0 && word(text[begin - 1])) --begin;
    if (begin == i) continue;
    if (text[begin] >= '0' && text[begin] <= '9') {
      // A number, then a word: MLIR's lexer ends the number where its kind
      // says (`12abc.op` is `12`, then `abc.op`; `0xfftosa.x` is `0xff`,
      // then `tosa.x`): each word that may follow it counts.
      if (c == '.') {
        for (std::size_t at = begin + 1; at < i; ++at) {
          if (is_identifier_start(text[at])) names.insert(text.substr(at, i - at));
        }
      }
      continue;
    }
    const char before = begin > 0 ? text[begin - 1] : ' ';
    bool inside = before == '%' || before == '@' || before == '^' || before == '$';  // a value's, symbol's, block's name
    if (before == '.' || before == '-') {
      // Inside a word (`a.b.c`, `a-b.c`), unless after a number (`1.` is
      // one) or alone (`-`, `->`).
      const char earlier = begin >= 2 ? text[begin - 2] : ' ';
      inside = word(earlier) && !(earlier >= '0' && earlier <= '9');
    }
    if (inside || (c == '<' && before != '!' && before != '#')) continue;
    names.insert(text.substr(begin, i - begin));
  }
}

/// A span of the text: [begin, end), and where it begins.
struct Span {
  std::size_t begin;
  std::size_t end;
  Start start;
};

/// How a text splits: its aliases, its top-level operations, and, where the
/// module is written out, its body's braces.
struct Split {
  std::vector<Span> aliases;
  std::unordered_map<std::string_view, std::size_t> alias_names;
  std::vector<Span> operations;
  std::optional<std::pair<Start, Start>> body;  // the written module's `{` and `}`
};

Start start_at(std::string_view text, std::size_t offset, const Start& from) {
  const auto newlines = static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(from.offset),
                                                            text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  const std::size_t line_end = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  return {offset, from.line + newlines, line_end == std::string_view::npos ? offset + 1 : offset - line_end};
}

/// How `text` splits into top-level operations read apart, or nothing where
/// it does not: fewer than two operations, SSA values at the top, a module
/// beside other operations, file metadata, distinct attributes, resources,
/// or a layout the splitter does not follow. Each item ends where the next
/// begins.
std::optional<Split> split(std::string_view text) {
  // What one read of MLIR's parser numbers or names for the whole text: a
  // distinct attribute's id, a dialect resource's key.
  if (has_keyword_before(text, "distinct", '[') || has_keyword_before(text, "dense_resource", '<')) {
    return std::nullopt;
  }
  std::optional<std::vector<Start>> starts = item_starts(text, 0, text.size(), 1);
  if (!starts || starts->empty()) return std::nullopt;
  Split split;
  std::vector<Span> operations;
  for (std::size_t i = 0; i < starts->size(); ++i) {
    const Span item{(*starts)[i].offset, i + 1 < starts->size() ? (*starts)[i + 1].offset : text.size(), (*starts)[i]};
    if (const std::optional<std::string_view> alias = alias_of(text.substr(item.begin, item.end - item.begin))) {
      split.alias_names.emplace(*alias, split.aliases.size());
      split.aliases.push_back(item);
    } else {
      operations.push_back(item);
    }
  }
  if (operations.size() == 1 && is_module(text.substr(operations.front().begin))) {
    const Span& module = operations.front();
    const std::optional<std::pair<std::size_t, std::size_t>> body = module_body(text, module.begin, module.end);
    if (!body) return std::nullopt;
    const Start open = start_at(text, body->first, module.start);
    const Start close = start_at(text, body->second, open);
    const std::optional<std::vector<Start>> inner = item_starts(text, body->first + 1, body->second, open.line);
    if (!inner) return std::nullopt;
    for (std::size_t i = 0; i < inner->size(); ++i) {
      split.operations.push_back({(*inner)[i].offset, i + 1 < inner->size() ? (*inner)[i + 1].offset : body->second, (*inner)[i]});
    }
    split.body = std::pair{open, close};
  } else {
    for (const Span& operation : operations) {
      if (is_module(text.substr(operation.begin))) return std::nullopt;
    }
    split.operations = std::move(operations);
  }
  for (const Span& operation : split.operations) {
    const char c = text[operation.begin];
    if (c == '%' || c == '#' || c == '!') return std::nullopt;  // values across operations, or an alias in a module
  }
  if (split.operations.size() < 2) return std::nullopt;
  return split;
}

/// A share of the text read on a thread of its own, into `block`: its
/// operations' text, the aliases they use around it, at the lines and
/// columns where the whole text has them (so that the locations MLIR's
/// parser gives them are the whole text's).
struct Share {
  std::string buffer;
  std::size_t operations = 0;  // top-level operations the buffer holds
  std::unordered_set<std::string_view> dialects;
  ::mlir::Block block;
};

/// Pads `buffer` to where `start` is: to its line, then its column.
void pad_to(std::string& buffer, const Start& start) {
  while (!buffer.empty() && (buffer.back() == ' ' || buffer.back() == '\t')) buffer.pop_back();
  const auto lines = static_cast<std::size_t>(std::count(buffer.begin(), buffer.end(), '\n'));
  if (lines + 1 < start.line) buffer.append(start.line - 1 - lines, '\n');
  const std::size_t line_begin = buffer.rfind('\n') + 1;  // npos + 1 is 0
  const std::size_t column = buffer.size() - line_begin + 1;
  if (column < start.column) buffer.append(start.column - column, ' ');
}

/// The buffer of the operations [first, last] of `split`: the aliases they
/// use (and those use) that the whole text defines before them, in order,
/// then their text where it stands, then the aliases defined after them
/// (locations MLIR resolves at the end).
std::string share_buffer(std::string_view text, const Split& split, std::size_t first, std::size_t last) {
  const std::size_t begin = split.operations[first].begin;
  const std::size_t end = split.operations[last].end;
  std::vector<std::size_t> pending;
  referred(text.substr(begin, end - begin), split.alias_names, pending);
  std::vector<bool> used(split.aliases.size(), false);
  while (!pending.empty()) {
    const std::size_t alias = pending.back();
    pending.pop_back();
    if (used[alias]) continue;
    used[alias] = true;
    const Span& span = split.aliases[alias];
    referred(text.substr(span.begin, span.end - span.begin), split.alias_names, pending);
  }
  std::string buffer;
  auto append_alias = [&](const Span& span) {
    std::string_view definition = text.substr(span.begin, span.end - span.begin);
    while (!definition.empty() && is_blank(definition.back())) definition.remove_suffix(1);
    buffer.append(definition);
    buffer.push_back('\n');
  };
  for (std::size_t a = 0; a < split.aliases.size(); ++a) {
    if (used[a] && split.aliases[a].end <= begin) append_alias(split.aliases[a]);
  }
  pad_to(buffer, split.operations[first].start);
  buffer.append(text.substr(begin, end - begin));
  buffer.push_back('\n');
  for (std::size_t a = 0; a < split.aliases.size(); ++a) {
    if (used[a] && split.aliases[a].begin >= end) append_alias(split.aliases[a]);
  }
  return buffer;
}

/// MLIR's parser over the whole buffer, as mlir-opt reads its input, with
/// the context's threading off (uniquing without a lock).
::mlir::OwningOpRef<::mlir::Operation*> read_whole(const std::shared_ptr<llvm::SourceMgr>& sources,
                                                   const ::mlir::ParserConfig& config, bool implicit_module) {
  ::mlir::MLIRContext& context = *config.getContext();
  const bool threaded = context.isMultithreadingEnabled();
  context.disableMultithreading();
  ::mlir::OwningOpRef<::mlir::Operation*> read = ::mlir::parseSourceFileForTool(sources, config, implicit_module);
  context.enableMultithreading(threaded);
  return read;
}

/// The text read in shares on the context's threads, or nothing where it
/// cannot be (then MLIR's parser reads it whole, and reports what is wrong
/// with it as it does).
::mlir::OwningOpRef<::mlir::ModuleOp> read_in_shares(std::string_view text, llvm::StringRef name,
                                                     const ::mlir::ParserConfig& config) {
  ::mlir::MLIRContext& context = *config.getContext();
  std::optional<Split> layout = split(text);
  if (!layout) return nullptr;
  // Shares of about equal size, a few for each thread so that a slow one
  // does not hold up the rest; the written module's header is one more.
  const std::size_t wanted = std::min<std::size_t>(layout->operations.size(), 4 * context.getNumThreads());
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // first and last operation of each share
  const std::size_t total = layout->operations.back().end - layout->operations.front().begin;
  std::size_t first = 0;
  for (std::size_t i = 0; i < layout->operations.size(); ++i) {
    const std::size_t done = layout->operations[i].end - layout->operations.front().begin;
    if (i + 1 == layout->operations.size() || done * wanted >= total * (ranges.size() + 1)) {
      ranges.emplace_back(first, i);
      first = i + 1;
    }
  }
  std::vector<std::unique_ptr<Share>> shares;
  if (layout->body) {
    // The module alone: the text up to its body's `{`, then from its `}`
    // where the whole text has it; every alias with it.
    auto header = std::make_unique<Share>();
    const auto& [open, close] = *layout->body;
    header->buffer.append(text.substr(0, open.offset + 1));
    pad_to(header->buffer, close);
    header->buffer.append(text.substr(close.offset));
    header->operations = 1;
    shares.push_back(std::move(header));
  }
  else {
    // Every alias, where the whole text has it: those no share uses are
    // read too, and what is wrong with them told.
    auto aliases = std::make_unique<Share>();
    for (const Span& alias : layout->aliases) {
      pad_to(aliases->buffer, alias.start);
      aliases->buffer.append(text.substr(alias.begin, alias.end - alias.begin));
    }
    shares.push_back(std::move(aliases));
  }
  const std::size_t offset = shares.size();
  for (std::size_t i = 0; i < ranges.size(); ++i) shares.push_back(std::make_unique<Share>());
  // Each share's text, and the dialects it names, which are loaded before
  // any is read: a dialect loads only while no other thread uses the context.
  ::mlir::parallelFor(&context, std::size_t{0}, shares.size(), [&](std::size_t i) {
    Share& share = *shares[i];
    if (i >= offset) {
      const auto [first, last] = ranges[i - offset];
      share.buffer = share_buffer(text, *layout, first, last);
      share.operations = last - first + 1;
    }
    dialects_named(share.buffer, share.dialects);
  });
  std::unordered_set<std::string_view> dialects;
  for (const std::unique_ptr<Share>& share : shares) dialects.insert(share->dialects.begin(), share->dialects.end());
  for (std::string_view dialect : dialects) {
    const llvm::StringRef ref(dialect.data(), dialect.size());
    if (context.getDialectRegistry().getDialectAllocator(ref)) context.getOrLoadDialect(ref);
    // A resource a dialect's attribute names is declared once for each read
    // (the second read of `blob` makes `blob_1`): builtin's `dense_resource`
    // the split found, any other dialect's where the text names the dialect.
    ::mlir::Dialect* named = context.getLoadedDialect(ref);
    if (named != nullptr && ref != "builtin" &&
        named->getRegisteredInterface<::mlir::ResourceBlobManagerDialectInterface>() != nullptr) {
      return nullptr;
    }
  }
  const std::size_t loaded = context.getLoadedDialects().size();
  const ::mlir::ParserConfig parsing(&context, /*verifyAfterParse=*/false);
  const ::mlir::LogicalResult read = ::mlir::failableParallelForEach(&context, shares, [&](std::unique_ptr<Share>& share) {
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(share->buffer, name), llvm::SMLoc());
    if (::mlir::failed(::mlir::parseSourceFile(sources, &share->block, parsing))) return ::mlir::failure();
    return ::mlir::success(share->block.getOperations().size() == share->operations);
  });
  // A dialect loaded while the shares were read is one the scan missed: its
  // loading raced the other threads, and the text is read again whole.
  if (::mlir::failed(read) || context.getLoadedDialects().size() != loaded) return nullptr;
  ::mlir::OwningOpRef<::mlir::ModuleOp> module;
  if (layout->body) {
    ::mlir::Block& header = shares.front()->block;
    auto written = ::mlir::dyn_cast<::mlir::ModuleOp>(header.front());
    if (!written || !written.getBody()->empty()) return nullptr;
    written->remove();
    module = written;
  } else {
    module = ::mlir::ModuleOp::create(::mlir::FileLineColLoc::get(&context, name, 0, 0));
  }
  ::mlir::Block& body = *module->getBody();
  for (std::size_t i = offset; i < shares.size(); ++i) body.getOperations().splice(body.end(), shares[i]->block.getOperations());
  if (config.shouldVerifyAfterParse() && ::mlir::failed(::mlir::verify(*module))) return nullptr;
  return module;
}

}  // namespace

::mlir::OwningOpRef<::mlir::Operation*> read(const std::shared_ptr<llvm::SourceMgr>& sources,
                                           const ::mlir::ParserConfig& config, bool implicit_module) {
  ::mlir::MLIRContext& context = *config.getContext();
  const llvm::MemoryBuffer& buffer = *sources->getMemoryBuffer(sources->getMainFileID());
  if (implicit_module && context.isMultithreadingEnabled() && context.getNumThreads() > 1 &&
      !::mlir::isBytecode(buffer)) {
    // Whatever goes wrong is told by MLIR's parser reading the text whole
    // after: nothing of the attempt reaches the context's handlers.
    std::atomic<bool> diagnosed{false};
    ::mlir::OwningOpRef<::mlir::ModuleOp> module;
    {
      const ::mlir::ScopedDiagnosticHandler quiet(&context, [&](::mlir::Diagnostic&) {
        diagnosed = true;
        return ::mlir::success();
      });
      module = read_in_shares({buffer.getBufferStart(), buffer.getBufferSize()}, buffer.getBufferIdentifier(), config);
    }
    if (module && !diagnosed) return ::mlir::OwningOpRef<::mlir::Operation*>(module.release());
  }
  return read_whole(sources, config, implicit_module);
}

namespace {

bool is_definition(std::string_view line) { return line.starts_with('#') || line.starts_with('!'); }

constexpr std::uint32_t none = ~std::uint32_t{0};

/// `#loc12` as MLIR's printer names an alias: its name, `loc`, and its
/// number, 12 (the first of a name has none: 0; MLIR's alias names end in no
/// digit); nothing for a number MLIR does not write (`#loc0`, `#loc01`).
std::optional<std::pair<std::string_view, std::uint32_t>> numbered_name(std::string_view token) {
  std::size_t end = token.size();
  while (end > 1 && token[end - 1] >= '0' && token[end - 1] <= '9') --end;
  std::uint32_t number = 0;
  if (end < token.size() &&
      (token[end] == '0' || std::from_chars(token.data() + end, token.data() + token.size(), number).ec != std::errc())) {
    return std::nullopt;
  }
  return std::pair{token.substr(1, end - 1), number};
}

/// A module as MLIR's printer writes it at the top: the aliases it defines
/// above the module and, deferred, below it, each `TOKEN = DEFINITION` on a
/// line of its own, in the order MLIR's alias initializer sorts them; the
/// module's first and last lines, and the lines of its body between.
struct Printed {
  struct Alias {
    std::string_view definition;  // what follows ` = `
    std::string_view name;        // `loc` of `#loc12`: MLIR's alias names end in no digit
    std::uint32_t number;         // 12 of `#loc12`; none is 0
    bool type;                    // `!x`, not `#x`
    bool deferred;                // defined below the module
    bool leaf = true;             // names no alias of the module
    std::size_t hash = 0;         // a leaf's: of its identity
    const void* identity = nullptr;  // the attribute or type, where it is no location
    std::uint32_t symbol = none;  // in the merged aliases

    /// A location (`#loc3 = loc(...)`, without metadata): its text is its
    /// identity, as no two locations print alike.
    bool location() const {
      return !type && name == "loc" && definition.starts_with("loc(") && definition.find("fused<") == std::string_view::npos;
    }
  };
  std::vector<Alias> aliases;
  std::string_view header;  // `module attributes {...} {`
  std::string_view body;    // every line between, each with its newline
  std::string_view close;   // `}`, with the module's location
  /// Each name's aliases by their number.
  std::vector<std::pair<std::string_view, std::vector<std::uint32_t>>> names;

  /// The alias `token` (`#loc12`) names, or `none`.
  std::uint32_t find(std::string_view token) const {
    const std::optional<std::pair<std::string_view, std::uint32_t>> split = numbered_name(token);
    if (!split) return none;
    const auto& [name, number] = *split;
    for (const auto& [known, numbered] : names) {
      if (known != name) continue;
      if (number >= numbered.size() || numbered[number] == none) return none;
      const std::uint32_t found = numbered[number];
      return aliases[found].type == (token.front() == '!') ? found : none;
    }
    return none;
  }
};

/// `text` read as `Printed`, or nothing where it is not that shape (file
/// metadata below the module, a line of the body that a dialect's printer
/// began at its first column).
std::optional<Printed> read_printed(std::string_view text) {
  Printed printed;
  auto definition = [&](std::string_view line, bool deferred) {
    std::size_t end = 1;
    while (end < line.size() && is_identifier(line[end]) && line[end] != '.') ++end;
    if (end == 1 || !is_identifier_start(line[1]) || line.substr(end, 3) != " = " || line.size() == end + 3) return false;
    const std::optional<std::pair<std::string_view, std::uint32_t>> split = numbered_name(line.substr(0, end));
    if (!split) return false;
    printed.aliases.push_back({.definition = line.substr(end + 3), .name = split->first, .number = split->second,
                               .type = line.front() == '!', .deferred = deferred});
    return true;
  };
  std::size_t begin = 0;  // of the first line not read
  for (;;) {
    const std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    if (!is_definition(line)) {
      printed.header = line;
      break;
    }
    if (!definition(line, false)) return std::nullopt;
  }
  std::size_t end = text.size();  // of the last line not read, with its newline
  if (!text.ends_with('\n')) return std::nullopt;
  const std::size_t deferred = printed.aliases.size();
  for (;;) {
    if (end < begin + 2) return std::nullopt;
    const std::size_t line_begin = text.rfind('\n', end - 2) + 1;  // npos + 1 is 0
    if (line_begin < begin) return std::nullopt;
    const std::string_view line = text.substr(line_begin, end - 1 - line_begin);
    end = line_begin;
    if (!is_definition(line)) {
      printed.close = line;
      break;
    }
    if (!definition(line, true)) return std::nullopt;
  }
  std::reverse(printed.aliases.begin() + static_cast<std::ptrdiff_t>(deferred), printed.aliases.end());
  if (!printed.header.starts_with("module") || !printed.header.ends_with('{') || !printed.close.starts_with('}')) {
    return std::nullopt;
  }
  printed.body = text.substr(begin, end - begin);
  for (std::size_t at = 0; at < printed.body.size();) {
    if (printed.body[at] != ' ' && printed.body[at] != '\n') return std::nullopt;
    const std::size_t line_end = printed.body.find('\n', at);
    if (line_end == std::string_view::npos) return std::nullopt;
    at = line_end + 1;
  }
  for (std::uint32_t i = 0; i < printed.aliases.size(); ++i) {
    const Printed::Alias& alias = printed.aliases[i];
    auto named = std::ranges::find(printed.names, alias.name, &std::pair<std::string_view, std::vector<std::uint32_t>>::first);
    if (named == printed.names.end()) named = printed.names.insert(named, {alias.name, {}});
    if (named->second.size() <= alias.number) named->second.resize(alias.number + 1, none);
    if (named->second[alias.number] != none) return std::nullopt;
    named->second[alias.number] = i;
  }
  for (Printed::Alias& alias : printed.aliases) {
    for_each_alias_name(alias.definition, [&](std::size_t at, std::size_t size) {
      alias.leaf = alias.leaf && printed.find(alias.definition.substr(at, size)) == none;
    });
    if (alias.leaf && alias.location()) alias.hash = llvm::hash_value(llvm::StringRef(alias.definition));
  }
  return printed;
}

/// Finds what each alias of `printed` that is no location names among the
/// attributes and types of `op` that a dialect names (asked as MLIR's alias
/// initializer asks, each printed alone as MLIR defines it): the one
/// printed as its definition. False where there is not one such (two
/// print alike, or one hides from MLIR's walk of sub-elements), where one
/// is mutable (MLIR writes it without the aliases in it), and where `op`
/// has an opaque location (which prints as the location it falls back to).
bool identify(Printed& printed, ::mlir::Operation* op, const ::mlir::OpPrintingFlags& flags,
              const ::mlir::DialectInterfaceCollection<::mlir::OpAsmDialectInterface>& interfaces) {
  const bool locations = flags.shouldPrintDebugInfo();
  const bool others = !std::ranges::all_of(printed.aliases, &Printed::Alias::location);
  if (!locations && !others) return true;
  auto opaque = [](::mlir::Location location) {
    return location->walk([](::mlir::Location inner) {
      return ::mlir::isa<::mlir::OpaqueLoc>(inner) ? ::mlir::WalkResult::interrupt() : ::mlir::WalkResult::advance();
    }).wasInterrupted();
  };
  std::unordered_map<std::string, std::pair<const void*, std::size_t>> named;  // text: symbol, how many
  llvm::DenseSet<const void*> seen;
  bool mutable_named = false;
  std::string unused;
  llvm::raw_string_ostream alias_name(unused);
  ::mlir::AsmState state(op->getContext(), flags);
  auto record = [&](auto symbol, bool is_mutable) {
    if (!seen.insert(symbol.getAsOpaquePointer()).second) return;
    const bool aliased = llvm::any_of(interfaces, [&](const ::mlir::OpAsmDialectInterface& interface) {
      return interface.getAlias(symbol, alias_name) != ::mlir::OpAsmDialectInterface::AliasResult::NoAlias;
    });
    if (!aliased) return;
    mutable_named = mutable_named || is_mutable;
    std::string text;
    llvm::raw_string_ostream os(text);
    symbol.print(os, state);
    os.flush();
    auto& [symbol_of_text, count] = named[std::move(text)];
    symbol_of_text = symbol.getAsOpaquePointer();
    ++count;
  };
  ::mlir::AttrTypeWalker walker;
  walker.addWalk([&](::mlir::Attribute attribute) { record(attribute, attribute.hasTrait<::mlir::AttributeTrait::IsMutable>()); });
  walker.addWalk([&](::mlir::Type type) { record(type, type.hasTrait<::mlir::TypeTrait::IsMutable>()); });
  // One walk: the opaque locations where locations print, the attributes
  // and types where an alias is no location.
  const ::mlir::WalkResult walked = op->walk([&](::mlir::Operation* nested) {
    bool found = locations && opaque(nested->getLoc());
    if (others) {
      for (::mlir::Type type : nested->getResultTypes()) walker.walk(type);
      for (::mlir::NamedAttribute attribute : nested->getAttrs()) walker.walk(attribute.getValue());
      if (const std::optional<::mlir::Attribute> properties = nested->getPropertiesAsAttribute(); properties && *properties) {
        walker.walk(*properties);
      }
    }
    for (::mlir::Region& region : nested->getRegions()) {
      for (::mlir::Block& block : region) {
        for (::mlir::BlockArgument argument : block.getArguments()) {
          found = found || (locations && opaque(argument.getLoc()));
          if (others) walker.walk(argument.getType());
        }
      }
    }
    return found ? ::mlir::WalkResult::interrupt() : ::mlir::WalkResult::advance();
  });
  if (walked.wasInterrupted()) return false;
  if (mutable_named) return false;
  for (Printed::Alias& alias : printed.aliases) {
    if (alias.location()) continue;
    const auto found = named.find(std::string(alias.definition));
    if (!alias.leaf || found == named.end() || found->second.second != 1) return false;
    alias.identity = found->second.first;
    alias.hash = llvm::hash_value(alias.identity);
  }
  return true;
}

/// The aliases of modules printed apart, as MLIR's printer names them when
/// it prints them as one: each alias is one symbol (a location by its text,
/// with the locations it names as symbols; anything else by the attribute or
/// type `identify` found), ordered as MLIR's alias initializer orders them
/// (by depth, types first, by name, then in the order the printer meets
/// them: the modules' order, and each module's own order among those alike),
/// numbered by name in that order, and deferred where every module that
/// names it defers it. A depth is known from the text only where an alias
/// names none (one), or is a location that names locations only (one more
/// than theirs): anything else, or two aliases alike in one module, makes
/// `add` fail.
class MergedAliases {
 public:
  explicit MergedAliases(std::vector<std::optional<Printed>>& modules) : modules_(modules) {
    std::size_t aliases = 0;
    for (const std::optional<Printed>& printed : modules) aliases += printed->aliases.size();
    symbols_.reserve(aliases);
    by_hash_.reserve(static_cast<unsigned>(aliases));
  }

  bool add(std::uint32_t module) {
    Printed& printed = *modules_[module];
    for (std::uint32_t i = 0; i < printed.aliases.size(); ++i) {
      if (symbol_of(module, i, printed.aliases.size()) == none) return false;
    }
    return true;
  }

  /// Numbers the symbols as MLIR's printer does.
  void number() {
    for (auto& [key, members] : groups_) {
      std::ranges::sort(members, [this](std::uint32_t a, std::uint32_t b) {
        return std::pair(symbols_[a].module, alias(a).number) < std::pair(symbols_[b].module, alias(b).number);
      });
    }
    std::ranges::sort(groups_, [](const auto& a, const auto& b) {
      const auto& [x, y] = std::pair(a.first, b.first);
      return std::tie(x.depth, y.type, x.name) < std::tie(y.depth, x.type, y.name);
    });
    std::vector<std::pair<std::string_view, std::uint32_t>> counts;
    for (auto& [key, members] : groups_) {
      auto count = std::ranges::find(counts, key.name, &std::pair<std::string_view, std::uint32_t>::first);
      if (count == counts.end()) count = counts.insert(count, {key.name, 0});
      for (std::uint32_t symbol : members) symbols_[symbol].number = count->second++;
    }
  }

  bool empty() const { return symbols_.empty(); }

  /// Appends `text` of `module` to `out`, each of its aliases' names as the
  /// merged symbol's.
  void rename_into(std::string& out, std::string_view text, std::uint32_t module) const {
    const Printed& printed = *modules_[module];
    std::size_t copied = 0;
    for_each_alias_name(text, [&](std::size_t at, std::size_t size) {
      const std::uint32_t found = printed.find(text.substr(at, size));
      if (found == none) return;
      out.append(text.substr(copied, at - copied));
      token_into(out, printed.aliases[found].symbol);
      copied = at + size;
    });
    out.append(text.substr(copied));
  }

  /// The definitions, deferred or not, in MLIR's order, each on a line.
  void definitions_into(std::string& out, bool deferred) const {
    for (const auto& [key, members] : groups_) {
      for (std::uint32_t symbol : members) {
        if (symbols_[symbol].deferred != deferred) continue;
        token_into(out, symbol);
        out.append(" = ");
        if (alias(symbol).leaf) {
          out.append(alias(symbol).definition);
        } else {
          rename_into(out, alias(symbol).definition, symbols_[symbol].module);
        }
        out.push_back('\n');
      }
    }
  }

 private:
  struct Symbol {
    std::uint32_t module;  // the first that names it, and its alias there
    std::uint32_t local;
    std::uint32_t depth;
    bool deferred;
    std::string_view key;  // the definition, with the symbols it names
    std::uint32_t seen_in;  // the last module that named it
    std::uint32_t number = 0;
  };
  struct Group {
    std::uint32_t depth;
    bool type;
    std::string_view name;
    bool operator==(const Group&) const = default;
  };

  const Printed::Alias& alias(std::uint32_t symbol) const {
    return modules_[symbols_[symbol].module]->aliases[symbols_[symbol].local];
  }

  void token_into(std::string& out, std::uint32_t symbol) const {
    const Printed::Alias& first = alias(symbol);
    out.push_back(first.type ? '!' : '#');
    out.append(first.name);
    if (symbols_[symbol].number > 0) out.append(std::to_string(symbols_[symbol].number));
  }

  /// The symbol of alias `i` of `module`, after those its definition names
  /// (which have a lower depth); `none` where its depth is not known.
  std::uint32_t symbol_of(std::uint32_t module, std::uint32_t i, std::size_t depth_left) {
    Printed& printed = *modules_[module];
    Printed::Alias& local = printed.aliases[i];
    if (local.symbol != none) return local.symbol;
    std::uint32_t depth = 1;
    std::string_view key = local.location() ? local.definition : std::string_view();
    if (!local.leaf) {
      if (!local.location() || depth_left == 0) return none;
      std::string& made = keys_.emplace_back();
      std::size_t copied = 0;
      bool known = true;
      for_each_alias_name(local.definition, [&](std::size_t at, std::size_t size) {
        const std::uint32_t found = printed.find(local.definition.substr(at, size));
        if (found == none || !known) return;
        const std::uint32_t inner = symbol_of(module, found, depth_left - 1);
        if (inner == none) {
          known = false;
          return;
        }
        depth = std::max(depth, symbols_[inner].depth + 1);
        made.append(local.definition.substr(copied, at - copied));
        made += '\x01' + std::to_string(inner) + '\x02';
        copied = at + size;
      });
      if (!known) return none;
      made.append(local.definition.substr(copied));
      key = made;
    }
    const Group group{.depth = depth, .type = local.type, .name = local.name};
    std::uint64_t hash = local.leaf ? local.hash : static_cast<std::size_t>(llvm::hash_value(llvm::StringRef(key)));
    hash = std::min(hash, ~std::uint64_t{0} - 2);  // not the map's empty or erased key
    const auto [found, made] = by_hash_.try_emplace(hash, static_cast<std::uint32_t>(symbols_.size()));
    if (made) {
      auto members = std::ranges::find(groups_, group, &std::pair<Group, std::vector<std::uint32_t>>::first);
      if (members == groups_.end()) members = groups_.insert(members, {group, {}});
      members->second.push_back(found->second);
      symbols_.push_back(Symbol{.module = module, .local = i, .depth = depth, .deferred = local.deferred, .key = key,
                                .seen_in = module});
    } else {
      Symbol& symbol = symbols_[found->second];
      const Printed::Alias& first = alias(found->second);
      // A hash alike for another alias, or two aliases alike in one module.
      if (symbol.key != key || first.identity != local.identity || symbol.depth != depth || first.type != local.type ||
          first.name != local.name || symbol.seen_in == module) {
        return none;
      }
      symbol.seen_in = module;
      symbol.deferred = symbol.deferred && local.deferred;
    }
    local.symbol = found->second;
    return local.symbol;
  }

  std::vector<std::optional<Printed>>& modules_;
  std::vector<Symbol> symbols_;
  llvm::DenseMap<std::uint64_t, std::uint32_t> by_hash_;
  std::deque<std::string> keys_;  // of the symbols that name others
  std::vector<std::pair<Group, std::vector<std::uint32_t>>> groups_;
};

/// Puts a module's body back in order, from the modules its operations were
/// lent to while they printed.
class Lent {
 public:
  explicit Lent(::mlir::Block& body) : body_(body) {}
  Lent(const Lent&) = delete;
  Lent& operator=(const Lent&) = delete;
  ~Lent() {
    for (::mlir::OwningOpRef<::mlir::ModuleOp>& holder : holders) {
      body_.getOperations().splice(body_.end(), holder->getBody()->getOperations());
    }
  }
  std::vector<::mlir::OwningOpRef<::mlir::ModuleOp>> holders;

 private:
  ::mlir::Block& body_;
};

/// Writes the module to `os` with each operation of its body printed on the
/// context's threads, in a module of its own that MLIR's printer writes
/// whole (its aliases chosen by MLIR's own alias initializer), their aliases
/// named as MLIR names them in the whole; or writes nothing and returns false
/// where that would not be what MLIR's printer writes for the whole.
bool write_in_shares(::mlir::ModuleOp module, llvm::raw_ostream& os, const ::mlir::OpPrintingFlags& flags,
                     ::mlir::FallbackAsmResourceMap* resources) {
  ::mlir::MLIRContext& context = *module->getContext();
  if (!context.isMultithreadingEnabled() || context.getNumThreads() < 2 || module->getParentOp() != nullptr) return false;
  if (flags.shouldPrintGenericOpForm() || flags.shouldPrintDebugInfoPrettyForm() || flags.shouldPrintValueUsers() || flags.shouldUseLocalScope() ||
      flags.shouldSkipRegions() || flags.shouldPrintUniqueSSAIDs()) {
    return false;
  }
  if (resources != nullptr && !resources->getPrinters().empty()) return false;
  ::mlir::Block& body = *module.getBody();
  if (body.getOperations().size() < 2 || body.getNumArguments() != 0) return false;
  for (::mlir::Operation& op : body) {
    if (op.getNumResults() != 0) return false;
  }
  // The whole is printed in the generic form when it does not verify.
  if (!flags.shouldAssumeVerified() && ::mlir::failed(::mlir::verify(module))) return false;
  const ::mlir::OpPrintingFlags verified = ::mlir::OpPrintingFlags(flags).assumeVerified();
  // The module around them, printed first with no body (its header, then
  // its `}`), and each operation lent to a module of its own while it
  // prints, put back in its place whatever happens.
  Lent lent(body);
  lent.holders.push_back(::mlir::cast<::mlir::ModuleOp>(module->cloneWithoutRegions()));
  lent.holders.front()->getRegion().emplaceBlock();
  while (!body.empty()) {
    ::mlir::OwningOpRef<::mlir::ModuleOp> holder = ::mlir::ModuleOp::create(module.getLoc());
    holder->getBody()->getOperations().splice(holder->getBody()->end(), body.getOperations(), body.begin());
    lent.holders.push_back(std::move(holder));
  }
  const ::mlir::DialectInterfaceCollection<::mlir::OpAsmDialectInterface> interfaces(&context);
  std::vector<std::string> texts(lent.holders.size());
  std::vector<std::optional<Printed>> printed(texts.size());
  if (::mlir::failed(::mlir::failableParallelForEachN(&context, 0, texts.size(), [&](std::size_t i) {
        llvm::raw_string_ostream os(texts[i]);
        os.SetBufferSize(1 << 16);
        ::mlir::AsmState state(lent.holders[i].get(), verified);
        lent.holders[i]->print(os, state);
        os.flush();
        // A distinct attribute is numbered in the order its printer meets it.
        if (texts[i].find("distinct[") != std::string::npos) return ::mlir::failure();
        printed[i] = read_printed(texts[i]);
        return ::mlir::success(printed[i] && identify(*printed[i], lent.holders[i].get(), verified, interfaces));
      }))) {
    return false;
  }
  MergedAliases aliases(printed);
  for (std::uint32_t i = 0; i < printed.size(); ++i) {
    if (!aliases.add(i)) return false;
  }
  aliases.number();
  // Each body with its aliases renamed, on the threads.
  std::vector<std::string> bodies;
  if (!aliases.empty()) {
    bodies.resize(printed.size());
    ::mlir::parallelFor(&context, 1, bodies.size(), [&](std::size_t i) {
      bodies[i].reserve(printed[i]->body.size());
      aliases.rename_into(bodies[i], printed[i]->body, static_cast<std::uint32_t>(i));
    });
  }
  const Printed& around = *printed.front();
  std::string piece;
  aliases.definitions_into(piece, /*deferred=*/false);
  aliases.rename_into(piece, around.header, 0);
  piece.push_back('\n');
  os << piece;
  for (std::size_t i = 1; i < printed.size(); ++i) os << (bodies.empty() ? printed[i]->body : bodies[i]);
  piece.clear();
  aliases.rename_into(piece, around.close, 0);
  piece.push_back('\n');
  aliases.definitions_into(piece, /*deferred=*/true);
  os << piece;
  return true;
}

}  // namespace

void write(::mlir::Operation* op, llvm::raw_ostream& os, const ::mlir::OpPrintingFlags& flags,
           ::mlir::FallbackAsmResourceMap* resources) {
  if (auto module = ::mlir::dyn_cast<::mlir::ModuleOp>(op)) {
    if (write_in_shares(module, os, flags, resources)) return;
  }
  ::mlir::AsmState state(op, flags, /*locationMap=*/nullptr, resources);
  op->print(os, state);
}

}  // namespace passline::mlir
