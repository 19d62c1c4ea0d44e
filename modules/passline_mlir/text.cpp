// passline.mlir's reading and writing on the context's threads: MLIR's text
// read a share of the module's top-level operations on each thread, with
// MLIR's own parser, into one context and one module, and a module's body
// printed an operation on each, with MLIR's own printer; the same bytes as
// MLIR's parser and printer give on one thread.
module;

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/Bytecode/BytecodeReader.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
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

/// Where the string that opens at `i` closes (its quote), or nothing where it
/// does not before `to` or its line's end (MLIR's strings span no line).
std::optional<std::size_t> string_end(std::string_view text, std::size_t i, std::size_t to) {
  for (++i; i < to && text[i] != '"'; ++i) {
    if (text[i] == '\n') return std::nullopt;
    if (text[i] == '\\') ++i;
  }
  if (i >= to) return std::nullopt;
  return i;
}

/// Where the line of `i` ends (its newline, or `to`): a comment's end.
std::size_t line_end(std::string_view text, std::size_t i, std::size_t to) {
  return std::min(text.find('\n', i), to);
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
    if (c == ' ' || c == '\t' || c == '\r') continue;
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

/// The alias an item defines (`#map`, `!type`), or nothing.
std::optional<std::string_view> alias_of(std::string_view item) {
  if (item.size() < 2 || (item[0] != '#' && item[0] != '!') || !is_identifier_start(item[1])) return std::nullopt;
  std::size_t end = 1;
  while (end < item.size() && is_identifier(item[end])) ++end;
  std::size_t next = end;
  while (next < item.size() && (item[next] == ' ' || item[next] == '\t')) ++next;
  if (next >= item.size() || item[next] != '=') return std::nullopt;
  return item.substr(0, end);
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
        while (!before.empty() && std::isspace(static_cast<unsigned char>(before.back())) != 0) before.remove_suffix(1);
        if (!before.ends_with("attributes")) open = i;  // else the attribute dictionary's
      }
      ++depth;
    } else if (c == '}' || c == ')' || c == ']') {
      if (--depth == 0 && open && c == '}') return std::pair{*open, i};
    }
  }
  return std::nullopt;
}

