// passline.instruments: the standard instruments, what makes a pipeline debuggable.
//
// Each is an Instrument over any IR (through IRView), usable from C++ by adding
// it to a PassContext, and from passline-opt by a flag of the same name as
// LLVM's: print the IR around chosen passes (`PrintIR`), after each pass only
// when it changed, whole or as a diff (`PrintChanged`), time every pass in a
// nested report (`TimePasses`), trace passes and functions per thread
// (`Trace`), dump a numbered file per pass (`DumpDir`), verify after every
// pass (`VerifyEach`), run only the first N optional passes (`OptBisect`),
// write a failed pass's input to replay (`Reproducer`) and draw what ran
// (`PassGraph`), and check what passes claim to preserve (`VerifyPreserved`).
// Pipelines are reported to instruments like passes; most of these act on
// passes and leave pipelines to the timing report and the trace.
//
//   import passline.instruments;
//
// A module of its own, as LLVM keeps its StandardInstrumentations apart from
// the pass manager: `import passline;` is the pass manager alone, and its
// `Instrument` interface is all an instrument of one's own needs.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <set>

#include <fmt/format.h>
export module passline.instruments;
import passline;
import passline.support;

export namespace passline {

/// Where an instrument writes its text.
using Output = std::function<void(std::string_view)>;

/// Writes to stderr, as LLVM's and MLIR's instruments do.
inline Output to_stderr() {
  return [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stderr); };
}

}  // namespace passline

namespace passline::detail {

/// `text` ending in a newline.
inline std::string with_newline(std::string text) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

}  // namespace passline::detail

export namespace passline {

/// Prints the IR before or after the passes it names, or every pass:
/// `--print-before=A,B`, `--print-after=A,B`, `--print-before-all`,
/// `--print-after-all`; and the IR a pass failed on, `--print-after-failure`.
/// A pipeline prints only when named.
class PrintIR final : public Instrument {
 public:
  struct Options {
    std::vector<std::string> before = {};
    std::vector<std::string> after = {};
    bool before_all = false;
    bool after_all = false;
    bool after_failure = false;
  };
  explicit PrintIR(Options options, Output out = to_stderr()) : options_(std::move(options)), out_(std::move(out)) {}

  void before_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;
  void after_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;
  void after_failed_pass(const PassInfo& info, IRView ir, const PassPlace& place, std::exception_ptr) override;
  bool wants_failed_input() const override { return options_.after_failure; }

 private:
  static bool wanted(const std::vector<std::string>& list, bool all, const PassInfo& info, const PassPlace& place);
  void print(std::string_view when, const PassInfo& info, IRView ir, const PassPlace& place);

  Options options_;
  Output out_;
};

/// `--print-changed`: the IR once at the start, then after each pass the IR
/// only if it changed (by fingerprint, or by text for an IR without one),
/// else a one-line note; for an IR with neither, a note that it cannot tell. `quiet` prints changed IR only; `diff` prints a
/// unified diff from the IR as last printed instead of the whole IR.
class PrintChanged final : public Instrument {
 public:
  enum class Mode { full, quiet, diff };
  explicit PrintChanged(Mode mode = Mode::full, Output out = to_stderr()) : mode_(mode), out_(std::move(out)) {}

  void enter_context() override {
    started_ = false;
    last_ = "input";
  }
  void before_pass(const PassInfo&, IRView ir, const PassPlace&) override;
  void after_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;

 private:
  /// The IR as text, ending in a newline, into `text_`: one string for every
  /// print, its room kept.
  void print(IRView ir);
  /// The text of the IR as last printed is kept to diff with, or to compare
  /// by when the IR has no fingerprint.
  bool keeps_text() const { return mode_ == Mode::diff || !fingerprint_; }

  Mode mode_;
  Output out_;
  bool started_ = false;
  std::optional<std::uint64_t> fingerprint_;  // of the IR as last printed
  std::string text_;                           // the IR as printed now
  std::string last_text_;                      // the IR as last printed, when kept
  std::string last_;                           // the pass after which it was printed
};

/// The report of `--time-passes`: pipelines and the passes under them, by
/// name under each parent, with wall time, self time (not spent in passes
/// under it) and how many times each ran. It lives on after the context.
class PassTimings {
 public:
  struct Entry {
    std::string name;
    double wall = 0;  // seconds
    std::size_t count = 0;
    std::vector<Entry> children = {};
    double self() const {
      double under = 0;
      for (const Entry& child : children) under += child.wall;
      return std::max(0.0, wall - under);
    }
    const Entry* find(std::string_view child) const {
      for (const Entry& e : children) {
        if (e.name == child) return &e;
      }
      return nullptr;
    }
  };

