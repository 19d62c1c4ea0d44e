// passline.driver: a command-line tool for any IR, in one call.
//
//   int main(int argc, char** argv) {
//     StackTool tool;                                    // what is the IR's own
//     return passline::driver::main<Program>(argc, argv, tool);
//   }
//
// gives the IR a tool with every flag passline's own drivers have: pipeline
// text over the IR's registry (--passes, --list-passes, --print-pipeline),
// the context's flags (--opt-level, --disable-pass, --require-pass,
// --config, --threads, --load-pass-plugin), every instrument
// (--print-after-all, --print-changed, --time-passes, --trace, --dump-dir,
// --verify-each, --opt-bisect-limit, --report, --reproducer and
// --run-reproducer, --print-pass-graph, --stats, --verify-preserved),
// --reduce with its judges, and the output rules (written whole or not at
// all; one message, exit code 1, on any failure). The tool says only what
// is its IR's: see `main` below for what it gives and what it may give.
// passline-opt and passline-mlir-opt are built on it (docs/your-own-ir.md).
module;

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <regex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

export module passline.driver;

import passline;
import passline.support;
import passline.instruments;
import passline.reduce;

#include "children.inc"
#include "oracle.inc"

export namespace passline::driver {

/// A failure a driver reports as `TOOL: error: MESSAGE`.
struct Failure {
  std::string message;
};

/// An error in a tool's input at a position, printed as it is: `FILE:LINE:COL:
/// error: MESSAGE`, then the line with a caret under the column. A tool's
/// `read` throws it where its input is malformed.
class InputError : public std::runtime_error {
 public:
  /// At byte `offset` of `text`, the whole input read from `file`.
  InputError(std::string_view file, std::string_view text, std::size_t offset, std::string_view message)
      : std::runtime_error(where(file, text, std::min(offset, text.size()), message)) {}

 private:
  static std::string where(std::string_view file, std::string_view text, std::size_t offset, std::string_view message) {
    const std::size_t before = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
    const std::size_t start = before == std::string_view::npos ? 0 : before + 1;
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    const std::size_t column = offset - start + 1;
    return fmt::format("{}:{}:{}: error: {}\n{}", file, line, column, message,
                       support::caret_lines(text.substr(start, end - start), column));
  }
};

/// How a tool's help speaks of its IR and of the flags whose meaning is its
/// IR's. An empty text gets the generic words.
struct Help {
  std::string_view description;              // --help's first lines: "stack-opt: runs passes over stack programs"
  std::string_view examples;                 // --help's examples, a command a line
  std::string_view extension;                // of the IR's files: ".ir" (--dump-dir's, --reproducer's)
  std::string_view print_before = "PASS";    // passes to name in --print-before's example: "CSE,DCE"
  std::string_view print_after = "PASS";     // in --print-after's: "FoldConstant"
  std::string_view unit = "IR";              // what a reproducer holds: "IR", "module"
  std::string_view disable_example = "PASS"; // passes in --disable-pass's example: "FoldConstant,Inline"
  std::string_view opt_level_default = "3: every pass named runs";  // the level when --opt-level is not given
  std::string_view threads_use = "function passes, on the IR's functions";  // what --threads runs
  std::string_view input;                    // the operand
  std::string_view output;                   // -o
  std::string_view passes;                   // --passes
  std::string_view list_passes;              // --list-passes
  std::string_view print_pipeline;           // --print-pipeline
  std::string_view no_verify;                // --no-verify
  std::string_view run_reproducer;           // --run-reproducer
};

/// The flags of the instruments both drivers have.
struct InstrumentFlags {
  std::vector<std::string> print_before;
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  bool print_after_failure = false;
  std::string print_changed;
  bool time_passes = false;
  std::string trace;
  std::string dump_dir;
  bool verify_each = false;
  std::optional<std::int64_t> bisect_limit;
  // Instruments that name the run's tool or settings: add_run_instruments.
  bool print_pass_graph = false;
  std::string reproducer;
  std::string report;
};

/// The flags that set the pass context a pipeline runs in: with the
/// pipeline, the only flags a reproducer's replay line may give.
struct ContextFlags {
  std::optional<int> opt_level;
  std::vector<std::string> disabled;
  std::vector<std::string> required;
  std::vector<std::string> config;
  std::optional<std::string> threads;
  std::vector<std::string> plugins;  // --load-pass-plugin, in order
  bool given() const { return gives_pipeline() || threads; }
  /// Whether flags that change what a pipeline does were given (not --threads).
  bool gives_pipeline() const {
    return opt_level || !disabled.empty() || !required.empty() || !config.empty() || !plugins.empty();
  }
};

/// The highest opt level, at which every pass runs.
constexpr int max_opt_level = 3;

/// The flags of --reduce (docs/debugging.md).
struct ReduceFlags {
  std::string symptom;  // empty: no reduction; "auto": the failure the run shows
  std::string match;
  double timeout = 10;
  std::string reference;
  std::string command;
  std::vector<std::string> steps;  // empty: every step
  // What a reduction hands the judges it runs (reduce.inc), not for users:
  std::string judge;       // a file of the words of a judge's command line: judge the input, exit 1 if it still fails
  std::string pass;        // the pass the failure names
  int signal = 0;          // the signal of the crash
  std::string count_file;  // a byte appended per try
  std::string stop_file;   // if it exists, judge nothing
  std::string inside;      // the judge's file: run the IR's own reducer on the input, write what it leaves to -o
};

/// The flags of every driver; a driver's own options add to them.
struct RunFlags {
  std::string input = "-";
  std::string output = "-";
  std::optional<std::string> passes;  // given, even empty: that pipeline
  ContextFlags context;
  bool list_passes = false;
  bool list_config = false;
  std::string print_pipeline;  // "text" or "expanded"; empty: run the pipeline
  bool no_verify = false;
  InstrumentFlags instruments;
  std::string run_reproducer;
  std::optional<std::string> reproducer_text;  // the file --run-reproducer names, read once
  ReduceFlags reduce;
  bool verify_preserved = false;  // --verify-preserved
  bool stats = false;             // --stats
};

}  // namespace passline::driver

