// passline.support: what the library, its standard instruments, the
// reference IR and the driver share, and no user needs. Not part of the
// API: `import passline;` does not export it, and it may change in any
// release.
//
// Text from the input as messages quote it (`printable`, `caret_lines`,
// `first_character`), "did you mean" suggestions, POSIX shell words (a
// reproducer's command line), unified diffs (libgit2's, in diff.inc), files
// written whole without changing what their target is (`OutputFile`), and
// loops on several threads with the error of the lowest index
// (`parallel_for`). Only `parallel_for` is a template; everything else is
// defined in this module's implementation units, which a project that
// imports passline never compiles.
module;
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
export module passline.support;

// The helpers of the exported constexpr functions below.
namespace passline::support::detail {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
constexpr bool same_letters(std::string_view text, std::string_view word) {
  if (text.size() != word.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (lower(text[i]) != word[i]) return false;
  }
  return true;
}

}  // namespace passline::support::detail

export namespace passline::support {

// -- Messages (message.inc, suggest.inc) --------------------------------------

/// `text` as a message quotes it: printable characters (valid UTF-8
/// included) as they are, a character that shows nothing or reorders the
/// text (a zero-width space, a bidirectional control) as `\u{NNNN}`, any
/// other byte as `\xNN`, and no more than `limit` characters of it, with
/// `...` for the rest.
std::string printable(std::string_view text, std::size_t limit = 40);

/// The first character of `text`: one byte, or a valid UTF-8 sequence.
std::string_view first_character(std::string_view text);

/// A line of input and, under it, a caret at `column` (from 1) marking
/// `width` characters: `^` or `^~~~`. A long line is shown as a window of
/// about `limit` characters around the caret, `...` where it is cut;
/// control bytes show as `?`, so that the caret stays under its character.
std::string caret_lines(std::string_view line, std::size_t column, std::size_t width = 1, std::size_t limit = 100);

/// For messages about an unknown name: " (did you mean 'A'?)", " (did you
/// mean 'A' or 'B'?)", or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string_view>& known);

/// No suggestion: `known` is too far from the name.
inline constexpr std::size_t too_far = static_cast<std::size_t>(-1);

/// How close `known` is to `name`, as suggestions rank it (`did_you_mean`,
/// and pipeline text at compile time): the edit distance, case-insensitive,
/// when it is a few typos (at most max(2, size / 3)); that limit when `name`
/// is `known` cut short (3 characters at least); `too_far` otherwise.
constexpr std::size_t suggestion_distance(std::string_view name, std::string_view known) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  auto same = [&](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::ranges::equal(a, b, {}, lower, lower);
  };
  if (name.size() >= 3 && known.size() > name.size() && same(name, known.substr(0, name.size()))) return limit;
  if ((name.size() > known.size() ? name.size() - known.size() : known.size() - name.size()) > limit) return too_far;
  std::vector<std::size_t> row;  // built by push_back: libstdc++ 12 cannot value-initialize it in a constant
  for (std::size_t j = 0; j <= known.size(); ++j) row.push_back(j);
  for (std::size_t i = 1; i <= name.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= known.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (lower(name[i - 1]) == lower(known[j - 1]) ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[known.size()] <= limit ? row[known.size()] : too_far;
}

// -- Values -------------------------------------------------------------------

/// Whether `text` reads whole as an int64_t by `std::from_chars`.
constexpr bool reads_as_int(std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty()) return false;
  const std::uint64_t limit = negative ? 9'223'372'036'854'775'808ULL : 9'223'372'036'854'775'807ULL;
  std::uint64_t n = 0;
  for (const char c : text) {
    if (!detail::is_digit(c)) return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (n > (limit - digit) / 10) return false;
    n = n * 10 + digit;
  }
  return true;
}

/// Whether `text` reads whole as a double by `std::from_chars` (its general
/// format: a decimal with an exponent or not, `inf`, `infinity`, `nan`,
/// `nan(chars)`), within range: not so large it rounds to infinity, nor so
/// small, and not zero, that it rounds to zero. The range is computed in
/// long double, exact but for a text whose first 19 digits tie a limit.
constexpr bool reads_as_float(std::string_view text) {
  if (!text.empty() && text.front() == '-') text.remove_prefix(1);
  if (detail::same_letters(text, "inf") || detail::same_letters(text, "infinity") || detail::same_letters(text, "nan")) return true;
  if (text.size() >= 5 && detail::same_letters(text.substr(0, 4), "nan(") && text.back() == ')') {
    for (const char c : text.substr(4, text.size() - 5)) {
      if (!detail::is_digit(c) && !(detail::lower(c) >= 'a' && detail::lower(c) <= 'z') && c != '_') return false;
    }
    return true;
  }
  std::uint64_t mantissa = 0;
  int exponent = 0;  // of ten, after the mantissa's last digit kept
  std::size_t digits = 0;
  std::size_t kept = 0;
  std::size_t i = 0;
  const auto digit_run = [&](bool fraction) {
    for (; i < text.size() && detail::is_digit(text[i]); ++i, ++digits) {
      if (mantissa == 0 && text[i] == '0') {
        if (fraction) --exponent;
        continue;
      }
      if (kept < 19) {
        mantissa = mantissa * 10 + static_cast<std::uint64_t>(text[i] - '0');
        ++kept;
        if (fraction) --exponent;
      } else if (!fraction) {
        ++exponent;
      }
    }
  };
  digit_run(false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    digit_run(true);
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (i == text.size()) return false;
    int written = 0;
    for (; i < text.size() && detail::is_digit(text[i]); ++i) written = written < 100'000 ? written * 10 + (text[i] - '0') : written;
    exponent += negative ? -written : written;
  }
  if (i != text.size()) return false;
  if (mantissa == 0) return true;
  // The value is mantissa * 10^exponent, with mantissa < 10^19.
  if (exponent > 330) return false;
  if (exponent < -400) return false;
  long double value = static_cast<long double>(mantissa);
  for (int k = 0; k < exponent; ++k) value *= 10.0L;
  for (int k = 0; k > exponent; --k) value /= 10.0L;
  constexpr long double rounds_to_infinity = 0x1p1024L - 0x1p970L;
  constexpr long double rounds_to_zero = 0x1p-1075L;
  return value < rounds_to_infinity && value > rounds_to_zero;
}


// -- Shell words (shell_words.inc) --------------------------------------------

/// A line that does not read as shell words; `what()` says where and why.
class ShellWordsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `word` as one word of a POSIX shell command line: as it is when it holds
/// nothing a shell reads specially, else in single quotes, with each quote
/// it holds written `\'` outside them. A shell and `shell_words` read it back
/// the same.
std::string shell_word(std::string_view word);

/// The words of `line` as a POSIX shell splits them, expanding nothing: a
/// `$`, `` ` `` or glob character outside quotes, a `~` that begins a word,
/// or an operator is a ShellWordsError, as is a quote left open.
std::vector<std::string> shell_words(std::string_view line);

// -- Shared libraries (library.inc) -------------------------------------------

/// A shared library, loaded with all its symbols bound (RTLD_NOW), kept to
/// itself (RTLD_LOCAL): its undefined symbols are found in the program, the
/// libraries loaded before it and its own dependencies. Closed when the last
/// owner lets it go.
class SharedLibrary {
 public:
  /// Loads `path`. Throws std::runtime_error saying why it cannot, in one
  /// line without the path: no such file, not a shared library, a symbol
  /// it needs that nothing defines (named as C++ spells it).
  static std::shared_ptr<const SharedLibrary> open(const std::string& path);
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  /// The address of the symbol `name` it defines, or null.
  void* symbol(const char* name) const;

