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
// the caller's judge (`Judge`): a predicate in this process, or a command
// run on a file of the candidate. How a try runs (in a child process, with
// a time limit, so that a candidate that crashes or hangs is a result, not
// the reducer's end) and when to stop (an interrupt) are the caller's:
// passline.driver's for the tools. Candidates are tried one at a time in
// the same order on any machine, so the result does not depend on the
// threads the runs use.
module;

#include <array>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

export module passline.reduce;
import passline;

export namespace passline::reduce {

// -- Pipeline text as a tree ---------------------------------------------------

/// One element of a pipeline, as a reader of its text gives it (the
/// registry's, through a pipeline's plan: `planned_steps`; MLIR's parser,
/// for MLIR's nests): a pass with its options (`cse`,
/// `Inline{max-size=20}`), or a nested pipeline (`func.func(...)`) whose
/// head is `text` and whose elements are `inner`.
struct Step {
  std::string text;
  bool nested = false;
  std::vector<Step> inner = {};
};

/// The passes `pipeline` runs under `ctx`, as the reducer's steps (`Step`):
/// its plan's steps that are passes (named pipelines opened, required
/// passes written out), each as the registry writes it. A pass that nests
/// others (MLIR's `func.func(cse,canonicalize)`) is one step here, which
/// the IR's own reader may open (passline.mlir.reduce's `mlir_steps`).
template <class IR>
std::vector<Step> planned_steps(const Pass<IR>& pipeline, const PassContext& ctx) {
  std::vector<Step> steps;
  for (const PlannedStep& step : pipeline.plan(ctx)) {
    if (!step.pipeline) steps.push_back(Step{.text = step.pass});
  }
  return steps;
}

/// How many passes (not nested pipelines) `steps` hold.
std::size_t pass_count(const std::vector<Step>& steps);

/// `steps` with only the passes `keep` keeps (by position among the
/// passes, in order); a nested pipeline none of whose passes are kept goes
/// too.
std::vector<Step> kept_steps(const std::vector<Step>& steps, const std::vector<bool>& keep);

/// The pipeline text of `steps`: elements joined by `,`, a nest as
/// `head(...)`.
std::string pipeline_text(const std::vector<Step>& steps);

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
/// while the judge (`Judge`) says the run still fails.
template <class IR>
struct ReduceTraits;

/// Whether to stop now, keeping the best run found so far (an interrupt).
using Stop = std::function<bool()>;
template <class IR>
using Still = std::function<bool(const IR&)>;

/// The judge of a reduction's candidates under one pipeline: whether a
/// candidate still fails. `still` judges it in this process. An IR's own
/// reducer that runs tests itself (MLIR's reduction tree runs a test
/// script) may judge by `command` instead, when given: a command line to
/// which the path of a file of the candidate is added, whose nonzero exit
/// says it still fails, as llvm-reduce's and mlir-reduce's test scripts do.
/// `in_child`, when given, runs the IR's `simplify` again in a child
/// process (the IR's text in, the smaller IR's text out, or nothing if that
/// process failed), there with `in_child` empty: for an IR whose reducer may
/// crash.
template <class IR>
struct Judge {
  Still<IR> still;
  std::function<std::vector<std::string>()> command = {};
  std::function<std::optional<std::string>(const std::string& ir)> in_child = {};
};

/// The judge of the runs of `pipeline`: each step of a reduction judges its
/// candidates under the pipeline kept so far.
template <class IR>
using Judges = std::function<Judge<IR>(const std::string& pipeline)>;

/// The judges of a predicate called in this process: `still_fails(pipeline,
/// ir)`, true when the run still fails.
template <class IR>
Judges<IR> judged_by(std::function<bool(const std::string& pipeline, const IR& ir)> still_fails) {
  return [still_fails = std::move(still_fails)](const std::string& pipeline) {
    return Judge<IR>{.still = [still_fails, pipeline](const IR& ir) { return still_fails(pipeline, ir); }};
  };
}

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

/// How a reduction goes beyond its judges: `improved` is told each smaller
/// run found, so that the best so far is kept if the reduction is stopped;
/// `stop` says when to stop (an interrupt); `steps`, which steps to take;
/// `outside_runs`, how many tries judges ran outside this process (by
/// command), for the record.
template <class IR>
struct Course {
  std::function<void(const std::string& pipeline, const IR& ir)> improved = {};
  Stop stop = [] { return false; };
  Steps steps = {};
  std::function<std::size_t()> outside_runs = [] { return std::size_t{0}; };
};

/// Reduces the failing run of `pipeline` on `ir`: `judges` judge the
/// candidates (`judged_by(still_fails)` for a predicate in this process).
/// The pipeline is given as read by its reader (`planned_steps`, or the
/// IR's own: MLIR's), so that no text is read here.
template <Reducible IR>
Reduced<IR> reduce(std::vector<Step> pipeline, IR ir, const Judges<IR>& judges, Progress& progress,
                   const Course<IR>& course = {}) {
  using Traits = ReduceTraits<IR>;
  std::vector<Step> passes = std::move(pipeline);
  Reduced<IR> out{.pipeline = pipeline_text(passes), .ir = std::move(ir), .records = {}, .runs = 0, .interrupted = false};
  const auto start = std::chrono::steady_clock::now();
  const std::size_t outside_before = course.outside_runs();
  auto runs = [&] { return out.runs + (course.outside_runs() - outside_before); };
  auto record = [&](std::string step, bool done) {
    Record r{.step = std::move(step),
             .passes = pass_count(passes),
             .size = Traits::size(out.ir),
             .runs = runs(),
             .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    progress.step(r, done);
    if (done) out.records.push_back(std::move(r));
  };
  const Stop stop = course.stop ? course.stop : Stop([] { return false; });
  // Every judged candidate; a smaller one that fails becomes the best.
  auto judge = [&](const std::string& candidate_pipeline, const IR& candidate, const std::string& step) {
    if (stop()) return false;
    ++out.runs;
    const bool fails = judges(candidate_pipeline).still(candidate);
    if (out.runs % 8 == 0) record(step, false);
    return fails && !stop();
  };
  auto accept = [&](std::string candidate_pipeline, IR candidate) {
    out.pipeline = std::move(candidate_pipeline);
    out.ir = std::move(candidate);
    if (course.improved) course.improved(out.pipeline, out.ir);
  };
  record("input", true);

  auto reduce_pipeline = [&] {
    // Later passes first: of a pass and the earlier one it requires, the
    // earlier (the one that runs first, where a failure may already be) stays.
    std::optional<std::vector<Step>> fewer = keep_failing<std::vector<Step>>(
        pass_count(passes), [&](const std::vector<bool>& keep) { return std::optional(kept_steps(passes, keep)); },
        [&](const std::vector<Step>& candidate) { return judge(pipeline_text(candidate), out.ir, "pipeline"); }, stop,
        Order::last_to_first);
    if (fewer) {
      passes = std::move(*fewer);
      accept(pipeline_text(passes), out.ir);
    }
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
    // The judge of this pipeline, its predicate counted as every try is.
    Judge<IR> inside = judges(out.pipeline);
    inside.still = [&](const IR& candidate) { return judge(out.pipeline, candidate, "inside functions"); };
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
    if (course.steps.pipeline) changed = reduce_pipeline();
    if (course.steps.functions && !stop()) changed = reduce_functions() || changed;
    if (course.steps.inside && !stop()) changed = simplify() || changed;
    if (!changed) break;
  }
  out.interrupted = stop();
  out.runs = runs();
  progress.end();
  return out;
}

}  // namespace passline::reduce