namespace passline::driver {

/// Declares the context flags on `app`; `opt_level_default` and
/// `threads_use` finish their help: what the level is when not given, and
/// what the threads run.
void add_context_flags(CLI::App& app, ContextFlags& flags, std::string_view opt_level_default,
                       std::string_view threads_use, std::string_view disable_example) {
  app.add_option("--opt-level", flags.opt_level, fmt::format("opt level of the pass context (default: {})", opt_level_default))
      ->check(CLI::Range(0, max_opt_level));
  app.add_option("--disable-pass", flags.disabled, fmt::format("passes never to run, e.g. --disable-pass={}", disable_example))
      ->delimiter(',');
  app.add_option("--require-pass", flags.required,
                 fmt::format("passes to run whatever the opt level, e.g. --require-pass={}",
                             disable_example.substr(disable_example.rfind(',') + 1)))
      ->delimiter(',');
  app.add_option("--config", flags.config, "a config value, KEY=VALUE, e.g. --config threads=4 (see --list-config)");
  // The most, as the key `threads` takes it (--list-config shows its range).
  const std::int64_t most = ConfigKeys::global().at(config::threads.name).range->second;
  app.add_option("--threads", flags.threads,
                 fmt::format("threads for {}; 0 to {} (0: one per hardware thread); the output is the same on any "
                             "number; the same as --config threads=N",
                             threads_use, most))
      ->option_text("N");
  app.add_option("--load-pass-plugin", flags.plugins,
                 "load the passes of a plugin (a shared library built with passline_add_plugin, see "
                 "docs/plugins.md) before the pipeline is read; may be given more than once, e.g. "
                 "--load-pass-plugin=./my_passes.so")
      ->option_text("PATH")
      ->allow_extra_args(false);
}

/// Which passes run: the opt level (`level` when --opt-level is not
/// given), and the passes disabled and required.
void set_gating(PassContext& ctx, const ContextFlags& flags, int level) {
  ctx.opt_level = flags.opt_level.value_or(level);
  ctx.disabled = flags.disabled;
  ctx.required = flags.required;
}

/// The config values and the threads, each checked as it is set.
void set_config(PassContext& ctx, const ContextFlags& flags) {
  for (const std::string& setting : flags.config) {
    const auto equals = setting.find('=');
    if (equals == std::string::npos) throw Failure{fmt::format("--config takes KEY=VALUE, not '{}'", setting)};
    ctx.config.set_text(setting.substr(0, equals), setting.substr(equals + 1));
  }
  if (flags.threads) {
    try {
      ctx.config.set_text(config::threads.name, *flags.threads);
    } catch (const ConfigError& error) {
      throw Failure{fmt::format("--threads: {}", error.what())};
    }
  }
}

/// The flags of a run that a reproducer must repeat besides the pass.
std::string reproducer_settings(const ContextFlags& flags, int opt_level) {
  std::string settings;
  // Each plugin by its absolute path, so that the replay finds it from anywhere.
  for (const std::string& plugin : flags.plugins) {
    settings += "--load-pass-plugin " + support::shell_word(std::filesystem::absolute(plugin).lexically_normal().string()) + " ";
  }
  settings += fmt::format("--opt-level={}", opt_level);
  for (const std::string& setting : flags.config) settings += " --config " + support::shell_word(setting);
  return settings;
}

}  // namespace passline::driver

export namespace passline::driver {

/// What a driver reads of its run's instruments once the run is over.
struct RunInstruments {
  std::shared_ptr<PassGraph> graph;        // --print-pass-graph: its DOT replaces the IR
  std::shared_ptr<Reproducer> reproducer;  // --reproducer: why it could not be written, if so
};

}  // namespace passline::driver

namespace passline::driver {

/// Adds to `ctx` the instruments that name the run's tool or its settings
/// (as reproducer_settings): --print-pass-graph, --reproducer, replayed by
/// `tool`, and --report, whose replay line is the reproducer's and names
/// its file.
RunInstruments add_run_instruments(PassContext& ctx, const InstrumentFlags& flags, const ContextFlags& context,
                                   const std::string& tool, const std::string& comment) {
  RunInstruments added;
  if (flags.print_pass_graph) {
    added.graph = std::make_shared<PassGraph>();
    ctx.instruments.push_back(added.graph);
  }
  const std::string settings = reproducer_settings(context, ctx.opt_level);
  if (!flags.reproducer.empty()) {
    added.reproducer = std::make_shared<Reproducer>(flags.reproducer, settings, comment, tool);
    ctx.instruments.push_back(added.reproducer);
  }
  if (!flags.report.empty()) {
    ctx.instruments.push_back(std::make_shared<Report>(
        flags.report, Report::Options{.tool = tool, .settings = settings, .reproducer_file = flags.reproducer}));
  }
  return added;
}

/// A note on stderr for each pass named in the pipeline text that will not
/// run, and why: no pass the user names is skipped without a word.
template <class IR>
void say_what_is_skipped(const Pass<IR>& pass, const PassContext& ctx, std::string_view tool) {
  // A pipeline written in the text (seq, or the whole list) is looked into;
  // a registered one (O2) is named as itself, and gates its passes as usual.
  const bool written_out = pass.is_pipeline() && pass.text() != pass.info().name;
  if (written_out) {
    for (const auto& inner : pass.passes()) say_what_is_skipped(inner, ctx, tool);
    return;
  }
  const std::string name(pass.info().name);
  if (ctx.is_disabled(name)) {
    fmt::print(stderr, "{}: note: pass '{}' does not run: --disable-pass names it\n", tool, name);
  } else if (!ctx.pass_enabled(pass.info())) {
    fmt::print(stderr,
               "{}: note: pass '{}' does not run: its level, {}, is above --opt-level={} "
               "(--require-pass={} runs it)\n",
               tool, name, pass.info().opt_level, ctx.opt_level, name);
  }
}

/// --list-passes: the passes and pipelines of `registry`, with their
/// levels, requirements and options.
template <class IR>
std::string list_passes(const Registry<IR>& registry) {
  std::string out;
  for (const auto& pass : registry.list()) {
    // fmt::format, not format_to: it is compiled once, in fmt's library, not in every tool.
    out += fmt::format("{:<16} {} level {}{}  {}{}\n", pass.name, pass.pipeline ? "pipeline" : "pass    ", pass.opt_level,
                       pass.required.empty() ? "" : fmt::format("  requires {}", fmt::join(pass.required, ", ")),
                       pass.summary, pass.plugin.empty() ? "" : fmt::format(" (plugin {})", pass.plugin));
    for (const OptionSpec& option : pass.options) {
      out += fmt::format("    {}: {} = {}  {}\n", option.name, option.type_name(), option.default_text(), option.description);
    }
  }
  return out;
}

/// --list-config: the config keys with their types, defaults and ranges.
std::string list_config() {
  std::string out;
  for (const auto& key : ConfigKeys::global().list()) {
    fmt::format_to(std::back_inserter(out), "{:<16} {} = {}{}  {}\n", key.name, key.type_name(),
                   key.default_text(),
                   key.range ? fmt::format(" ({} to {})", key.range->first, key.range->second) : "", key.description);
  }
  return out;
}

/// The words of a command line as `app` should read them, last word first
/// (as CLI11 takes a vector). CLI11 reads an empty value, `--passes=`, as
/// the bare option, which then takes the next word for its value; here an
/// option that takes a value gets the empty value instead.
std::vector<std::string> cli_words(const CLI::App& app, std::vector<std::string> words) {
  std::vector<std::string> split;
  bool options_end = false;  // after `--`, every word is an operand
  for (std::string& word : words) {
    options_end = options_end || word == "--";
    if (!options_end && word.starts_with("--") && word.find('=') == word.size() - 1) {
      word.pop_back();
      const CLI::Option* option = app.get_option_no_throw(word);
      if (option != nullptr && option->get_type_size_max() > 0) {
        split.push_back(std::move(word));
        split.emplace_back();
        continue;
      }
      word.push_back('=');
    }
    split.push_back(std::move(word));
  }
  std::ranges::reverse(split);
  return split;
}

}  // namespace passline::driver

export namespace passline::driver {

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

/// Opens `file` to read, or fails as passline-opt does for its input:
/// `cannot open 'FILE': REASON`, `cannot read 'FILE': Is a directory`.
/// The caller closes the descriptor.
int open_to_read(const std::string& file) {
  const std::string name = fmt::format("'{}'", support::printable(file, 200));
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw Failure{fmt::format("cannot open {}: {}", name, std::strerror(errno))};
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw Failure{fmt::format("cannot read {}: {}", name, std::strerror(EISDIR))};
  }
  return fd;
}

}  // namespace passline::driver

