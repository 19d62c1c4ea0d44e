// passline.reduce: from a failing run to the smallest run that still fails.
//
// A failing run is a pipeline, an input and the caller's judge of what
// "still failing" means (a predicate; passline.driver's Oracle reads it
// from how a try of a tool ended). `reduce` shrinks it in a fixed order,
// each step by delta debugging (`keep_failing`: chunks of halving size
// removed while the run still fails):
//
//   1. the pipeline: its passes (the steps of its plan, nested pipelines
//      opened), dropped; the required passes are not among them, since
//      planning puts them back where they are needed;
//   2. the IR's functions: emptied (the smallest valid body), then dropped;
//   3. the IR's own simplifications inside functions (ReduceTraits<IR>);
//
// and repeats until a round changes nothing. Every candidate is judged by
// the caller's test, which runs it in a child process (`run_child`) with a
// time limit: a candidate that crashes or hangs is a result, not the
// reducer's end. Candidates are tried one at a time in the same order on
// any machine, so the result does not depend on the threads the runs use.
module;

#include <array>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

export module passline.reduce;
import passline;

export namespace passline::reduce {

/// The passes `pipeline` runs under `ctx`, as pipeline text: its plan's
/// steps that are passes (named pipelines opened, required passes written
/// out; a pass that nests others, as MLIR's do, is written whole).
template <class IR>
std::string planned_passes(const Pass<IR>& pipeline, const PassContext& ctx) {
  std::string passes;
  for (const PlannedStep& step : pipeline.plan(ctx)) {
    if (!step.pipeline) passes += (passes.empty() ? "" : ",") + step.pass;
  }
  return passes;
}

/// A directory of its own under $TMPDIR (`PREFIX-XXXXXX`), removed with
/// everything in it when this goes. Throws std::runtime_error if it cannot
/// be made.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(std::string_view prefix);
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The path of the program running, to run it again for a try.
std::filesystem::path this_program();

// -- Pipeline text as a tree ---------------------------------------------------

/// One element of pipeline text: a pass with its options (`cse`,
/// `Inline{max-size=20}`), or a nested pipeline (`func.func(...)`,
/// `seq(...)`) whose head is the text before its `(`.
struct Step {
  std::string text;
  bool nested = false;
  std::vector<Step> inner;
};

/// The elements of pipeline text (MLIR's and passline's grammar: `,` between
/// elements, `{...}` options, `(...)` nested pipelines). Text it cannot read
/// (unbalanced brackets) is one pass: the tool that runs it says what is wrong.
std::vector<Step> split_pipeline(std::string_view text);

/// How many passes (not nested pipelines) `steps` hold.
std::size_t pass_count(const std::vector<Step>& steps);

/// The pipeline text of `steps` with only the passes `keep` keeps (by
/// position among the passes, in order); a nested pipeline none of whose
/// passes are kept goes too.
std::string join_pipeline(const std::vector<Step>& steps, const std::vector<bool>& keep);

/// The passes of `steps`, in order.
std::vector<std::string> pass_texts(const std::vector<Step>& steps);

// -- Delta debugging -----------------------------------------------------------

/// In which order `delta` tries the chunks of a level.
enum class Order { first_to_last, last_to_first };

/// The items of `keep` (true: kept) that can go while `still_fails` holds:
/// chunks of half the kept items, then a quarter, ... then one at a time,
/// each removed if the run without it still fails, in `order`; the single
/// items again until none goes. Stops early when `stop` says so. Returns
/// the items kept.
std::vector<bool> delta(std::vector<bool> keep, const std::function<bool(const std::vector<bool>&)>& still_fails,
                        const std::function<bool()>& stop, Order order = Order::first_to_last);

// -- Child processes -----------------------------------------------------------

/// How a child process ended.
struct Exit {
  enum class Kind { exited, signaled, timed_out, interrupted };
  Kind kind = Kind::exited;
  int code = 0;    // exited
  int signal = 0;  // signaled
  double seconds = 0;
  std::string err;  // its standard error, up to a bound
  std::string describe() const;
};

/// Runs `argv` (argv[0] a path) with stdin from /dev/null, stdout to
/// `out_file`, stderr captured, in a process group of its own, without core
/// dumps; kills the group past `limit_seconds` (then `timed_out`) or when an
/// interrupt came (`interrupted`).
Exit run_child(const std::vector<std::string>& argv, double limit_seconds, const std::filesystem::path& out_file);

/// From now on SIGINT and SIGTERM end the reduction after the run under
/// way (killed), which keeps its best result, instead of the process; the
/// signal also makes `stop_file` (unless empty), which tells the judges a
/// reducer of the IR's own runs to judge nothing more.
void catch_interrupts(const std::string& stop_file);
bool interrupted();

// -- The reducer ---------------------------------------------------------------

/// What an IR gives the reducer. Specialise it for an IR:
///   static std::size_t size(const IR&);            // its operations
///   static std::size_t function_count(const IR&);
///   static std::optional<IR> keep_functions(const IR&, const std::vector<bool>& keep);
///   static std::optional<IR> empty_functions(const IR&, const std::vector<bool>& empty);
///   static IR simplify(const IR&, const Judge<IR>& judge, const Stop& stop);
/// Each gives nothing for a candidate that is not valid IR (a call of a
/// function dropped), which is then never run. `simplify` is the IR's own
/// step inside functions: candidate simplifications, each valid IR, kept
/// while the judge says the run still fails: `judge.still` in this
/// process, or `judge.command()`, a command line to which a file of the
/// candidate is added, which exits nonzero when it still fails (for an IR's
/// reducer that runs a test script, as MLIR's reduction tree does). An IR
/// whose reducer may crash runs it through `judge.in_child` (the IR's text
/// in, the smaller IR's text out, or nothing if that process failed),
/// which runs `simplify` again in a child process, there with `in_child`
/// empty.
template <class IR>
struct ReduceTraits;

using Stop = std::function<bool()>;
template <class IR>
using Still = std::function<bool(const IR&)>;
template <class IR>
struct Judge {
  Still<IR> still;
  std::function<std::vector<std::string>()> command;
  std::function<std::optional<std::string>(const std::string& ir)> in_child;
};

/// What a reduction does outside this process, for an IR's reducer that
/// needs it (see Judge): the judge's command line under a pipeline; the
/// IR's `simplify` in a child process; how many tries the judges ran.
struct Outside {
  std::function<std::vector<std::string>(const std::string& pipeline)> command;
  std::function<std::optional<std::string>(const std::string& pipeline, const std::string& ir)> in_child;
  std::function<std::size_t()> runs = [] { return std::size_t{0}; };
};

/// The one step of every reduction, for every IR: of `count` items (the
/// passes of a pipeline, the functions of a module, the places of a
/// simplification), the fewest that still fail, found by `delta`. `make`
/// builds the candidate of a subset (true: kept), nothing if it is not
/// valid, and is never judged then; `still` judges a candidate. Returns the
/// candidate of the subset kept, or nothing when no item could go.
template <class T>
std::optional<T> keep_failing(std::size_t count, const std::function<std::optional<T>(const std::vector<bool>&)>& make,
                              const std::function<bool(const T&)>& still, const Stop& stop,
                              Order order = Order::first_to_last) {
  const std::vector<bool> all(count, true);
  const std::vector<bool> kept = delta(
      all,
      [&](const std::vector<bool>& keep) {
        const std::optional<T> candidate = make(keep);
        return candidate && still(*candidate);
      },
      stop, order);
  if (kept == all) return std::nullopt;
  return make(kept);
}

template <class IR>
concept Reducible = requires(const IR& ir, const std::vector<bool>& mask, const Judge<IR>& judge, const Stop& stop) {
  { ReduceTraits<IR>::size(ir) } -> std::convertible_to<std::size_t>;
  { ReduceTraits<IR>::function_count(ir) } -> std::convertible_to<std::size_t>;
  { ReduceTraits<IR>::keep_functions(ir, mask) } -> std::same_as<std::optional<IR>>;
  { ReduceTraits<IR>::empty_functions(ir, mask) } -> std::same_as<std::optional<IR>>;
  { ReduceTraits<IR>::simplify(ir, judge, stop) } -> std::same_as<IR>;
};

/// One line of the reduction's record: after a step, the sizes.
struct Record {
  std::string step;  // "input", "pipeline", "functions dropped", ...
  std::size_t passes = 0;
  std::size_t size = 0;
  std::size_t runs = 0;
  double seconds = 0;
};

/// Says on stderr how the reduction goes, a line per step (on a terminal,
/// the line of the step under way is rewritten as it goes).
class Progress {
 public:
  explicit Progress(std::string tool, bool quiet = false);
  void step(const Record& record, bool done);
  void end();

