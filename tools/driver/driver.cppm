// passline.driver: what passline-opt and passline-mlir-opt share: the
// instrument flags and the instruments they make, --threads, how
// diagnostics and failures are printed, the report at the end of a run, and
// the standard streams. Each driver keeps only what is its own IR's.
module;

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

export module passline.driver;

import passline;
import passline.support;
import passline.instruments;

export namespace passline::driver {

/// A failure a driver reports as `TOOL: error: MESSAGE`.
struct Failure {
  std::string message;
};

/// How a driver's help speaks of its IR.
struct IRWords {
  std::string_view extension;       // of its files, for --dump-dir: ".ir"
  std::string_view print_before;    // passes to name in --print-before's example: "CSE,DCE"
  std::string_view print_after;     // in --print-after's: "FoldConstant"
};

/// The flags of the instruments both drivers have.
struct InstrumentFlags {
  std::vector<std::string> print_before;
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  std::string print_changed;
  bool time_passes = false;
  std::string trace;
  std::string dump_dir;
  bool verify_each = false;
  std::optional<std::int64_t> bisect_limit;
};

/// Declares the instrument flags on `app`, in its "Debugging" group.
void add_instrument_flags(CLI::App& app, InstrumentFlags& flags, const IRWords& words) {
  app.add_option("--print-before", flags.print_before,
                 fmt::format("print the IR to stderr before these passes, e.g. --print-before={}", words.print_before))
      ->delimiter(',')->option_text("PASS,...")->group("Debugging");
  app.add_option("--print-after", flags.print_after,
                 fmt::format("print the IR to stderr after these passes, e.g. --print-after={}", words.print_after))
      ->delimiter(',')->option_text("PASS,...")->group("Debugging");
  app.add_flag("--print-before-all", flags.print_before_all, "print the IR to stderr before every pass")->group("Debugging");
  app.add_flag("--print-after-all", flags.print_after_all, "print the IR to stderr after every pass")->group("Debugging");
  app.add_flag("--print-changed{full}", flags.print_changed,
               "print the IR at the start, then after each pass only if it changed (else a note); "
               "=diff prints a unified diff instead of the whole IR; =quiet prints the changed IR only, "
               "e.g. --print-changed=diff")
      ->check(CLI::IsMember({"full", "diff", "quiet"}))->group("Debugging");
  app.add_flag("--time-passes", flags.time_passes, "time each pass and pipeline; a nested report on stderr at the end")
      ->group("Debugging");
  app.add_option("--trace", flags.trace,
                 "write every pass, and every function under a function pass, as Chrome trace events to FILE "
                 "(open it in ui.perfetto.dev), one track per thread, e.g. --trace=trace.json")
      ->option_text("FILE")->group("Debugging");
  app.add_option("--dump-dir", flags.dump_dir,
                 fmt::format("write DIR/000-input{0}, then DIR/001-<Pass>{0}... after each pass, e.g. --dump-dir=dumps",
                             words.extension))
      ->option_text("DIR")->group("Debugging");
  app.add_flag("--verify-each", flags.verify_each, "verify the IR after every pass; a broken IR stops the run naming the pass")
      ->group("Debugging");
  app.add_option("--opt-bisect-limit", flags.bisect_limit,
                 "run only the first N optional passes, saying of each whether it runs, e.g. --opt-bisect-limit=3")
      ->option_text("N")->group("Debugging");
}

/// The instruments the flags ask for, in the order their hooks run: bisect
/// first (it vetoes), then printing and dumps, then `checks` (verification,
/// the driver's own: so a broken IR is printed before the run stops),
/// tracing and timing last. With --time-passes, `timings` is its record.
std::vector<std::shared_ptr<Instrument>> instruments(const InstrumentFlags& flags, const IRWords& words,
                                                     std::vector<std::shared_ptr<Instrument>> checks,
                                                     std::shared_ptr<PassTimings>& timings) {
  std::vector<std::shared_ptr<Instrument>> out;
  if (flags.bisect_limit) out.push_back(std::make_shared<OptBisect>(*flags.bisect_limit));
  if (!flags.print_before.empty() || !flags.print_after.empty() || flags.print_before_all || flags.print_after_all) {
    out.push_back(std::make_shared<PrintIR>(PrintIR::Options{.before = flags.print_before,
                                                              .after = flags.print_after,
                                                              .before_all = flags.print_before_all,
                                                              .after_all = flags.print_after_all}));
  }
  if (!flags.print_changed.empty()) {
    using Mode = PrintChanged::Mode;
    const Mode mode = flags.print_changed == "quiet" ? Mode::quiet
                      : flags.print_changed == "diff" ? Mode::diff
                                                      : Mode::full;
    out.push_back(std::make_shared<PrintChanged>(mode));
  }
  if (!flags.dump_dir.empty()) out.push_back(std::make_shared<DumpDir>(flags.dump_dir, std::string(words.extension)));
  for (auto& check : checks) out.push_back(std::move(check));
  if (!flags.trace.empty()) out.push_back(std::make_shared<Trace>(flags.trace));
  if (flags.time_passes) {
    auto time = std::make_shared<TimePasses>();
    timings = time->timings();
    out.push_back(std::move(time));
  }
  return out;
}

/// `--threads=N` into the context's config: one check for the flag and the key.
void set_threads(PassContext& ctx, const std::string& threads) {
  try {
    ctx.config.set_text(config::threads.name, threads);
  } catch (const ConfigError& error) {
    throw Failure{fmt::format("--threads: {}", error.what())};
  }
}

/// Prints the context's diagnostics on stderr as they come:
/// `location: severity: message` (the tool's name where there is no
/// location), and the source line with a caret where there is one.
void print_diagnostics(PassContext& ctx, std::string tool) {
  ctx.diagnostics->set_handler([tool = std::move(tool)](const Diagnostic& d) {
    constexpr const char* severities[] = {"note", "warning", "error"};
    fmt::print(stderr, "{}: {}: {}\n", d.location.empty() ? tool : d.location, severities[static_cast<int>(d.severity)],
               d.message);
    if (!d.snippet.empty()) fmt::print(stderr, "{}\n", d.snippet);
  });
}

/// The timing report and the statistics on stderr when a run ends, whether
/// it succeeded or not, last.
struct EndOfRunReport {
  const std::shared_ptr<PassTimings>& timings;
  const Statistics* statistics = nullptr;
  ~EndOfRunReport() {
    if (timings) fmt::print(stderr, "{}", timings->report());
    if (statistics) fmt::print(stderr, "{}", statistics->report());
  }
};

/// Prints a failure as one message on stderr (with its caret, where it has
/// a position); the exit code. An exception of one of the `Positioned`
/// types (the IR's own parse and check errors) says where it is itself and
/// is printed as it is; any other is `TOOL: error: ...`.
template <class... Positioned>
int report(std::exception_ptr failure, std::string_view tool) {
  try {
    std::rethrow_exception(failure);
  } catch (const PipelineSyntaxError& e) {
    fmt::print(stderr, "{}\n{}\n", e.what(), e.caret());
  } catch (const Failure& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.message);
  } catch (const std::exception& e) {
    if ((dynamic_cast<const Positioned*>(&e) || ...)) {
      fmt::print(stderr, "{}\n", e.what());
    } else {
      fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    }
  }
  return 1;
}

/// All of `fd`, read to its end; `name` names it in errors.
std::string read_all(int fd, const std::string& name) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ::ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Failure{fmt::format("cannot read {}: {}", name, std::strerror(errno))};
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

/// Writes `text` to standard output, or fails naming it.
void print_out(std::string_view text) {
  support::OutputFile out("-");
  out.write(text);
  out.commit();
}

/// Standard input, output and error that were closed when the program
/// started are opened on /dev/null the wrong way round, so that a read or
/// write is an error (EBADF) instead of a file opened later taking their
/// number, and the output going there.
void reserve_standard_streams() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int reserved = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
    if (reserved >= 0 && reserved != fd) {
      ::dup2(reserved, fd);
      ::close(reserved);
    }
  }
}

}  // namespace passline::driver