namespace passline::driver {

/// All of `file`, whatever it is (a file, a pipe, a FIFO, /dev/stdin), as
/// open_to_read opens it; fails naming it.
std::string read_file_text(const std::string& file) {
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{open_to_read(file)};
  return read_all(closer.fd, fmt::format("'{}'", support::printable(file, 200)));
}

/// The text of a file, or of stdin for "-".
std::string read_input_text(const std::string& input) {
  if (input == "-") return read_all(STDIN_FILENO, "standard input");
  return read_file_text(input);
}

/// --run-reproducer FILE: reads FILE once, whatever it is (a file, a pipe,
/// a FIFO, /dev/stdin), then its first line's flags (after `TOOL
/// reproducer:`, read as a shell reads quotes, with nothing expanded) with
/// an app on which `add_flags` declared the pipeline flags. `flags_given`:
/// whether the command line gave an input or pipeline flags itself, which
/// the file gives. Returns the file's text, the IR to run. Throws Failure.
std::string replay_reproducer(const std::string& file, std::string_view tool, bool flags_given,
                              const std::function<void(CLI::App&)>& add_flags) {
  const std::string name = fmt::format("'{}'", support::printable(file, 200));
  const std::string text = read_file_text(file);
  std::string line(std::string_view(text).substr(0, text.find('\n')));
  if (line.ends_with('\r')) line.pop_back();  // a line may end in CR LF
  const std::string marker = Reproducer::marker_of(tool);
  const std::size_t at = line.find(marker);
  if (at == std::string::npos) {
    throw Failure{fmt::format("{} is not a reproducer: its first line has no '{}'", name, marker)};
  }
  std::string flags = line.substr(at + marker.size());
  flags.erase(0, std::min(flags.find_first_not_of(' '), flags.size()));
  std::vector<std::string> words;
  try {
    words = support::shell_words(flags);
  } catch (const support::ShellWordsError& error) {
    throw Failure{fmt::format("{}: its replay line does not read as shell words ({}): {}", name, error.what(),
                              support::printable(flags, 80))};
  }
  if (flags_given) throw Failure{"--run-reproducer takes the input and the pipeline flags from its file"};
  CLI::App replay("the replay line of " + file);
  add_flags(replay);
  try {
    replay.parse(cli_words(replay, std::move(words)));
  } catch (const CLI::ParseError& e) {
    throw Failure{fmt::format("{}: its replay line may give only pipeline flags: {}", name, support::printable(e.what(), 200))};
  }
  return text;
}

/// Declares the instrument flags on `app`, in its "Debugging" group.
void add_instrument_flags(CLI::App& app, InstrumentFlags& flags, const Help& words) {
  app.add_option("--print-before", flags.print_before,
                 fmt::format("print the IR to stderr before these passes, e.g. --print-before={}", words.print_before))
      ->delimiter(',')->option_text("PASS,...")->group("Debugging");
  app.add_option("--print-after", flags.print_after,
                 fmt::format("print the IR to stderr after these passes, e.g. --print-after={}", words.print_after))
      ->delimiter(',')->option_text("PASS,...")->group("Debugging");
  app.add_flag("--print-before-all", flags.print_before_all, "print the IR to stderr before every pass")->group("Debugging");
  app.add_flag("--print-after-all", flags.print_after_all, "print the IR to stderr after every pass")->group("Debugging");
  app.add_flag("--print-after-failure", flags.print_after_failure,
               "print to stderr the IR a pass failed on (as the run leaves it: the pass's input)")
      ->group("Debugging");
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
  app.add_option("--reproducer", flags.reproducer,
                 fmt::format("when a pass fails, write the {} it failed on and how to replay it to FILE, "
                             "e.g. --reproducer=crash{}",
                             words.unit, words.extension))
      ->option_text("FILE")->group("Debugging");
  app.add_option("--report", flags.report,
                 "write one HTML page about the run to FILE: the plan, a timeline, each pass's time and effect, "
                 "each change as a diff, the pass graph, and a failure with its replay; open it in a browser, "
                 "e.g. --report=report.html")
      ->option_text("FILE")->group("Debugging");
  app.add_flag("--print-pass-graph", flags.print_pass_graph,
               "run the pipeline, then print the passes it ran with their required-by edges as Graphviz DOT "
               "instead of the IR, e.g. --print-pass-graph | dot -Tsvg > passes.svg")
      ->group("Debugging");
}

/// Declares the flags of --reduce on `app`, in its "Reduction" group.
void add_reduce_flags(CLI::App& app, ReduceFlags& flags) {
  app.add_flag("--reduce{auto}", flags.symptom,
               "shrink this failing run (or --run-reproducer's) to the smallest that still fails the same way: the "
               "pipeline's passes, then the input's functions, then inside them; each try runs in a child process. "
               "Writes a reproducer to -o (--run-reproducer replays it). What still failing means: auto (the "
               "failure the run shows), error (the same pass fails), crash (the same signal), hang (no end within "
               "--reduce-timeout), verifier (the IR broken after the same pass, under --verify-each), miscompile "
               "(the output differs from that of the same pipeline without the passes --reduce-reference lacks), "
               "command (--reduce-command exits nonzero), e.g. --reduce=crash")
      ->check(CLI::IsMember([] {
        std::vector<std::string> symptoms{"auto"};  // or the name of a Symptom
        for (const std::string_view name : detail::symptom_names) symptoms.emplace_back(name);
        return symptoms;
      }()))
      ->group("Reduction");
  app.add_option("--reduce-match", flags.match,
                 "with --reduce: the failure's messages must match this regular expression (ECMAScript), which "
                 "then says what fails instead of the name of the pass, e.g. --reduce-match='needs operands of one "
                 "type'")
      ->option_text("REGEX")->group("Reduction");
  app.add_option("--reduce-timeout", flags.timeout,
                 "with --reduce: seconds a try may run before it is killed (default 10, at most 86400); with "
                 "--reduce=hang, a try still running then is a hang")
      ->option_text("SECONDS")
      ->check(CLI::Validator(
          [](const std::string& text) {
            double seconds = 0;
            const bool number = CLI::detail::lexical_cast(text, seconds);
            return number && seconds > 0 && seconds <= 86400
                       ? std::string()
                       : fmt::format("a number of seconds above 0 and at most 86400 (a day), not '{}'", text);
          },
          "SECONDS", "seconds"))
      ->group("Reduction");
  app.add_option("--reduce-reference", flags.reference,
                 "with --reduce=miscompile: the pipeline whose output is right; the passes of the run's pipeline "
                 "it lacks are the suspects, and a try still fails when its output differs from that of its own "
                 "pipeline without them, e.g. --passes=O2,MyPass --reduce-reference=O2")
      ->option_text("PIPELINE")->group("Reduction");
  app.add_option("--reduce-command", flags.command,
                 "with --reduce=command: a shell command run with the path of each try's reproducer added; a "
                 "nonzero exit says the try still fails (as mlir-reduce's test scripts), e.g. "
                 "--reduce-command='./still-fails.sh'")
      ->option_text("CMD")->group("Reduction");
  app.add_option("--reduce-steps", flags.steps,
                 "with --reduce: the steps to take, of pipeline (drop passes), functions (empty, then drop them), "
                 "inside (the IR's own simplifications in functions); all unless given, e.g. "
                 "--reduce-steps=functions,inside to keep the pipeline as it is")
      ->delimiter(',')
      ->check(CLI::IsMember(std::vector<std::string>(passline::reduce::step_names.begin(), passline::reduce::step_names.end())))
      ->option_text("STEP,...")
      ->group("Reduction");
  // A reduction's own judges (reduce.inc): hidden from --help.
  app.add_option("--reduce-judge", flags.judge)->group("");
  app.add_option("--reduce-pass", flags.pass)->group("");
  app.add_option("--reduce-signal", flags.signal)->group("");
  app.add_option("--reduce-count", flags.count_file)->group("");
  app.add_option("--reduce-stop", flags.stop_file)->group("");
  app.add_option("--reduce-inside", flags.inside)->group("");
}

/// `text`, or `otherwise` when it is empty.
std::string or_else(std::string_view text, std::string_view otherwise) { return std::string(text.empty() ? otherwise : text); }

/// Declares every driver's flags on `app`: the input and -o, the pipeline
/// flags (`add_pipeline_flags`), the listings, the instruments (with
/// `add_own_debugging_flags`' after them), the reproducer and --reduce.
void add_run_flags(CLI::App& app, RunFlags& flags, const Help& help,
                   const std::function<void(CLI::App&)>& add_pipeline_flags,
                   const std::function<void(CLI::App&)>& add_own_debugging_flags = {}) {
  app.add_option("input", flags.input, or_else(help.input, "file to read; '-' reads stdin (the default)"));
  app.add_option("-o", flags.output,
                 or_else(help.output, "where to write the output; '-' is stdout (the default). Written whole or not at all"));
  add_pipeline_flags(app);
  app.add_flag("--list-passes", flags.list_passes,
               or_else(help.list_passes, "list the passes and pipelines with their levels, requirements and options"));
  app.add_flag("--list-config", flags.list_config, "list the config keys with their types and defaults");
  app.add_flag("--print-pipeline{text}", flags.print_pipeline,
               or_else(help.print_pipeline,
                       "print the pipeline as canonical text and exit; =expanded prints the passes it would run under "
                       "the given flags, one per line, with the required passes it inserts and why"))
      ->check(CLI::IsMember({"text", "expanded"}));
  app.add_flag("--no-verify", flags.no_verify, or_else(help.no_verify, "do not verify the input and the output"));
  add_instrument_flags(app, flags.instruments, help);
  app.add_flag("--verify-preserved", flags.verify_preserved,
               "after every pass that changed the IR, check the analyses and passes it claims to preserve "
               "against a fresh computation; a false claim stops the run naming the pass")
      ->group("Debugging");
  app.add_flag("--stats", flags.stats, "print the counters passes keep (constants folded, lets dropped...) at the end")
      ->group("Debugging");
  if (add_own_debugging_flags) add_own_debugging_flags(app);
  app.add_option("--run-reproducer", flags.run_reproducer,
                 or_else(help.run_reproducer, fmt::format("replay a file written by --reproducer: its {} through the "
                                                          "pass that failed, e.g. --run-reproducer crash{}",
                                                          help.unit, help.extension)))
      ->option_text("FILE")->group("Debugging");
  add_reduce_flags(app, flags.reduce);
}

/// The words of a judge's command line (reduce.inc), from its file: each ends in a NUL.
std::vector<std::string> judge_words(const std::string& file) {
  const std::string text = read_file_text(file);
  std::vector<std::string> words;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\0', at);
    if (end == std::string::npos) break;
    words.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

/// Reads the command line into `app`'s flags and, with --run-reproducer,
/// the run its file describes: its IR, through the pipeline flags of its
/// replay line (`add_pipeline_flags`). `own_pipeline_flags_given`: whether
/// the driver's own pipeline flags were given (the file gives them). The
/// exit code when there is nothing to run: 0 after --help, 1 after a usage
/// error, printed on one line that quotes no argument whole.
std::optional<int> parse_command_line(CLI::App& app, RunFlags& flags, std::vector<std::string> words, std::string_view tool,
                                      const std::function<void(CLI::App&)>& add_pipeline_flags,
                                      const std::function<bool()>& own_pipeline_flags_given = {}) {
  try {
    app.parse(cli_words(app, std::move(words)));
    if (!flags.reduce.judge.empty()) {
      // A judge of a reduction: the flags of the run are in the file, the try is the input.
      std::vector<std::string> judged = judge_words(flags.reduce.judge);
      judged.push_back(flags.input);
      judged.push_back("--reduce-judge=" + flags.reduce.judge);
      app.clear();
      app.parse(cli_words(app, std::move(judged)));
      return std::nullopt;
    }
    if (flags.run_reproducer.empty()) return std::nullopt;
    // --threads may be given: a replay is the same on any number.
    const bool given = flags.input != "-" || flags.passes || flags.context.gives_pipeline() ||
                       (own_pipeline_flags_given && own_pipeline_flags_given());
    flags.reproducer_text = replay_reproducer(flags.run_reproducer, tool, given, add_pipeline_flags);
    flags.input = flags.run_reproducer;
    return std::nullopt;
  } catch (const Failure& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.message);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    fmt::print(stderr, "{}: error: {}\nRun with --help for more information.\n", tool,
               support::printable(e.what(), 200));
  }
  return 1;
}

/// The instruments the flags ask for, in the order their hooks run: bisect
/// first (it vetoes), then printing and dumps, then `checks` (verification,
/// the driver's own: so a broken IR is printed before the run stops),
/// tracing and timing last. With --time-passes, `timings` is its record.
std::vector<std::shared_ptr<Instrument>> instruments(const InstrumentFlags& flags, const Help& words,
                                                     std::vector<std::shared_ptr<Instrument>> checks,
                                                     std::shared_ptr<PassTimings>& timings) {
  std::vector<std::shared_ptr<Instrument>> out;
  if (flags.bisect_limit) out.push_back(std::make_shared<OptBisect>(*flags.bisect_limit));
  if (!flags.print_before.empty() || !flags.print_after.empty() || flags.print_before_all || flags.print_after_all ||
      flags.print_after_failure) {
    out.push_back(std::make_shared<PrintIR>(PrintIR::Options{.before = flags.print_before,
                                                              .after = flags.print_after,
                                                              .before_all = flags.print_before_all,
                                                              .after_all = flags.print_after_all,
                                                              .after_failure = flags.print_after_failure}));
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

/// Prints the context's diagnostics on stderr as they come:
/// `location: severity: message` (the tool's name where there is no
/// location), and the source line with a caret where there is one.
/// A diagnostic the IR's own means showed already is not printed again.
void print_diagnostics(PassContext& ctx, std::string tool) {
  ctx.diagnostics->set_handler([tool = std::move(tool)](const Diagnostic& d) {
    if (d.shown) return;
    fmt::print(stderr, "{}: {}: {}\n", d.location.empty() ? tool : d.location, d.severity_name(), d.message);
    if (!d.snippet.empty()) fmt::print(stderr, "{}\n", d.snippet);
  });
}

/// The timing report and the statistics on stderr when a run ends, whether
/// it succeeded or not, last.
struct EndOfRunReport {
  const std::shared_ptr<PassTimings>& timings;
  const decltype(PassContext::statistics)::element_type* statistics = nullptr;
  ~EndOfRunReport() {
    if (timings) fmt::print(stderr, "{}", timings->report());
    if (statistics) fmt::print(stderr, "{}", statistics->report());
  }
};

}  // namespace passline::driver

export namespace passline::driver {

/// Runs `phase()`, and with --time-passes lists it as `name` beside the
/// passes (reading the input, printing the output).
template <class F>
decltype(auto) timed(const std::shared_ptr<PassTimings>& timings, std::string name, F&& phase) {
  struct Record {
    const std::shared_ptr<PassTimings>& timings;
    std::string name;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~Record() {
      if (timings) {
        timings->add_phase(std::move(name),
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    }
  } record{timings, std::move(name)};
  return std::forward<F>(phase)();
}

}  // namespace passline::driver

namespace passline::driver {

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

}  // namespace passline::driver

export namespace passline::driver {

/// How `run_pipeline` treats what the IR's own means showed the user (MLIR's
/// diagnostic handlers, say).
struct ShownRules {
  /// Whether a failure's cause was shown already, so that it is not printed
  /// again. With PASSLINE_NAME_FAILED_PASS=1 in the environment (--reduce
  /// sets it for its tries, whose judge reads it), a pass that failed so is
  /// named by a note: `TOOL: note: pass 'P' failed (in PATH)`.
  std::function<bool(std::exception_ptr)> failure_shown = {};
  /// False: not even then (where what was shown is all that is wanted:
  /// diagnostics checked against what a test expects).
  bool name_shown_failures = true;
  /// Whether an error diagnostic that was shown fails the run even though
  /// its pass succeeded (passline's rule); false keeps the run going.
  bool shown_errors_fail = true;
};

/// Runs `pipeline` on `ir` in `ctx`'s scope; the exit code. A failure is
/// printed as `report<Positioned...>` prints it (unless `rules` say it was
/// shown), with why the reproducer could not be written, if so; a run whose
/// diagnostics gained an error (an instrument that failed as the scope
/// ended, say) fails too.
template <class... Positioned, class IR>
int run_pipeline(const Pass<IR>& pipeline, IR& ir, PassContext& ctx, const RunInstruments& run, std::string_view tool,
                 const ShownRules& rules = {}) {
  const std::size_t errors_before = ctx.diagnostics->error_count();
  const std::size_t shown_before = ctx.diagnostics->shown_error_count();
  {
    auto scope = ctx.enter();
    try {
      ir = pipeline(std::move(ir), ctx);
    } catch (...) {
      const std::exception_ptr failure = std::current_exception();
      int code = 1;
      if (!rules.failure_shown || !rules.failure_shown(failure)) {
        code = report<Positioned...>(failure, tool);
      } else if (const char* asked = std::getenv("PASSLINE_NAME_FAILED_PASS");
                 rules.name_shown_failures && asked != nullptr && std::string_view(asked) == "1") {
        try {
          std::rethrow_exception(failure);
        } catch (const PassError& e) {
          fmt::print(stderr, "{}: note: pass '{}' failed (in {})\n", tool, e.pass(), e.path());
        } catch (...) {
        }
      }
      if (run.reproducer && !run.reproducer->error().empty()) {
        fmt::print(stderr, "{}: error: {}\n", tool, run.reproducer->error());
      }
      return code;
    }
  }
  const std::size_t errors = ctx.diagnostics->error_count() - errors_before;
  const std::size_t shown = ctx.diagnostics->shown_error_count() - shown_before;
  return errors > (rules.shown_errors_fail ? 0 : shown) ? 1 : 0;
}

/// Writes `text` to standard output, or fails naming it.
void print_out(std::string_view text) {
  support::OutputFile out("-");
  out.write(text);
  out.commit();
}

/// What a run has made by the time its driver processes the input.
struct Session {
  const RunFlags& flags;
  PassContext& ctx;
  const RunInstruments& instruments;
  const std::shared_ptr<PassTimings>& timings;
  /// The output file, opened before any work so that a path that cannot be
  /// written fails first; written whole once everything succeeded. Empty
  /// when the driver writes standard output its own way.
  std::optional<support::OutputFile>& output;
};

}  // namespace passline::driver

namespace passline::driver {

/// What a driver adds to the one run of `drive`: its IR's pipeline, checks,
/// reading and writing. Each is called once, in the order below.
template <class IR>
struct DriverSteps {
  Registry<IR>& registry;
  /// What starts a comment line in the IR's text: a reproducer's first line.
  std::string comment = "//";
  /// Loads `path` if it is a plugin of the IR's own kind (MLIR's), saying
  /// whether it was; passline's plugins are loaded into `registry`.
  std::function<bool(const std::string& path)> load_foreign_plugin = {};
  /// After --list-passes has listed the registry: what else it lists.
  std::function<void()> list_more = {};
  /// Before the pipeline is made: an exit code to stop with (a flag that
  /// prints and exits, say), or nothing to go on; may throw a Failure.
  std::function<std::optional<int>()> check_flags = {};
  /// The pipeline the flags give.
  std::function<Pass<IR>()> pipeline = {};
  /// The opt level passes are gated by, unless --opt-level says.
  int opt_level = max_opt_level;
  /// Whether the passes named that will not run are said on stderr.
  bool say_skipped = true;
  /// The driver's own settings of the context, after --config's.
  std::function<void(PassContext&)> configure = {};
  /// The instruments the flags ask for (see `instruments`).
  std::function<std::vector<std::shared_ptr<Instrument>>(std::shared_ptr<PassTimings>&)> instruments = {};
  /// Whether the counters passes keep are printed at the end (--stats).
  std::function<bool()> statistics = [] { return false; };
  /// Whether -o - is written through an OutputFile too.
  bool output_file_for_stdout = true;
  /// Reads the input, runs the pipeline on it (`run_pipeline`) and writes
  /// the result: the exit code.
  std::function<int(const Pass<IR>&, Session&)> process = {};
  /// --reduce: the passes of pipeline text, planned under the context, as
  /// the reader of the tool's text reads them (each nested pipeline of the
  /// IR's own opened); the flags that give a run that pipeline text; the IR
  /// read from text.
  std::function<std::vector<passline::reduce::Step>(const std::string& pipeline, const PassContext&)> pipeline_steps = {};
  std::function<std::vector<std::string>(const std::string& pipeline)> pipeline_args = {};
  std::function<IR(const std::string& text, const std::string& name)> parse = {};
};

#include "reduce.inc"

/// The one run of every driver, from its parsed flags: the listings, the
/// pipeline and its printing, the context (gating, config, diagnostics,
/// instruments), the output opened, the run's instruments, then the
/// driver's processing, and the timing and statistics reports at the end.
template <class IR>
int drive(const RunFlags& flags, std::string_view tool, const DriverSteps<IR>& steps) {
  // Before anything reads the registry: their passes list, parse and run as the program's own.
  std::vector<std::shared_ptr<Instrument>> plugin_instruments;
  for (const std::string& path : flags.context.plugins) {
    if (steps.load_foreign_plugin && steps.load_foreign_plugin(path)) continue;
    auto plugin = load_plugin(path, steps.registry);
    for (auto& instrument : plugin.instruments) plugin_instruments.push_back(std::move(instrument));
  }
  if (flags.list_passes) {
    print_out(list_passes(steps.registry));
    if (steps.list_more) steps.list_more();
    return 0;
  }
  if (flags.list_config) return print_out(list_config()), 0;
  if (steps.check_flags) {
    if (const std::optional<int> code = steps.check_flags()) return *code;
  }
  const Pass<IR> pipeline = steps.pipeline();
  if (flags.print_pipeline == "text") return print_out(pipeline.text() + "\n"), 0;
  PassContext ctx;
  set_gating(ctx, flags.context, steps.opt_level);
  if (flags.print_pipeline == "expanded") return print_out(plan_text(pipeline.plan(ctx))), 0;
  if (steps.say_skipped) say_what_is_skipped(pipeline, ctx, tool);
  set_config(ctx, flags.context);
  if (!flags.reduce.symptom.empty() || !flags.reduce.inside.empty()) {
    if constexpr (passline::reduce::Reducible<IR>) {
      if (!flags.reduce.inside.empty()) return reduce_inside(flags, steps);
      if (!flags.reduce.judge.empty()) return judge_try(flags, tool, steps, pipeline, ctx);
      return reduce_run(flags, tool, steps, pipeline, ctx);
    } else {
      throw Failure{fmt::format("--reduce: {}'s IR gives the reducer nothing to shrink it with "
                                "(there is no passline::reduce::ReduceTraits for it)", tool)};
    }
  }
  if (steps.configure) steps.configure(ctx);
  print_diagnostics(ctx, std::string(tool));
  std::shared_ptr<PassTimings> timings;
  ctx.instruments = steps.instruments(timings);
  for (const auto& instrument : plugin_instruments) ctx.instruments.push_back(instrument);
  std::optional<support::OutputFile> output;
  if (flags.output != "-" || steps.output_file_for_stdout) output.emplace(flags.output);
  const RunInstruments run_instruments = add_run_instruments(ctx, flags.instruments, flags.context, std::string(tool), steps.comment);
  const EndOfRunReport end_report{timings, steps.statistics() ? ctx.statistics.get() : nullptr};
  Session session{flags, ctx, run_instruments, timings, output};
  return steps.process(pipeline, session);
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

namespace passline::driver {

/// What `read_command_line` asks of a tool: each may be left empty.
struct CommandLineHooks {
  /// The pipeline run without --passes, if the tool has one.
  std::optional<std::string_view> default_pipeline;
  /// Whether the tool verifies its IR (else --no-verify has nothing to do).
  bool verifies = false;
  /// The tool's own pipeline flags, and its other flags.
  std::function<void(CLI::App&)> add_pipeline_flags, add_flags;
  /// Takes the words the tool's own parser reads: an exit code to stop with, or nothing.
  std::function<std::optional<int>(std::vector<std::string>&, const CLI::App&)> take_words;
  /// Whether the tool's own pipeline flags were given.
  std::function<bool()> pipeline_flags_given;
  /// Prints more after --help.
  std::function<void()> print_more_help;
};

/// The command line of a tool named `name` read into `flags` (every
/// driver's flags, described by `help`, and the tool's own): an exit code
/// when there is nothing to run (after --help, or a usage error), nothing
/// to go on. Compiled once here, not in each tool.
std::optional<int> read_command_line(int argc, char** argv, RunFlags& flags, Help help, std::string_view name,
                                     const CommandLineHooks& hooks) {
  // The generic words, told what this tool runs and checks (`help` views
  // them: they live as long as the command line is read).
  std::string passes_text;
  if (help.passes.empty()) {
    passes_text = hooks.default_pipeline
                      ? fmt::format("pipeline text, e.g. '{}' (see --list-passes); without it, '{}' runs; --passes= "
                                    "runs no pass",
                                    help.print_after, *hooks.default_pipeline)
                      : fmt::format("pipeline text, e.g. '{}' (see --list-passes); without it, or with --passes=, no "
                                    "pass runs",
                                    help.print_after);
    help.passes = passes_text;
  }
  if (!hooks.verifies && help.no_verify.empty()) help.no_verify = "nothing to do: this tool's IR has no verifier";
  std::string description = or_else(help.description, fmt::format("{}: runs a pipeline of passes over its IR", name));
  if (!help.examples.empty()) description += fmt::format("\n\nExamples:\n{}", help.examples);
  CLI::App app(description, std::string(name));
  const auto add_pipeline = [&](CLI::App& to) {
    to.add_option("--passes", flags.passes, std::string(help.passes));
    add_context_flags(to, flags.context, help.opt_level_default, help.threads_use, help.disable_example);
    if (hooks.add_pipeline_flags) hooks.add_pipeline_flags(to);
  };
  add_run_flags(app, flags, help, add_pipeline, hooks.add_flags);
  std::vector<std::string> words(argv + 1, argv + argc);
  if (hooks.take_words) {
    if (const std::optional<int> code = hooks.take_words(words, app)) return code;
  }
  const std::optional<int> code = parse_command_line(app, flags, std::move(words), name, add_pipeline,
                                                     hooks.pipeline_flags_given);
  if (code == 0 && hooks.print_more_help) hooks.print_more_help();
  return code;
}

}  // namespace passline::driver

// -- The tool --------------------------------------------------------------------

namespace passline::driver {

template <class T, class IR>
concept ReadsText = requires(T& tool, std::string text, const std::string& file) {
  { tool.read(std::move(text), file) } -> std::same_as<IR>;
};
template <class T, class IR>
concept ReadsTextOnThreads = requires(T& tool, std::string text, const std::string& file, std::size_t threads) {
  { tool.read(std::move(text), file, threads) } -> std::same_as<IR>;
};
template <class T, class IR>
concept Reads = ReadsText<T, IR> || ReadsTextOnThreads<T, IR>;
template <class T>
concept Named = requires(const T& tool) { std::string_view(tool.name); };
template <class T, class IR>
concept VerifiesAlone = requires(T& tool, const IR& ir) { tool.verify(ir); };
template <class T, class IR>
concept VerifiesOnThreads = requires(T& tool, const IR& ir, std::size_t threads) { tool.verify(ir, threads); };
template <class IR>
concept PrintsText = requires(const IR& ir) {
  { IRTraits<IR>::print(ir) } -> std::convertible_to<std::string>;
};
template <class T, class IR>
concept Verifies = VerifiesAlone<T, IR> || VerifiesOnThreads<T, IR>;
template <class T, class IR>
concept Writes =
    requires(T& tool, const IR& ir, const std::function<void(std::string_view)>& put, std::size_t threads) {
      tool.write(ir, put, threads);
    };

// What main's static_asserts test: plain values, so that a failure is one
// line that names the tool, not the concept's reasons after it.
template <class T>
inline constexpr bool tool_has_name = Named<T>;
template <class T, class IR>
inline constexpr bool tool_reads = Reads<T, IR>;
template <class T, class IR>
inline constexpr bool tool_writes = PrintsText<IR> || Writes<T, IR>;

template <class T>
struct PositionedErrors {
  using type = std::tuple<>;
};
template <class T>
  requires requires { typename T::positioned_errors; }
struct PositionedErrors<T> {
  using type = typename T::positioned_errors;
};

/// Prints a failure as `report` does, with InputError and the tool's
/// `positioned_errors` printed as they are.
template <class T>
int report_failure(std::exception_ptr failure, std::string_view name) {
  return [&]<class... E>(std::tuple<E...>*) {
    return report<InputError, E...>(std::move(failure), name);
  }(static_cast<typename PositionedErrors<T>::type*>(nullptr));
}

template <class IR, class T>
IR read_text(T& tool, std::string text, const std::string& file, std::size_t threads) {
  if constexpr (ReadsTextOnThreads<T, IR>) {
    return tool.read(std::move(text), file, threads);
  } else {
    return tool.read(std::move(text), file);
  }
}

template <class IR, class T>
void verify_ir(T& tool, const IR& ir, std::size_t threads) {
  if constexpr (VerifiesOnThreads<T, IR>) {
    tool.verify(ir, threads);
  } else if constexpr (VerifiesAlone<T, IR>) {
    tool.verify(ir);
  }
}

template <class T>
std::string_view name_of(const T& tool) {
  return tool.name;
}

/// How the tool's help speaks of its IR.
template <class T>
Help help_of(const T& tool) {
  if constexpr (requires { { tool.help } -> std::convertible_to<Help>; }) {
    return tool.help;
  } else {
    return Help{};
  }
}

/// The registry a tool's pipelines are read from: its own, or the IR's global one.
template <class IR, class T>
Registry<IR>& registry_of(T& tool) {
  if constexpr (requires { { tool.registry() } -> std::same_as<Registry<IR>&>; }) {
    return tool.registry();
  } else {
    return Registry<IR>::global();
  }
}

/// What a run does to the input when the tool does not say otherwise
/// (`process`): read it (a reproducer's text, a file, stdin), verify it,
/// run the pipeline, verify the result, write it (or the pass graph).
template <class IR, class T>
int process_input(T& tool, const Pass<IR>& pipeline, Session& run) {
  const RunFlags& flags = run.flags;
  const std::string_view name = name_of(tool);
  const std::size_t threads = run.ctx.threads();  // for every phase
  IR ir = timed(run.timings, "Parse input", [&]() -> IR {
    if (flags.reproducer_text) return read_text<IR>(tool, *flags.reproducer_text, flags.input, threads);
    if constexpr (requires { { tool.read_file(flags.input, threads) } -> std::same_as<IR>; }) {
      if (flags.input != "-") return tool.read_file(flags.input, threads);
    }
    return read_text<IR>(tool, read_input_text(flags.input), flags.input == "-" ? "<stdin>" : flags.input, threads);
  });
  constexpr bool verifies = Verifies<T, IR>;
  if (verifies && !flags.no_verify) timed(run.timings, "Verify input", [&] { verify_ir(tool, ir, threads); });
  if (const int code = [&]<class... E>(std::tuple<E...>*) {
        return run_pipeline<InputError, E...>(pipeline, ir, run.ctx, run.instruments, name);
      }(static_cast<typename PositionedErrors<T>::type*>(nullptr))) {
    return code;
  }
  if (verifies && !flags.no_verify) timed(run.timings, "Verify output", [&] { verify_ir(tool, ir, threads); });
  support::OutputFile& output = *run.output;
  if (run.instruments.graph) {
    output.write(run.instruments.graph->dot());
    output.commit();
    return 0;
  }
  timed(run.timings, "Print output", [&] {
    if constexpr (Writes<T, IR>) {
      tool.write(ir, [&](std::string_view chunk) { output.write(chunk); }, threads);
    } else {
      output.write(IRTraits<IR>::print(ir));
    }
    output.commit();
  });
  return 0;
}

/// The steps of `drive` for `tool`: its hooks where it gives them, the
/// generic ones where not.
template <class IR, class T>
DriverSteps<IR> steps_of(T& tool, RunFlags& flags) {
  DriverSteps<IR> steps{.registry = registry_of<IR>(tool)};
  if constexpr (requires { std::string_view(tool.comment); }) steps.comment = std::string_view(tool.comment);
  if constexpr (requires { { tool.load_plugin(std::string()) } -> std::same_as<bool>; }) {
    steps.load_foreign_plugin = [&](const std::string& path) { return tool.load_plugin(path); };
  }
  if constexpr (requires { tool.list_more_passes(); }) steps.list_more = [&] { tool.list_more_passes(); };
  // The steps outlive this function: they keep the tool and the flags, none of its locals.
  steps.check_flags = [&]() -> std::optional<int> {
    [[maybe_unused]] const std::string_view name = name_of(tool);
    if constexpr (!Verifies<T, IR>) {
      if (flags.instruments.verify_each) {
        throw Failure{fmt::format("--verify-each: {}'s IR has no verifier (its tool gives no verify)", name)};
      }
    }
    if constexpr (!requires(const IR& ir) { IRTraits<IR>::function_count(ir); }) {
      if (flags.context.threads && *flags.context.threads != "1" && *flags.context.threads != "0") {
        fmt::print(stderr, "{}: note: --threads={}: the IR has no functions to run passes on in parallel\n", name,
                   *flags.context.threads);
      }
    }
    if constexpr (requires { { tool.check_flags(flags) } -> std::same_as<std::optional<int>>; }) {
      return tool.check_flags(flags);
    } else {
      return std::nullopt;
    }
  };
  steps.pipeline = [&]() -> Pass<IR> {
    if constexpr (requires { { tool.pipeline(flags) } -> std::same_as<Pass<IR>>; }) {
      return tool.pipeline(flags);
    } else if constexpr (requires { std::string_view(tool.default_pipeline); }) {
      return parse_pipeline(flags.passes.value_or(std::string(tool.default_pipeline)), registry_of<IR>(tool));
    } else {
      return parse_pipeline(flags.passes.value_or(""), registry_of<IR>(tool));
    }
  };
  if constexpr (requires { { tool.opt_level(flags) } -> std::convertible_to<int>; }) steps.opt_level = tool.opt_level(flags);
  if constexpr (requires(PassContext& ctx) { tool.configure(ctx, flags); }) {
    steps.configure = [&](PassContext& ctx) { tool.configure(ctx, flags); };
  }
  steps.instruments = [&](std::shared_ptr<PassTimings>& timings) {
    std::vector<std::shared_ptr<Instrument>> checks;
    if constexpr (Verifies<T, IR>) {
      if (flags.instruments.verify_each) {
        checks.push_back(std::make_shared<VerifyEach>([&tool](IRView view) {
          if (const IR* ir = view.get<IR>()) verify_ir(tool, *ir, PassContext::current().threads());
        }));
      }
    }
    if (flags.verify_preserved) checks.push_back(std::make_shared<VerifyPreserved<IR>>(&registry_of<IR>(tool)));
    std::vector<std::shared_ptr<Instrument>> made = instruments(flags.instruments, help_of(tool), std::move(checks), timings);
    if constexpr (requires { tool.instruments(flags); }) {
      for (auto& own : tool.instruments(flags)) made.push_back(std::move(own));
    }
    return made;
  };
  steps.statistics = [&] {
    if constexpr (requires { { tool.statistics() } -> std::convertible_to<bool>; }) {
      return flags.stats || tool.statistics();
    } else {
      return flags.stats;
    }
  };
  if constexpr (requires { { tool.output_file_for_stdout } -> std::convertible_to<bool>; }) {
    steps.output_file_for_stdout = tool.output_file_for_stdout;
  }
  steps.process = [&](const Pass<IR>& pipeline, Session& run) {
    if constexpr (requires { { tool.process(pipeline, run) } -> std::same_as<int>; }) {
      return tool.process(pipeline, run);
    } else {
      return process_input<IR>(tool, pipeline, run);
    }
  };
  steps.pipeline_steps = [&](const std::string& text, const PassContext& ctx) -> std::vector<passline::reduce::Step> {
    if constexpr (requires {
                    { tool.pipeline_steps(text, ctx) } -> std::same_as<std::vector<passline::reduce::Step>>;
                  }) {
      return tool.pipeline_steps(text, ctx);
    } else {
      // Read by the registry; the required passes too, so that one may stay
      // where its user goes; where one goes and its user stays, planning puts it back.
      return passline::reduce::planned_steps(parse_pipeline(text, registry_of<IR>(tool)), ctx);
    }
  };
  steps.pipeline_args = [&](const std::string& pipeline) -> std::vector<std::string> {
    if constexpr (requires { { tool.pipeline_args(pipeline) } -> std::same_as<std::vector<std::string>>; }) {
      return tool.pipeline_args(pipeline);
    } else {
      return {"--passes=" + pipeline};
    }
  };
  steps.parse = [&](const std::string& text, const std::string& file) { return read_text<IR>(tool, text, file, 1); };
  return steps;
}

}  // namespace passline::driver

export namespace passline::driver {

/// A command-line tool for the IR `IR`: reads `argv` and runs it, the exit
/// code. `tool` says what is the IR's own; every member but the first two
/// may be left out:
///
///   std::string_view name;                        // "stack-opt": in messages, --help, reproducers
///   IR read(std::string text, const std::string& file[, std::size_t threads]);
///       // the IR in `text`; throws InputError (or a `positioned_errors`
///       // type) where it is malformed
///
///   Help help;                                    // how --help speaks of the IR
///   std::string_view comment;                     // what starts a comment line in its text ("//"):
///                                                 // a reproducer's first line is one
///   Registry<IR>& registry();                     // the passes (the IR's global registry)
///   std::string_view default_pipeline;            // run without --passes (no pass)
///   void verify(const IR&[, std::size_t threads]);// throws where the IR is broken: the input and
///                                                 // output are verified, and --verify-each works
///   void write(const IR&, const std::function<void(std::string_view)>& put, std::size_t threads);
///       // the output, a chunk at a time (IRTraits<IR>::print(ir) otherwise)
///   IR read_file(const std::string& path, std::size_t threads);  // a file (read whole, then `read`)
///   using positioned_errors = std::tuple<E...>;   // the IR's errors that say where they are
///   void add_flags(CLI::App&);                    // its own flags (CLI11)
///   void add_pipeline_flags(CLI::App&);           // its own flags that say what a run does:
///   bool pipeline_flags_given();                  //   a reproducer's replay line may give them
///   std::optional<int> check_flags(const RunFlags&);   // an exit code to stop with, or go on
///   Pass<IR> pipeline(const RunFlags&);           // the pipeline (from --passes otherwise)
///   int opt_level(const RunFlags&);               // the level passes are gated by (the highest)
///   void configure(PassContext&, RunFlags&);      // its own settings of the run's context
///   std::vector<std::shared_ptr<Instrument>> instruments(const RunFlags&);  // its own, after the flags'
///   bool statistics();                            // --stats, by its own flag too
///   bool load_plugin(const std::string& path);    // a plugin of the IR's own kind: loaded, true
///   void list_more_passes();                      // more after --list-passes
///   int process(const Pass<IR>&, Session&);       // reading, running, writing its own way
///   bool output_file_for_stdout;                  // with `process`: -o - through Session::output
///   std::vector<passline::reduce::Step> pipeline_steps(const std::string& text, const PassContext&);
///       // --reduce: the passes text runs, as the IR's own reader reads them
///   std::vector<std::string> pipeline_args(const std::string& text);           // --reduce: the flags
///   std::optional<int> take_words(std::vector<std::string>& words, const CLI::App&);  // words it reads
///   void print_more_help();                       // after --help
///
/// What the IR does not give is said when a flag asks for it: --verify-each
/// without `verify`, --reduce without passline::reduce::ReduceTraits<IR>,
/// --threads for an IR without functions (IRTraits<IR>::function_count).
template <class IR, class ToolRef>
int main(int argc, char** argv, ToolRef&& tool) {
  using T = std::remove_reference_t<ToolRef>;
  static_assert(tool_has_name<T>,
                "passline::driver::main: the tool has no `name` (std::string_view name = \"my-opt\";): "
                "its messages, --help and reproducers need it");
  static_assert(tool_reads<T, IR>,
                "passline::driver::main: the tool has no `IR read(std::string text, const std::string& file)` "
                "returning the IR of main<IR>: how the tool reads its input");
  static_assert(tool_writes<T, IR>,
                "passline::driver::main: the IR cannot be written: give IRTraits<IR>::print, or the tool a "
                "`write(const IR&, const std::function<void(std::string_view)>& put, std::size_t threads)`");
  if constexpr (tool_has_name<T> && tool_reads<T, IR> && tool_writes<T, IR>) {
    const std::string_view name = name_of(tool);
    reserve_standard_streams();
    support::OutputFile::remove_temporaries_on_signals();
    CommandLineHooks hooks;
    if constexpr (requires { std::string_view(tool.default_pipeline); }) {
      hooks.default_pipeline = std::string_view(tool.default_pipeline);
    }
    hooks.verifies = Verifies<T, IR>;
    if constexpr (requires(CLI::App& to) { tool.add_pipeline_flags(to); }) {
      hooks.add_pipeline_flags = [&](CLI::App& to) { tool.add_pipeline_flags(to); };
    }
    if constexpr (requires(CLI::App& to) { tool.add_flags(to); }) hooks.add_flags = [&](CLI::App& to) { tool.add_flags(to); };
    if constexpr (requires(std::vector<std::string>& words, const CLI::App& app) {
                    { tool.take_words(words, app) } -> std::same_as<std::optional<int>>;
                  }) {
      hooks.take_words = [&](std::vector<std::string>& words, const CLI::App& app) { return tool.take_words(words, app); };
    }
    if constexpr (requires { { tool.pipeline_flags_given() } -> std::convertible_to<bool>; }) {
      hooks.pipeline_flags_given = [&] { return static_cast<bool>(tool.pipeline_flags_given()); };
    }
    if constexpr (requires { tool.print_more_help(); }) hooks.print_more_help = [&] { tool.print_more_help(); };
    RunFlags flags;
    if (const std::optional<int> code = read_command_line(argc, argv, flags, help_of(tool), name, hooks)) return *code;
    try {
      return drive(flags, name, steps_of<IR>(tool, flags));
    } catch (...) {
      return report_failure<T>(std::current_exception(), name);
    }
  } else {
    return 1;
  }
}

}  // namespace passline::driver