/// The names (`#a`, `!t`) a text refers to, as aliases may be.
void referred(std::string_view text, const std::unordered_map<std::string_view, std::size_t>& aliases,
              std::vector<std::size_t>& found) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if ((text[i] != '#' && text[i] != '!') || !is_identifier_start(text[i + 1])) continue;
    std::size_t end = i + 1;
    while (end < text.size() && is_identifier(text[end])) ++end;
    if (auto at = aliases.find(text.substr(i, end - i)); at != aliases.end()) found.push_back(at->second);
    i = end - 1;
  }
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
  if (text.find("distinct[") != std::string_view::npos || text.find("dense_resource<") != std::string_view::npos) {
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
    while (!definition.empty() && std::isspace(static_cast<unsigned char>(definition.back())) != 0) {
      definition.remove_suffix(1);
    }
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

/// MLIR's text of a module that holds nothing MLIR writes outside it (an
/// alias defined above it, a deferred location alias or file metadata below
/// it): where the module's `{` ends its first line and its `}` begins its
/// last, or nothing.
std::optional<std::pair<std::size_t, std::size_t>> module_braces(std::string_view text) {
  const std::size_t open = text.find('\n');
  const std::size_t close = text.rfind('}');
  if (!(text.starts_with("module ") || text.starts_with("module{")) || open == std::string_view::npos ||
      text[open - 1] != '{' || close == std::string_view::npos || close <= open || text[close - 1] != '\n' ||
      text.find_first_not_of(" \n", close + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{open, close};
}

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

/// The module printed with each operation of its body printed on the
/// context's threads, in a module of its own that MLIR's printer writes
/// whole (its aliases chosen by MLIR's own alias initializer), or nothing
/// where that would not be what MLIR's printer writes for the whole.
std::optional<std::string> write_in_shares(::mlir::ModuleOp module, const ::mlir::OpPrintingFlags& flags,
                                           ::mlir::FallbackAsmResourceMap* resources) {
  ::mlir::MLIRContext& context = *module->getContext();
  if (!context.isMultithreadingEnabled() || context.getNumThreads() < 2 || module->getParentOp() != nullptr) return std::nullopt;
  if (flags.shouldPrintGenericOpForm() || flags.shouldPrintDebugInfo() || flags.shouldUseLocalScope() ||
      flags.shouldSkipRegions() || flags.shouldPrintUniqueSSAIDs()) {
    return std::nullopt;
  }
  if (resources != nullptr && !resources->getPrinters().empty()) return std::nullopt;
  ::mlir::Block& body = *module.getBody();
  if (body.getOperations().size() < 2 || body.getNumArguments() != 0) return std::nullopt;
  for (::mlir::Operation& op : body) {
    if (op.getNumResults() != 0) return std::nullopt;
  }
  // The whole is printed in the generic form when it does not verify.
  if (!flags.shouldAssumeVerified() && ::mlir::failed(::mlir::verify(module))) return std::nullopt;
  const ::mlir::OpPrintingFlags verified = ::mlir::OpPrintingFlags(flags).assumeVerified();
  // The module around them: printed with no body (`module attributes {...} {`
  // then `}`), the body's operations written in between.
  std::string around;
  {
    llvm::raw_string_ostream os(around);
    ::mlir::OwningOpRef<::mlir::Operation*> alone = module->cloneWithoutRegions();
    ::mlir::AsmState state(alone.get(), verified);
    alone->print(os, state);
  }
  const std::optional<std::pair<std::size_t, std::size_t>> braces = module_braces(around);
  if (!braces) return std::nullopt;
  // Each operation lent to a module of its own while it prints, and put
  // back in its place whatever happens.
  Lent lent(body);
  lent.holders.reserve(body.getOperations().size());
  while (!body.empty()) {
    ::mlir::OwningOpRef<::mlir::ModuleOp> holder = ::mlir::ModuleOp::create(module.getLoc());
    holder->getBody()->getOperations().splice(holder->getBody()->end(), body.getOperations(), body.begin());
    lent.holders.push_back(std::move(holder));
  }
  std::vector<std::string> printed(lent.holders.size());
  const ::mlir::LogicalResult wrote = ::mlir::failableParallelForEachN(&context, 0, printed.size(), [&](std::size_t i) {
    llvm::raw_string_ostream os(printed[i]);
    ::mlir::AsmState state(lent.holders[i].get(), verified);
    lent.holders[i]->print(os, state);
    os.flush();
    const std::optional<std::pair<std::size_t, std::size_t>> inner = module_braces(printed[i]);
    if (!inner) return ::mlir::failure();
    printed[i].erase(inner->second);
    printed[i].erase(0, inner->first + 1);
    return ::mlir::success();
  });
  if (::mlir::failed(wrote)) return std::nullopt;
  std::size_t size = around.size();
  for (const std::string& text : printed) size += text.size();
  std::string out;
  out.reserve(size);
  out.append(around, 0, braces->second);
  for (const std::string& text : printed) out.append(text);
  out.append(around, braces->second, std::string::npos);
  return out;
}

}  // namespace

void write(::mlir::Operation* op, llvm::raw_ostream& os, const ::mlir::OpPrintingFlags& flags,
           ::mlir::FallbackAsmResourceMap* resources) {
  if (auto module = ::mlir::dyn_cast<::mlir::ModuleOp>(op)) {
    if (const std::optional<std::string> text = write_in_shares(module, flags, resources)) {
      os << *text;
      return;
    }
  }
  ::mlir::AsmState state(op, flags, /*locationMap=*/nullptr, resources);
  op->print(os, state);
}

}  // namespace passline::mlir
