// The text format of the reference IR: parser and printer (grammar in docs/ir.md).
//
// The parser is a hand-written recursive descent over a small lexer. Chains of
// `let`s, the common shape of large functions, are parsed in a loop, never by
// recursion, so a function of a million lets parses in constant stack; other
// nesting is limited to a depth that no program needs, and exceeding it is an
// error like any other. Every error is an IRError at the offending token.
// The printer writes one `let` per line and renames a variable only when its
// name is already taken in the function, so print(parse(text)) is a fixed point.
//
// This unit declares them; parse.cpp holds the lexer and the parser, and
// print.cpp the printer, compiled once in the library.
module;
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
export module passline.ir:text;
import :types;
import :functions;

namespace passline::ir::detail {

/// How deep the parser recurses: a nesting of max_nesting as the printer
/// writes it takes up to two levels a step (an operand, and the parentheses
/// around a block in operand position).
constexpr std::size_t max_recursion = 2 * max_nesting + 2;

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Parses a module; `name` is the file name that error messages show.
/// Throws IRError at the first malformed spot.
/// With `threads` > 1, the functions of a large module are parsed on that
/// many threads: the same module, and the same error, as on one.
Module parse(std::string text, std::string name = "<input>", std::size_t threads = 1);

/// Parses a type as the text format writes it (`i64`, `(i64, bool)`,
/// `fn(i64) -> i64`); throws IRError, in a source named `name`, if it is not one.
Type parse_type(std::string text, std::string name = "<type>");

/// Parses the file at `path` (mapped, not read: see Source::open); `name` is
/// the file name that error messages show. Throws std::system_error when the
/// file cannot be read, and IRError at the first malformed spot.
Module parse_file(const std::string& path, std::string name, std::size_t threads = 1);

/// One function in the text format.
std::string print(const Function& fn);

/// Writes a module in the text format to `write`, a chunk at a time, so that
/// a large module is never held as one string. With `threads` > 1, batches
/// of functions are printed on that many threads into buffers of their own,
/// written in order as they are done: the same bytes as on one thread.
void print_to(const Module& module, const std::function<void(std::string_view)>& write, std::size_t threads = 1);

/// A module in the text format in `out`, which it replaces, reusing its room.
void print(const Module& module, std::string& out);

/// A module in the text format, functions separated by a blank line.
std::string print(const Module& module);

}  // namespace passline::ir