 private:
  std::string tool_;
  bool quiet_;
  bool terminal_;
  bool open_ = false;
};

/// Which steps a reduction takes (all, unless told).
struct Steps {
  bool pipeline = true;
  bool functions = true;
  bool inside = true;
};

/// The steps' names, as the drivers' `--reduce-steps` and Python's `steps` take them.
inline constexpr std::array<std::string_view, 3> step_names{"pipeline", "functions", "inside"};

/// The steps `names` asks for, all if it is empty. Throws
/// std::invalid_argument for a name that is not a step's.
Steps steps_named(const std::vector<std::string>& names);

template <class IR>
struct Reduced {
  std::string pipeline;
  IR ir;
  std::vector<Record> records;
  std::size_t runs = 0;
  bool interrupted = false;
};

/// Reduces the failing run of `pipeline` on `ir`: `still_fails(pipeline,
/// ir)` judges a candidate (true: it still fails);
/// `improved` is told each smaller run found, so that the best so far is
/// kept if the reduction is interrupted; `outside`, what is done outside
/// this process; `steps`, which steps to take.
template <Reducible IR>
Reduced<IR> reduce(std::string pipeline, IR ir,
                   const std::function<bool(const std::string& pipeline, const IR& ir)>& still_fails,
                   const std::function<void(const std::string& pipeline, const IR& ir)>& improved, Progress& progress,
                   const Outside& outside = {}, const Steps& steps = {}) {
  using Traits = ReduceTraits<IR>;
  Reduced<IR> out{.pipeline = std::move(pipeline), .ir = std::move(ir), .records = {}, .runs = 0, .interrupted = false};
  const auto start = std::chrono::steady_clock::now();
  const std::size_t outside_before = outside.runs();
  auto runs = [&] { return out.runs + (outside.runs() - outside_before); };
  auto record = [&](std::string step, bool done) {
    Record r{.step = std::move(step),
             .passes = pass_count(split_pipeline(out.pipeline)),
             .size = Traits::size(out.ir),
             .runs = runs(),
             .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    progress.step(r, done);
    if (done) out.records.push_back(std::move(r));
  };
  const Stop stop = [] { return interrupted(); };
  // Every judged candidate; a smaller one that fails becomes the best.
  auto judge = [&](const std::string& candidate_pipeline, const IR& candidate, const std::string& step) {
    if (stop()) return false;
    ++out.runs;
    const bool fails = still_fails(candidate_pipeline, candidate);
    if (out.runs % 8 == 0) record(step, false);
    return fails && !stop();
  };
  auto accept = [&](std::string candidate_pipeline, IR candidate) {
    out.pipeline = std::move(candidate_pipeline);
    out.ir = std::move(candidate);
    improved(out.pipeline, out.ir);
  };
  record("input", true);

  auto reduce_pipeline = [&] {
    const std::vector<Step> steps = split_pipeline(out.pipeline);
    // Later passes first: of a pass and the earlier one it requires, the
    // earlier (the one that runs first, where a failure may already be) stays.
    std::optional<std::string> fewer = keep_failing<std::string>(
        pass_count(steps), [&](const std::vector<bool>& keep) { return std::optional(join_pipeline(steps, keep)); },
        [&](const std::string& candidate) { return judge(candidate, out.ir, "pipeline"); }, stop, Order::last_to_first);
    if (fewer) accept(std::move(*fewer), out.ir);
    record("pipeline", true);
    return fewer.has_value();
  };
  // Emptied first: an emptied function calls nothing, so that dropping
  // it after cannot leave a call to a function that is gone.
  auto reduce_functions = [&] {
    bool changed = false;
    auto functions = [&](const std::string& step, const std::function<std::optional<IR>(const std::vector<bool>&)>& make) {
      std::optional<IR> smaller = keep_failing<IR>(
          Traits::function_count(out.ir), make, [&](const IR& candidate) { return judge(out.pipeline, candidate, step); },
          stop);
      if (smaller) {
        accept(out.pipeline, std::move(*smaller));
        changed = true;
      }
      record(step, true);
    };
    // `keep` here: the functions left as they are; the others are emptied.
    functions("functions emptied", [&](const std::vector<bool>& keep) {
      std::vector<bool> empty(keep.size());
      for (std::size_t i = 0; i < keep.size(); ++i) empty[i] = !keep[i];
      return Traits::empty_functions(out.ir, empty);
    });
    functions("functions dropped", [&](const std::vector<bool>& keep) { return Traits::keep_functions(out.ir, keep); });
    return changed;
  };
  auto simplify = [&] {
    const std::size_t before = Traits::size(out.ir);
    Judge<IR> inside{.still = [&](const IR& candidate) { return judge(out.pipeline, candidate, "inside functions"); },
                     .command = [&] { return outside.command ? outside.command(out.pipeline) : std::vector<std::string>{}; },
                     .in_child = {}};
    if (outside.in_child) {
      inside.in_child = [&](const std::string& text) { return outside.in_child(out.pipeline, text); };
    }
    IR simpler = Traits::simplify(out.ir, inside, stop);
    const bool changed = Traits::size(simpler) < before;
    if (changed) accept(out.pipeline, std::move(simpler));
    record("inside functions", true);
    return changed;
  };

  // A round of each; again while a round makes the run smaller (a shorter
  // pipeline may let more IR go, and smaller IR more passes).
  for (int round = 0; round < 8 && !stop(); ++round) {
    bool changed = false;
    if (steps.pipeline) changed = reduce_pipeline();
    if (steps.functions && !stop()) changed = reduce_functions() || changed;
    if (steps.inside && !stop()) changed = simplify() || changed;
    if (!changed) break;
  }
  out.interrupted = stop();
  out.runs = runs();
  progress.end();
  return out;
}

}  // namespace passline::reduce