  /// The passes run at the top, in the order first run.
  const std::vector<Entry>& top() const { return root_.children; }

  /// A phase of the run outside the passes (a driver's parsing or printing),
  /// listed at the top beside them and counted in the total.
  void add_phase(std::string name, double seconds) {
    root_.children.push_back({.name = std::move(name), .wall = seconds, .count = 1});
    root_.wall += seconds;
  }
  /// The total wall time of the passes at the top.
  double total() const { return root_.wall; }

  /// The report as text: a tree sorted by wall time at every level.
  std::string report() const;

 private:
  friend class TimePasses;
  Entry root_;  // its wall is the sum of the top level's
};

/// `--time-passes`: times every pass and pipeline into a PassTimings.
///
/// A context's exit ends its record, as TVM's PassTimingInstrument clears its
/// profile in exit_pass_ctx: `timings()` is then a new, empty record. Whoever
/// kept the shared record (`auto timings = timing->timings();` before the
/// run) still reads the context's report.
class TimePasses final : public Instrument {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TimePasses(std::shared_ptr<PassTimings> timings = std::make_shared<PassTimings>())
      : timings_(std::move(timings)) {}
  /// The record the passes of the current (or next) context go into.
  const std::shared_ptr<PassTimings>& timings() const { return timings_; }

  void exit_context() override {
    timings_ = std::make_shared<PassTimings>();
    open_.clear();
  }

  void before_pass(const PassInfo& info, IRView, const PassPlace&) override;
  void after_pass(const PassInfo&, IRView, const PassPlace&) override { close(); }
  void after_failed_pass(const PassInfo&, IRView, const PassPlace&, std::exception_ptr) override { close(); }

  /// An analysis computed while a pass runs is listed under the pass, as
  /// `Name (analysis)`; function passes may compute them on several threads.
  void before_analysis(const AnalysisInfo&, std::string_view) override;
  void after_analysis(const AnalysisInfo& info, std::string_view) override;

 private:
  struct Open {
    PassTimings::Entry* entry;  // stays put: only the innermost open entry gains children
    Clock::time_point start;
  };
  void close();

  std::shared_ptr<PassTimings> timings_;
  std::vector<Open> open_;
  std::mutex analysis_mutex_;
  std::vector<std::pair<std::thread::id, Clock::time_point>> analysis_starts_;  // computations under way
};

/// `--dump-dir=DIR`: `DIR/000-input.ir`, then `001-InferType.ir`, ... one file
/// per pass, numbered in the order the passes ran.
class DumpDir final : public Instrument {
 public:
  explicit DumpDir(std::filesystem::path dir, std::string extension = ".ir")
      : dir_(std::move(dir)), extension_(std::move(extension)) {}

  void enter_context() override;
  void before_pass(const PassInfo&, IRView ir, const PassPlace& place) override;
  void after_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;

 private:
  /// Entries are the dump's own names: whatever is at one (a link planted
  /// there, a FIFO) is replaced, never followed or written through; a pass
  /// name's characters other than letters, digits, '-' and '_' become '_',
  /// so an entry stays in the directory.
  void write(std::string stem, IRView ir) const;

  std::filesystem::path dir_;
  std::string extension_;
  std::size_t step_ = 0;
  bool wrote_input_ = false;
};

/// `--trace=FILE.json`: every pass and pipeline as a Chrome trace event,
/// which Perfetto (ui.perfetto.dev) and chrome://tracing open. Passes and
/// pipelines nest on the track of the thread that runs the pipeline; each
/// function a function pass runs on is an event of its own on the track of
/// the thread that ran it, so parallel functions show one track per thread.
/// With a file, the trace is written when the context exits; `json()` gives
/// it at any time.
class Trace final : public Instrument {
 public:
  using Clock = std::chrono::steady_clock;
  /// One event: a pass or pipeline, or a function under a function pass.
  struct Event {
    std::string name;
    std::string category;  // "pass", "pipeline" or "function"
    std::string pass;      // for a function: the pass that ran on it
    double start = 0;      // microseconds since the context was entered
    double duration = 0;   // microseconds
    std::size_t thread = 0;  // 0: the thread that entered the context; then in order of first event
  };

  /// A trace kept in memory, for `json()` and `events()`.
  Trace() = default;
  /// A trace written to `file` (an OutputFile) when the context exits. The
  /// write begins when the context is entered, so that a path that cannot be
  /// written fails before any pass runs; a trace that could not be written
  /// is reported by the context's exit (PassContext::Scope).
  explicit Trace(std::filesystem::path file) : file_(std::move(file)) {}