  /// Keeps `library` loaded until the process ends, as LLVM and MLIR keep
  /// their plugins: nothing made by its code (an exception, a pass, an
  /// instrument, a type's vtable) can outlive it.
  static void keep_loaded(std::shared_ptr<const SharedLibrary> library);

 private:
  explicit SharedLibrary(void* handle) : handle_(handle) {}
  void* handle_;
};

/// Makes the symbols of the shared library that holds `address` visible to
/// the libraries loaded after it (RTLD_GLOBAL), as a program's own are with
/// `-rdynamic`: what an extension module that loads plugins does first.
/// Throws std::runtime_error if it cannot.
void share_symbols_of(const void* address);

// -- Diffs (diff.inc) ---------------------------------------------------------

/// The unified diff from `before` to `after`, as `diff -u` writes it: a
/// `--- before_label` / `+++ after_label` header, then hunks with `context`
/// unchanged lines around each change; a hunk header names the nearest line
/// above it that begins with a letter (a `def`), as git's do. Empty when the
/// texts are equal.
std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, int context = 3);

// -- Files (output_file.inc) --------------------------------------------------
//
// Every file passline writes (a driver's output, a trace, a dump, a
// reproducer) goes through OutputFile, because the obvious way to write a
// file whole (a temporary file renamed over the target) is wrong for every
// target that is not a plain file: renamed over `/dev/null` it replaces the
// device with a file; over a symbolic link, the link with a file; over a
// FIFO, the pipe a reader waits on. So OutputFile looks at the target first:
// a regular file or a new path gets a temporary file of its own (`mkstemp`,
// beside it, with the old file's mode) renamed into place on `commit`; a
// symbolic link is followed to what it names; anything else (a device, a
// FIFO, standard output) is written in place, since it cannot be taken back.
// A file the program names itself (a dump entry) is `replacing`: whatever
// is at its path (a link planted there, a FIFO) is replaced, never followed
// or written through. A temporary file is named
// `.TARGET.passline-PID-XXXXXX`; the next write into its directory removes
// those of processes that are gone.

/// A file could not be read or written; `what()` names it and says why.
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file written whole: `write` it piece by piece, then `commit`. Until the
/// commit, a regular target keeps its old content; an OutputFile destroyed
/// without a commit leaves no trace of itself. `"-"` is standard output.
class OutputFile {
 public:
  /// Looks at `target` and makes the temporary file if it needs one, so a
  /// path that cannot be written fails here, before any work is done.
  /// Throws FileError.
  explicit OutputFile(const std::filesystem::path& target);
  /// A file whose name the program chose: whatever is at `target` (a
  /// symbolic link, a FIFO, a file) is replaced on `commit`, never followed
  /// or written through; a directory there is an error. Throws FileError.
  static OutputFile replacing(const std::filesystem::path& target);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Removes the temporary file of an uncommitted write.
  ~OutputFile();

  /// Appends `text`. Throws FileError.
  void write(std::string_view text);
  /// Makes what was written the target's content. Throws FileError.
  void commit();

  /// The target as messages name it: its path in quotes, or "standard output".
  const std::string& name() const { return name_; }

  /// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the
  /// temporary files of writes in progress, then end the process as the
  /// signal would have. For programs: a library does not own the signals.
  static void remove_temporaries_on_signals();

 private:
  struct Replacing {};
  OutputFile(const std::filesystem::path& target, Replacing);
  void make_temporary(bool exists, const struct stat* info);
  void open_in_place();
  [[noreturn]] void fail(std::string_view what, int error) const;

  std::string name_;
  std::filesystem::path path_;       // what is written: the target, symbolic links followed
  std::filesystem::path temporary_;  // the file renamed over path_, for a regular target
  int fd_ = -1;
  int slot_ = -1;                    // where the signal handlers find temporary_
  bool in_place_ = false;            // a device, a FIFO, standard output
  bool wrote_ = false;
  bool committed_ = false;
};

/// Writes `text` to `target` whole, as OutputFile does. Throws FileError.
void write_file(const std::filesystem::path& target, std::string_view text);

/// Writes `text` to `target` whole, replacing whatever is there
/// (OutputFile::replacing). Throws FileError.
void replace_file(const std::filesystem::path& target, std::string_view text);

// -- Threads ------------------------------------------------------------------

/// The threads of this machine, at least 1.
inline std::size_t hardware_threads() {
  static const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  return threads;
}

/// The order in which TBB runs work on its threads: after what was done
/// before the work was handed on, and before what is done once it is taken
/// back. TBB keeps that order inside a library the sanitizers do not see;
/// a Handoff states it again with an atomic that ThreadSanitizer checks:
/// `give()` where work (or its result) is handed on, `take()` where it is
/// taken up. Each give joins all the ones before it, so one Handoff serves
/// any number of tasks and stages.
class Handoff {
 public:
  void give() noexcept { count_.fetch_add(1, std::memory_order_release); }
  void take() const noexcept { (void)count_.load(std::memory_order_acquire); }

 private:
  std::atomic<std::size_t> count_{0};
};

/// Calls `visit(i)` for each `i` in [0, count) on up to `threads` threads
/// (on the caller's alone for 1), in no set order. If calls throw, the
/// exception of the lowest index is rethrown once all calls are over; calls
/// of higher indices than one that threw may be skipped, as they could not
/// change which error that is.
template <class Visit>
void parallel_for(std::size_t count, std::size_t threads, Visit&& visit) {
  if (threads <= 1 || count < 2) {
    for (std::size_t i = 0; i < count; ++i) visit(i);
    return;
  }
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> first_failed{count};
  Handoff order;
  order.give();
  auto body = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count), [&](const tbb::blocked_range<std::size_t>& range) {
      order.take();
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (i > first_failed.load(std::memory_order_relaxed)) break;
        try {
          visit(i);
        } catch (...) {
          errors[i] = std::current_exception();
          std::size_t seen = first_failed.load(std::memory_order_relaxed);
          while (i < seen && !first_failed.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
          }
        }
      }
      order.give();
    });
  };
  if (threads == hardware_threads()) {
    body();  // the default arena: as many threads, and no arena to set up
  } else {
    // More threads than the machine has are what was asked for: TBB's
    // limit is raised to them for the loop, rather than TBB ignoring the
    // request with a warning on stderr (which would make stderr depend on
    // the number of threads).
    std::optional<tbb::global_control> limit;
    if (threads > hardware_threads()) limit.emplace(tbb::global_control::max_allowed_parallelism, threads);
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute(body);
  }
  order.take();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace passline::support