  bool wants_functions() const override { return true; }
  void enter_context() override;
  void exit_context() override;
  void before_pass(const PassInfo& info, IRView, const PassPlace& place) override;
  void after_pass(const PassInfo&, IRView, const PassPlace&) override { close_pass(); }
  void after_failed_pass(const PassInfo&, IRView, const PassPlace&, std::exception_ptr) override { close_pass(); }
  void before_function(const PassInfo& info, std::string_view function) override;
  void after_function(const PassInfo& info, std::string_view function) override;
  void before_analysis(const AnalysisInfo& info, std::string_view unit) override;
  void after_analysis(const AnalysisInfo& info, std::string_view unit) override;

  /// The events so far, sorted by start time (then thread, then name).
  std::vector<Event> events() const;
  /// The trace as Chrome trace-event JSON: complete ("X") events in
  /// microseconds, a function's named `FoldConstant on main`, and a name for
  /// each thread's track.
  std::string json() const;

 private:
  struct Open {
    Event event;
    Clock::time_point start;
  };
  double since_start(Clock::time_point t) const;
  std::size_t thread_number();  // with mutex_ held
  void close_pass();
  /// Ends the innermost of `open` at `end` (with mutex_ held).
  void close(std::vector<Open>& open, Clock::time_point end);

  std::filesystem::path file_;
  std::unique_ptr<support::OutputFile> output_;  // from entering the context until the trace is written
  Clock::time_point start_ = Clock::now();
  mutable std::mutex mutex_;  // functions run on several threads at once
  std::vector<Event> done_;
  std::vector<Open> passes_;  // open passes and pipelines, innermost last
  std::vector<std::pair<std::thread::id, std::vector<Open>>> functions_;  // open functions, by thread
};

/// A pass left the IR ill-formed (`--verify-each`).
class VerificationError : public PipelineError {
 public:
  VerificationError(std::string pass, const std::string& message)
      : PipelineError(fmt::format("the IR is broken after pass '{}': {}", pass, message)),
        pass_(std::move(pass)) {}
  const std::string& pass() const { return pass_; }

 private:
  std::string pass_;
};

/// `--verify-each`: runs `verify` after every pass; when it throws, the
/// pipeline stops with a VerificationError naming the pass.
class VerifyEach final : public Instrument {
 public:
  explicit VerifyEach(std::function<void(IRView)> verify) : verify_(std::move(verify)) {}
  void after_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;

 private:
  std::function<void(IRView)> verify_;
};

/// `--opt-bisect-limit=N`: runs only the first N optional passes, and says of
/// each whether it runs. Passes whose PassInfo is not `optional` always run
/// and are not counted; so are passes the context requires (instruments are
/// not asked about them). A negative limit runs every pass, still counting.
class OptBisect final : public Instrument {
 public:
  explicit OptBisect(std::int64_t limit, Output out = to_stderr()) : limit_(limit), out_(std::move(out)) {}

  void enter_context() override { count_ = 0; }
  bool should_run(const PassInfo& info, IRView, const PassPlace& place) override;

 private:
  std::int64_t limit_;
  Output out_;
  std::int64_t count_ = 0;
};

}  // namespace passline

export namespace passline {

/// `--reproducer=FILE`: when a pass fails, writes the IR it failed on to
/// FILE, after a first line that says how to replay it: the pass alone with
/// its options, and `settings` (the flags of the run that matter, e.g.
/// `--opt-level=3`, each a shell word: shell_word). The line is a
/// comment of the IR's text format (`comment`), so the file is itself an
/// input: `TOOL --run-reproducer FILE` replays it (`tool`, the program that
/// reads it: passline-opt, passline-mlir-opt), and the flags after the
/// marker, `TOOL reproducer:`, can be pasted into a shell as they are.
class Reproducer final : public Instrument {
 public:
  /// It writes the failed pass's input: the run keeps a copy of each input for it.
  bool wants_failed_input() const override { return true; }
  /// What a reproducer's first line says before the replay flags.
  static std::string marker_of(std::string_view tool) { return std::string(tool) + " reproducer:"; }
  /// A reproducer's first line for pass `info` at `place`, ending in a newline:
  /// `COMMENT TOOL reproducer: '--passes=PASS{OPTIONS}' SETTINGS`.
  static std::string first_line(std::string_view comment, std::string_view tool, const PassInfo& info,
                                const PassPlace& place, std::string_view settings);

  Reproducer(std::filesystem::path file, std::string settings, std::string comment = "//",
             std::string tool = "passline-opt")
      : file_(std::move(file)), settings_(std::move(settings)), comment_(std::move(comment)),
        tool_(std::move(tool)) {}

  /// Begins the write (an OutputFile), so that a path that cannot be written
  /// fails before any pass runs; a run that does not fail writes nothing.
  void enter_context() override;
  void exit_context() override { output_.reset(); }

  /// Writes the reproducer. A write that fails does not hide the pass's own
  /// failure: it is kept for `error()`.
  void after_failed_pass(const PassInfo& info, IRView ir, const PassPlace& place, std::exception_ptr) override;
  /// Whether a reproducer was written.
  bool written() const { return written_; }
  /// Why a pass failed but its reproducer could not be written; empty if it was.
  const std::string& error() const { return error_; }

 private:
  std::filesystem::path file_;
  std::string settings_;
  std::string comment_;
  std::string tool_;
  std::unique_ptr<support::OutputFile> output_;
  std::string error_;
  bool written_ = false;
};

}  // namespace passline

export namespace passline {

/// `--report=FILE.html`: one self-contained HTML page about a run, to open
/// in a browser: the plan as it ran (each step with why it runs), a
/// timeline of passes, functions and analyses on one time axis (a lane per
/// thread), per pass its time, how many functions it changed, the size of
/// the IR after it and its statistics, the diff of each change (per
/// function, for an IR whose traits print functions alone), the IR before
/// and after, the graph of required and preserved passes, and on a failed
/// run the error, the failing pass and how to replay it. No network, no
/// file beside it. Times, which change from run to run, are kept in one
/// block of the page (`<script id="times">`) that its script draws from:
/// everything else is the same bytes for the same run on any number of
/// threads. Large texts are cut, with a note saying so, never dropped.
class Report final : public Instrument {
 public:
  struct Options {
    /// The program that replays a reproducer, and the flags of the run that
    /// matter (as Reproducer takes them), for a failed run's replay line.
    std::string tool = "passline-opt";
    std::string settings = {};
    std::string comment = "//";
    /// A reproducer file the run also writes (`--reproducer`): the page names it.
    std::string reproducer_file = {};
    /// Cuts: a pass's diff, the IR before and after, all diffs together (bytes).
    std::size_t diff_limit = 64 * 1024;
    std::size_t ir_limit = 256 * 1024;
    std::size_t page_diff_budget = 8 * 1024 * 1024;
  };
  /// A report written to `file` (an OutputFile) when the context exits; the
  /// write begins when it is entered, so that a path that cannot be written
  /// fails before any pass runs.
  explicit Report(std::filesystem::path file, Options options);
  explicit Report(std::filesystem::path file) : Report(std::move(file), Options{}) {}
  ~Report() override;

  bool wants_functions() const override { return true; }
  bool wants_failed_input() const override { return true; }
  void enter_context() override;
  void exit_context() override;
  void before_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;
  void after_pass(const PassInfo& info, IRView ir, const PassPlace& place) override;
  void after_failed_pass(const PassInfo& info, IRView ir, const PassPlace& place, std::exception_ptr error) override;
  void before_function(const PassInfo& info, std::string_view function) override;
  void after_function(const PassInfo& info, std::string_view function) override;
  void before_analysis(const AnalysisInfo& info, std::string_view unit) override;
  void after_analysis(const AnalysisInfo& info, std::string_view unit) override;

  /// The page as it stands (what exit_context writes).
  std::string html() const;

  /// A reduction of a failing run (`--reduce`), which the page shows first:
  /// what still fails, the sizes after each step, the pipeline and the
  /// reproducer it left, and the line that replays it.
  struct Reduction {
    struct Step {
      std::string name;
      std::size_t passes = 0, size = 0, runs = 0;
      double seconds = 0;
    };
    std::string symptom;
    std::vector<Step> steps;
    std::string pipeline;
    std::string reproducer;
    std::string replay;
    bool interrupted = false;
  };
  /// Shows `reduction` on the page; a page may show a reduction and no run
  /// (between enter_context and exit_context).
  void show_reduction(Reduction reduction);

 private:
  struct State;
  std::filesystem::path file_;
  Options options_;
  std::unique_ptr<State> state_;
  std::unique_ptr<support::OutputFile> output_;
};

}  // namespace passline

export namespace passline {

/// `--print-pass-graph`: records the passes a run ran, in order, nested in
/// their pipelines, with an edge from each pass run as a prerequisite to the
/// pass that required it; `dot()` writes that as Graphviz DOT.
class PassGraph final : public Instrument {
 public:
  void enter_context() override {
    steps_.clear();
    open_.clear();
  }
  void before_pass(const PassInfo& info, IRView, const PassPlace& place) override {
    steps_.push_back({std::string(info.name), std::string(place.required_by), open_.empty() ? -1 : open_.back(),
                      place.pipeline});
    if (place.pipeline) open_.push_back(static_cast<int>(steps_.size() - 1));
  }
  void after_pass(const PassInfo&, IRView, const PassPlace& place) override { close(place); }
  void after_failed_pass(const PassInfo&, IRView, const PassPlace& place, std::exception_ptr) override { close(place); }

  /// The graph: a cluster per pipeline, passes in run order joined by solid
  /// edges, and a dashed "required by" edge from each prerequisite run.
  std::string dot() const;

 private:
  struct Step {
    std::string name;
    std::string required_by;
    int parent;  // the step of the enclosing pipeline, or -1
    bool pipeline;
  };
  void close(const PassPlace& place) {
    if (place.pipeline && !open_.empty()) open_.pop_back();
  }
  std::vector<Step> steps_;
  std::vector<int> open_;
};

}  // namespace passline

// -- VerifyPreserved ----------------------------------------------------------
//
// A pass that names an analysis or a pass in `PassInfo::preserves` promises
// that what it names stays true after it changed the IR, and the run trusts
// the promise: it keeps the analysis's results and does not run the pass
// again for a later pass that requires it. A broken promise hands later
// passes a stale result, silently. So after each pass that changed the IR
// (by fingerprint), this instrument computes afresh every analysis result the
// run kept and compares it with the kept one (results that have `==`), and
// runs again, on a copy and under a context of its own, every pass that held
// before and that the pass claims to preserve (found in a registry): it must
// leave the IR as it is. A difference stops the run with a VerificationError
// naming the pass, what it claimed, and the function. It costs a fresh
// analysis or pass run per claim, so it is a debugging aid, like VerifyEach.

export namespace passline {

/// `--verify-preserved`: after each pass that changed the IR, checks the
/// analyses and passes it claims to preserve (`PassInfo::preserves`) against
/// a fresh computation; a claim that does not hold is a VerificationError
/// naming the pass. Analyses are those of the run's context; passes are
/// checked when `passes` (the registry they are found in) is given.
template <class IR>
class VerifyPreserved final : public Instrument {
 public:
  explicit VerifyPreserved(const Registry<IR>* passes = nullptr) : passes_(passes) {}

  void enter_context() override { holding_.clear(); }

  void before_pass(const PassInfo&, IRView ir, const PassPlace& place) override {
    if (!place.pipeline) before_ = ir.fingerprint();
  }

  void after_pass(const PassInfo& info, IRView view, const PassPlace& place) override {
    if (place.pipeline) return;
    const IR* ir = view.get<IR>();
    if (!ir) return;
    const std::optional<std::uint64_t> after = view.fingerprint();
    if (!before_ || !after || *before_ != *after) {
      check_analyses(info, *ir);
      check_passes(info, *ir);
      std::erase_if(holding_, [&](const std::string& name) { return !info.keeps(name); });
    }
    holding_.insert(std::string(info.name));
  }

 private:
  void check_analyses(const PassInfo& info, const IR& ir) const {
    for (const auto& stale : PassContext::current().analyses<IR>().stale(ir)) {
      throw VerificationError(
          std::string(info.name),
          fmt::format("it claims to preserve the analysis '{}', but its result{} is not what '{}' computes now",
                      stale.analysis, stale.function.empty() ? "" : " for '" + support::printable(stale.function, 80) + "'",
                      stale.analysis));
    }
  }

  void check_passes(const PassInfo& info, const IR& ir) const {
    if (!passes_) return;
    if constexpr (Fingerprintable<IR>) {
      for (const std::string& name : holding_) {
        if (!info.keeps(name) || !passes_->contains(name)) continue;
        PassContext own;  // no instruments, every level: the check is no part of the run
        own.opt_level = max_opt_level;
        const IR again = passes_->create(name)(IR(ir), own);
        if (IRTraits<IR>::fingerprint(again) != IRTraits<IR>::fingerprint(ir)) {
          throw VerificationError(std::string(info.name),
                                  fmt::format("it claims to preserve '{}', but '{}' run again changes the IR", name, name));
        }
      }
    }
  }

  static constexpr int max_opt_level = 1 << 20;
  const Registry<IR>* passes_;
  std::set<std::string> holding_;  // the passes that ran and hold, by the claims of those after them
  std::optional<std::uint64_t> before_;
};

}  // namespace passline
