// passline.mlir's implementation: MLIR's parser, printer, verifier and pass
// registry behind the module's interface.
module;

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <thread>
#include <unordered_map>
#include <vector>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <llvm/ADT/Hashing.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/OpDefinition.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/IR/Verifier.h>
#include <mlir/InitAllDialects.h>
#include <mlir/InitAllExtensions.h>
#include <mlir/InitAllPasses.h>
#include <mlir/Parser/Parser.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Pass/PassRegistry.h>

module passline.mlir;

import passline;
import passline.support;

namespace passline::mlir {

namespace {
bool is_nesting(::mlir::Pass& pass);
std::string printed(::mlir::Pass& pass);

/// The passes of a run that failed, and on what: MLIR's pass manager says
/// only that the run did, and a nest (`func.func(cse,canonicalize)`) is named
/// by the pass in it that failed. One per pass manager, whose nested passes
/// may fail on several threads at once.
class FailedPasses final : public ::mlir::PassInstrumentation {
 public:
  void runAfterPassFailed(::mlir::Pass* pass, ::mlir::Operation* op) override {
    if (is_nesting(*pass)) return;  // it fails after the pass in it
    const std::lock_guard lock(mutex_);
    failed_.emplace_back(op, printed(*pass));
  }

  /// The pass that failed on the first operation below `top` (pre-order,
  /// as one thread runs them: the same on any number of threads, since MLIR
  /// hands out operations in order and runs those it has handed out), or
  /// nothing; forgets the run.
  std::optional<std::string> take(::mlir::Operation* top) {
    const std::lock_guard lock(mutex_);
    std::optional<std::string> first;
    if (!failed_.empty()) {
      top->walk<::mlir::WalkOrder::PreOrder>([&](::mlir::Operation* op) {
        for (const auto& [where, pass] : failed_) {
          if (where != op) continue;
          first = pass;
          return ::mlir::WalkResult::interrupt();
        }
        return ::mlir::WalkResult::advance();
      });
    }
    failed_.clear();
    return first;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<::mlir::Operation*, std::string>> failed_;
};

/// A pass manager, and what it tells of a run that failed.
struct KeptManager {
  std::unique_ptr<::mlir::PassManager> manager;
  FailedPasses* failed = nullptr;  // owned by `manager`; a nest's only
};
}  // namespace

Module::Module() : functions_mutex_(std::make_unique<std::mutex>()) {}
Module::Module(::mlir::OwningOpRef<::mlir::ModuleOp> module)
    : module_(std::move(module)), functions_mutex_(std::make_unique<std::mutex>()) {}
Module::Module(const Module& other) : Module(other.module_ ? other.op().clone() : nullptr) {}
Module::Module(Module&& other) noexcept = default;
Module& Module::operator=(Module&& other) noexcept = default;
Module::~Module() = default;

namespace {

std::string_view view(llvm::StringRef text) { return {text.data(), text.size()}; }
llvm::StringRef ref(std::string_view text) { return {text.data(), text.size()}; }

/// Registers MLIR's passes with MLIR, once.
void register_mlir_passes() {
  static std::once_flag once;
  std::call_once(once, [] { ::mlir::registerAllPasses(); });
}

/// One diagnostic of MLIR's, as passline reports it.
struct Collected {
  Severity severity;
  std::string location;  // `file:line:col`, or empty
  std::string message;
};

/// Where the diagnostics MLIR emits on this thread go while a pass of MLIR's
/// runs (or text parses) under `CollectDiagnostics`.
thread_local std::vector<Collected>* collected = nullptr;

/// `file:line:col` for a location that has one, else nothing.
std::string position_of(::mlir::Location location) {
  if (auto file = ::mlir::dyn_cast<::mlir::FileLineColLoc>(location)) {
    return std::string(view(file.getFilename().getValue())) + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  }
  if (auto named = ::mlir::dyn_cast<::mlir::NameLoc>(location)) return position_of(named.getChildLoc());
  if (auto fused = ::mlir::dyn_cast<::mlir::FusedLoc>(location)) {
    for (::mlir::Location part : fused.getLocations()) {
      if (std::string position = position_of(part); !position.empty()) return position;
    }
  }
  if (auto call = ::mlir::dyn_cast<::mlir::CallSiteLoc>(location)) return position_of(call.getCallee());
  return {};
}

Severity severity_of(::mlir::DiagnosticSeverity severity) {
  switch (severity) {
    case ::mlir::DiagnosticSeverity::Error:
      return Severity::error;
    case ::mlir::DiagnosticSeverity::Warning:
      return Severity::warning;
    default:
      return Severity::note;
  }
}

/// A diagnostic's text without the line break MLIR may end it with.
std::string text_of(const ::mlir::Diagnostic& diagnostic) {
  std::string text = diagnostic.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

/// Collects what MLIR emits on this thread while it lives (a handler for
/// each thread that runs a pass; each takes only its own thread's). With
/// `pass_on`, what it collected goes on to the handlers installed before it
/// (the tool's, which print or check it); without, it stops here.
class CollectDiagnostics {
 public:
  CollectDiagnostics(::mlir::MLIRContext* context, bool pass_on)
      : outer_(collected), handler_(context, [this, pass_on](::mlir::Diagnostic& diagnostic) -> ::mlir::LogicalResult {
          if (collected != &diagnostics_) return ::mlir::failure();  // another thread's, or an outer run's
          diagnostics_.push_back(Collected{severity_of(diagnostic.getSeverity()), position_of(diagnostic.getLocation()),
                                           text_of(diagnostic)});
          for (const ::mlir::Diagnostic& note : diagnostic.getNotes()) {
            diagnostics_.push_back(Collected{Severity::note, position_of(note.getLocation()), text_of(note)});
          }
          return ::mlir::failure(pass_on);
        }),
        pass_on_(pass_on) {
    collected = &diagnostics_;
  }
  CollectDiagnostics(const CollectDiagnostics&) = delete;
  CollectDiagnostics& operator=(const CollectDiagnostics&) = delete;
  ~CollectDiagnostics() { collected = outer_; }

  /// The first error as one line, `file:line:col: error: message`, or
  /// nothing when MLIR reported none.
  std::optional<std::string> first_error() const {
    for (const Collected& d : diagnostics_) {
      if (d.severity == Severity::error) return (d.location.empty() ? "" : d.location + ": ") + "error: " + d.message;
    }
    return std::nullopt;
  }
  /// Hands what was collected to passline's diagnostics (a pass of MLIR's
  /// may emit an error and still succeed: the run then has an error),
  /// marked shown when MLIR's own handlers had it too.
  void report_to(Diagnostics& diagnostics) const {
    for (const Collected& d : diagnostics_) {
      diagnostics.report(Diagnostic{.severity = d.severity, .location = d.location, .message = d.message, .shown = pass_on_});
    }
  }

 private:
  std::vector<Collected> diagnostics_;
  std::vector<Collected>* outer_;
  ::mlir::ScopedDiagnosticHandler handler_;
  bool pass_on_;
};

/// An operation of a module's body that function passes run on: one
/// isolated from above, as MLIR's nesting asks of the operations it runs a
/// pass on. A symbol or not: an anonymous `spirv.module` or `module {}` is
/// not one to MLIR (SymbolOpInterface leaves out an optional symbol that has
/// no name), and mlir-opt runs the passes anchored on it there too.
bool is_function(::mlir::Operation& op) { return op.hasTrait<::mlir::OpTrait::IsIsolatedFromAbove>(); }

}  // namespace

const ConfigKey<bool> verify_passes =
    register_config("mlir.verify", true,
                    "MLIR's passes verify the operation they ran on after each run, as mlir-opt's --verify-each");

const ConfigKey<bool> emit_diagnostics = register_config(
    "mlir.emit-diagnostics", false,
    "what MLIR's passes emit goes on to the MLIR context's own handlers too, in a one-thread run's order "
    "(passline-mlir-opt's print it with its source line, or check it against expected-* comments)");

const ConfigKey<bool> recover_crashes = register_config(
    "mlir.recover-crashes", false,
    "an MLIR pass that crashes (a signal) fails as a failing pass does, as MLIR's crash reproducer recovers "
    "(passline-mlir-opt's --reproducer sets it); the process is then left only to report it");

namespace {

/// What a run must have loaded before it starts: the dialects that the
/// passes of its pipeline depend on (Pass::getDependentDialects).
using Dialects = std::shared_ptr<const ::mlir::DialectRegistry>;

Dialects dependent_dialects(const ::mlir::OpPassManager& manager) {
  auto dialects = std::make_shared<::mlir::DialectRegistry>();
  manager.getDependentDialects(*dialects);
  return dialects;
}

/// One MLIR pass (or the passes MLIR nests below one operation), made once
/// with its options, run on a module or on one function at a time: each run
/// has a PassManager of its own (a pass manager holds the state of a run,
/// and functions run on several threads at once).
class MlirPassRunner {
 public:
  /// Pass or pipeline `name` of MLIR's registry with `options` in MLIR's
  /// syntax, on `anchor` (nested below it where the pass asks, as
  /// `mlir-opt --name` nests it; `Explicit`: not), whose runs load
  /// `dialects` first (by default, what its passes depend on).
  MlirPassRunner(std::string_view name, std::string_view options, std::string_view anchor,
                 ::mlir::OpPassManager::Nesting nesting = ::mlir::OpPassManager::Nesting::Implicit,
                 Dialects dialects = nullptr)
      : name_(name), prototype_(ref(anchor), nesting), dialects_(std::move(dialects)) {
    register_mlir_passes();
    std::string error;
    llvm::raw_string_ostream stream(error);
    auto report = [&](const llvm::Twine& message) {
      stream << message;
      return ::mlir::failure();
    };
    // LLVM's option parsers print some errors to stderr themselves and hand on none.
    auto refused = [&](std::string_view what) {
      return MlirError(std::string(what) + " '" + std::string(name) + "': " +
                       (error.empty() ? "MLIR's option parser refused '" + std::string(options) + "'" : error));
    };
    if (const ::mlir::PassInfo* info = ::mlir::PassInfo::lookup(ref(name))) {
      if (::mlir::failed(info->addToPipeline(prototype_, ref(options), report))) throw refused("pass");
    } else if (const ::mlir::PassPipelineInfo* pipeline = ::mlir::PassPipelineInfo::lookup(ref(name))) {
      if (::mlir::failed(pipeline->addToPipeline(prototype_, ref(options), report))) throw refused("pipeline");
    } else {
      throw MlirError("MLIR has no pass '" + std::string(name) + "'");
    }
    if (!dialects_) dialects_ = dependent_dialects(prototype_);
  }

  /// The passes of `prototype`, passline's pass `name`, whose runs load
  /// `dialects` first (its pipeline's).
  MlirPassRunner(std::string name, ::mlir::OpPassManager prototype, Dialects dialects)
      : name_(std::move(name)), prototype_(std::move(prototype)), dialects_(std::move(dialects)) {}

  /// Loads what the pass's pipeline depends on into the module's context:
  /// on the calling thread, before the pass runs on anything.
  void load_dialects(const Module& module) const {
    if (module) passline::mlir::load_dialects(*dialects_, *module.op().getContext());
  }

  /// A pass manager of this runner's passes for `context`, set up by
  /// `instrumentation` (none: null): one serves one run of the pass at a
  /// time, and its passes are initialized on its first run.
  KeptManager manager(::mlir::MLIRContext* context, const MlirInstrumentation* instrumentation) const {
    KeptManager made;
    made.manager = std::make_unique<::mlir::PassManager>(context, prototype_.getOpAnchorName(),
                                                         ::mlir::OpPassManager::Nesting::Implicit);
    static_cast<::mlir::OpPassManager&>(*made.manager) = prototype_;
    // Only a nest needs to be told which of its passes failed.
    if (name_.find('(') != std::string::npos) {
      auto failed = std::make_unique<FailedPasses>();
      made.failed = failed.get();
      made.manager->addInstrumentation(std::move(failed));
    }
    if (instrumentation != nullptr) instrumentation->setup(*made.manager);
    return made;
  }

  /// Runs the pass on `op` with `kept`, one of its managers; throws MlirError
  /// with MLIR's first error if it fails. What MLIR emits goes to `ctx`'s
  /// diagnostics (on a run that fails, only with `emit_diagnostics`: the
  /// error is the exception's message otherwise).
  void run(::mlir::Operation* op, KeptManager& kept, PassContext& ctx) const {
    ::mlir::PassManager& manager = *kept.manager;
    manager.enableVerifier(ctx.config.get(verify_passes));
    const bool pass_on = ctx.config.get(emit_diagnostics);
    const CollectDiagnostics diagnostics(op->getContext(), pass_on);
    bool failed = true;
    if (ctx.config.get(recover_crashes)) {
      // LLVM's recovery, as MLIR's crash reproducer uses it: a signal in the
      // pass returns here instead of ending the process.
      llvm::CrashRecoveryContext::Enable();
      llvm::CrashRecoveryContext recovery;
      if (!recovery.RunSafely([&] { failed = ::mlir::failed(manager.run(op)); })) {
        throw MlirError("MLIR pass '" + name_ + "' crashed");
      }
    } else {
      failed = ::mlir::failed(manager.run(op));
    }
    if (!failed || pass_on) diagnostics.report_to(*ctx.diagnostics);
    const std::optional<std::string> failed_pass = kept.failed != nullptr ? kept.failed->take(op) : std::nullopt;
    if (failed) {
      const std::optional<std::string> error = diagnostics.first_error();
      // A nest is named by the pass in it that failed.
      const std::string which = failed_pass.value_or(name_);
      throw MlirError(error.value_or("MLIR pass '" + which + "' failed without a diagnostic"),
                      pass_on && error.has_value());
    }
  }

  /// The pass's own options with their defaults, as MLIR prints the pass:
  /// `canonicalize{max-iterations=10 top-down=true}`.
  std::string textual() const {
    std::string text;
    llvm::raw_string_ostream stream(text);
    for (::mlir::Pass& pass : const_cast<::mlir::OpPassManager&>(prototype_).getPasses()) {
      pass.printAsTextualPipeline(stream);
    }
    return text;
  }

  /// The operation the pass is anchored on, where it is one pass that is.
  std::optional<std::string> anchor() const {
    auto& passes = const_cast<::mlir::OpPassManager&>(prototype_);
    if (passes.size() != 1) return std::nullopt;
    const std::optional<llvm::StringRef> on = passes.getPasses().begin()->getOpName();
    return on ? std::optional(on->str()) : std::nullopt;
  }

  /// Adds the dialects the pass depends on to `dialects`.
  void dependent_dialects_into(::mlir::DialectRegistry& dialects) const { prototype_.getDependentDialects(dialects); }


 private:
  std::string name_;
  ::mlir::OpPassManager prototype_;
  Dialects dialects_;
};

/// The MlirInstrumentation among `ctx`'s instruments, or null.
const MlirInstrumentation* instrumentation_of(const PassContext& ctx) {
  for (const std::shared_ptr<Instrument>& instrument : ctx.instruments) {
    if (const auto* found = dynamic_cast<const MlirInstrumentation*>(instrument.get())) return found;
  }
  return nullptr;
}

/// The pass managers of one run of a function pass of MLIR's over a
/// module's functions: made when a thread first needs one, each serving one
/// function at a time (a thread that runs another function while it waits
/// inside a pass takes another), so that the passes are made and
/// initialized once per thread of the run, not once per function; gone with
/// the run.
class RunManagers {
 public:
  RunManagers(const MlirPassRunner& runner, ::mlir::MLIRContext* context, const MlirInstrumentation* instrumentation)
      : runner_(runner), context_(context), instrumentation_(instrumentation) {}

  /// Runs the pass on `op` with an idle manager of the run's, or a new one.
  void run(::mlir::Operation* op, PassContext& ctx) {
    KeptManager kept;
    {
      const std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        kept = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!kept.manager) kept = runner_.manager(context_, instrumentation_);
    struct GiveBack {
      RunManagers& to;
      KeptManager& kept;
      ~GiveBack() {
        const std::lock_guard lock(to.mutex_);
        to.idle_.push_back(std::move(kept));
      }
    } give_back{*this, kept};
    runner_.run(op, kept, ctx);
  }

 private:
  const MlirPassRunner& runner_;
  ::mlir::MLIRContext* context_;
  const MlirInstrumentation* instrumentation_;
  std::mutex mutex_;
  std::vector<KeptManager> idle_;
};

/// While a function pass of MLIR's runs on the functions of a module with
/// `emit_diagnostics`, MLIR's ParallelDiagnosticHandler holds what each
/// function's run emits and hands it on in the functions' order when the
/// pass is done, whatever the threads did first.
class InFunctionOrder {
 public:
  explicit InFunctionOrder(const Module& module) : handler_(module.op().getContext()) {
    const std::vector<::mlir::Operation*>& functions = module.functions();
    for (std::size_t i = 0; i < functions.size(); ++i) order_.emplace(functions[i], i);
  }

  /// What the calling thread emits while it lives is `function`'s.
  class Scope {
   public:
    Scope(InFunctionOrder* order, ::mlir::Operation* function) : order_(order) {
      if (order_ != nullptr) order_->handler_.setOrderIDForThread(order_->order_.at(function));
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() {
      if (order_ != nullptr) order_->handler_.eraseOrderIDForThread();
    }

   private:
    InFunctionOrder* order_;
  };

 private:
  ::mlir::ParallelDiagnosticHandler handler_;
  std::unordered_map<const ::mlir::Operation*, std::size_t> order_;  // each function's place among the module's
};

/// What a function pass of MLIR's keeps while it runs on a module's
/// functions, for its calls on them.
struct OnFunctionsRun {
  OnFunctionsRun(const MlirPassRunner& runner, ::mlir::MLIRContext* context, const MlirInstrumentation* instrumentation)
      : managers(runner, context, instrumentation) {}
  RunManagers managers;
  std::optional<InFunctionOrder> in_order;
};

/// An MLIR pass run on each function of a module (each operation `anchor`
/// of its body; `any`: every function) as a passline function pass.
struct OnFunctions {
  std::shared_ptr<const MlirPassRunner> runner;
  std::string anchor;

  /// Before any function: the dialects loaded, on the calling thread, so
  /// that no run on another thread changes the context; the run's pass
  /// managers, set up by the context's MlirInstrumentation; and with
  /// `emit_diagnostics`, what the runs emit kept in the functions' order.
  std::unique_ptr<OnFunctionsRun> prepare(const Module& module, PassContext& ctx) const {
    runner->load_dialects(module);
    auto run = std::make_unique<OnFunctionsRun>(*runner, module ? module.op().getContext() : nullptr,
                                                instrumentation_of(ctx));
    if (module && ctx.config.get(emit_diagnostics)) run->in_order.emplace(module);
    return run;
  }

  ::mlir::Operation* operator()(::mlir::Operation* function, const Module&, PassContext& ctx,
                                std::unique_ptr<OnFunctionsRun>& run) const {
    if (anchor != "any" && view(function->getName().getStringRef()) != anchor) return function;
    const InFunctionOrder::Scope in_order(run->in_order ? &*run->in_order : nullptr, function);
    run->managers.run(function, ctx);
    return function;
  }
};

/// Splits `key=value key=value` (MLIR's printed options) at the spaces that
/// are outside braces, brackets, parentheses and quotes.
std::vector<std::pair<std::string, std::string>> split_options(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> options;
  std::size_t depth = 0;
  bool quoted = false;
  std::size_t start = 0;
  auto take = [&](std::size_t end) {
    const std::string_view item = text.substr(start, end - start);
    if (const std::size_t equals = item.find('='); equals != std::string_view::npos) {
      options.emplace_back(std::string(item.substr(0, equals)), std::string(item.substr(equals + 1)));
    } else if (!item.empty()) {
      options.emplace_back(std::string(item), std::string());
    }
    start = end + 1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '{' || c == '(' || c == '[') ++depth;
    if ((c == '}' || c == ')' || c == ']') && depth > 0) --depth;
    if (c == ' ' && depth == 0) take(i);
  }
  take(text.size());
  return options;
}

/// An option's passline type, read from its default as MLIR prints it.
Value value_of(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  if (!text.empty() && text.find_first_not_of("-0123456789") == std::string::npos &&
      text.find('-', 1) == std::string::npos && text != "-") {
    try {
      return static_cast<std::int64_t>(std::stoll(text));
    } catch (const std::out_of_range&) {  // an unsigned default beyond int64: kept as text
    }
  }
  return text;
}

/// The options of MLIR pass `name` in `textual`, pipeline text as MLIR
/// prints it, `key=value`: the text in the braces after the pass's name,
/// which MLIR may have nested (`func.func(name{...})`).
std::vector<std::pair<std::string, std::string>> printed_options(std::string_view name, std::string_view textual) {
  const std::size_t at = textual.find(std::string(name) + "{");
  if (at == std::string::npos) return {};
  const std::size_t open = at + name.size();
  std::size_t depth = 0;
  std::size_t close = open;
  for (; close < textual.size(); ++close) {
    if (textual[close] == '{') ++depth;
    if (textual[close] == '}' && --depth == 0) break;
  }
  return split_options(std::string_view(textual).substr(open + 1, close - open - 1));
}

/// The options of MLIR pass `name` as made in `runner`.
std::vector<std::pair<std::string, std::string>> printed_options(std::string_view name, const MlirPassRunner& runner) {
  return printed_options(name, runner.textual());
}

/// The options of MLIR pass `name` in `textual` whose values are not MLIR's
/// defaults, as passline's option values: what the pass prints with, so
/// that its text reads back as the same pass (MLIR takes an option printed
/// at its default as given, and some passes then act otherwise).
/// `defaults`: the pass's printed options as MLIR makes it without any.
std::vector<std::pair<std::string, Value>> given_options(
    std::string_view name, std::string_view textual, const std::vector<std::pair<std::string, std::string>>& defaults) {
  std::vector<std::pair<std::string, Value>> given;
  for (const auto& [key, value] : printed_options(name, textual)) {
    if (std::ranges::find(defaults, std::pair{key, value}) != defaults.end()) continue;
    // MLIR writes a string with a space in braces; passline's text quotes it instead.
    const bool braced = value.size() > 2 && value.front() == '{' && value.back() == '}' &&
                        value.find(' ') < value.find_first_of("{'\"", 1);
    given.emplace_back(key, braced ? value.substr(1, value.size() - 2) : value);
  }
  return given;
}

/// The same, against the options of `name` as MLIR makes it without any.
std::vector<std::pair<std::string, Value>> given_options(std::string_view name, std::string_view textual) {
  return given_options(name, textual, printed_options(name, MlirPassRunner(name, {}, "builtin.module")));
}

/// `made`, MLIR's pass `name` as `textual` prints it, printed with the
/// options it was given (`given_options`), so that its text reads back as
/// the pass it is: `-canonicalize=max-iterations=1` prints as --passes prints
/// `canonicalize{max-iterations=1}`.
Pass<Module> with_given_options(Pass<Module> made, std::string_view name, std::string_view textual) {
  std::vector<std::pair<std::string, Value>> given = given_options(name, textual);
  return given.empty() ? made : made.with_options(std::move(given));
}

/// The options of MLIR pass `name`, from its printed defaults.
std::vector<OptionSpec> options_of(std::string_view name, const std::vector<std::pair<std::string, std::string>>& defaults) {
  std::vector<OptionSpec> specs;
  for (const auto& [key, value] : defaults) {
    specs.push_back(OptionSpec{.name = key, .default_value = value_of(value),
                               .description = "an option of MLIR's pass '" + std::string(name) + "'"});
  }
  return specs;
}

/// passline's option values as MLIR's option text.
std::string options_text(const std::vector<std::pair<std::string, Value>>& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    if (!text.empty()) text += ' ';
    text += name + "=";
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, bool>) {
            text += v ? "true" : "false";
          } else if constexpr (std::is_same_v<V, std::string>) {
            // As MLIR's printer writes a string option (in braces where it has a space).
            llvm::raw_string_ostream stream(text);
            ::mlir::detail::pass_options::printOptionValue<llvm::cl::parser<std::string>>(stream, v);
          } else {
            text += std::to_string(v);
          }
        },
        value);
  }
  return text;
}

/// MLIR's description of pass `name`, for listings.
std::string_view summary_of(std::string_view name) {
  if (const ::mlir::PassInfo* info = ::mlir::PassInfo::lookup(ref(name))) return view(info->getPassDescription());
  if (const ::mlir::PassPipelineInfo* info = ::mlir::PassPipelineInfo::lookup(ref(name))) {
    return view(info->getPassDescription());
  }
  return {};
}

/// MLIR's pass or pipeline `name` as passline describes it.
PassInfo described(std::string_view name) { return PassInfo{.name = name, .opt_level = 0, .summary = summary_of(name)}; }

/// `runner`'s passes as a passline pass over the module, described by `info`.
Pass<Module> module_level(std::shared_ptr<const MlirPassRunner> runner, const PassInfo& info) {
  return module_pass<Module>(info, [runner](Module module, PassContext& ctx) {
    runner->load_dialects(module);
    KeptManager kept = runner->manager(module.op().getContext(), instrumentation_of(ctx));
    runner->run(module.op().getOperation(), kept, ctx);
    return module;
  });
}

}  // namespace

/// llvm::ThreadPoolInterface over TBB: a task group of TBB's for each of
/// LLVM's (and one for tasks in none), run in an arena of the pool's size. A
/// thread that waits for a group runs its tasks meanwhile, as LLVM asks.
/// What the caller did before a task is handed over happens before the task,
/// and what the task did happens before a wait for it returns: TBB orders
/// them, and atomics of the pool's own say so where ThreadSanitizer sees it
/// (TBB's own synchronisation is not built with it).
class ThreadPool::Impl final : public llvm::ThreadPoolInterface {
 public:
  explicit Impl(std::size_t threads)
      : threads_(threads == 0 ? std::max(1U, std::thread::hardware_concurrency()) : static_cast<unsigned>(threads)),
        arena_(static_cast<int>(threads_)) {}
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() override { wait(); }

  void wait() override {
    std::vector<Group*> all;
    {
      const std::lock_guard lock(mutex_);
      for (auto& [key, group] : groups_) all.push_back(group.get());
    }
    for (Group* group : all) wait_for(*group);
  }
  void wait(llvm::ThreadPoolTaskGroup& group) override { wait_for(group_of(&group)); }
  unsigned getMaxConcurrency() const override { return threads_; }

 private:
  struct Group {
    tbb::task_group tasks;
    passline::support::Handoff order;
  };

  void asyncEnqueue(std::function<void()> task, llvm::ThreadPoolTaskGroup* group) override {
    Group& to = group_of(group);
    to.order.give();
    arena_.execute([&to, &task] {
      to.tasks.run([&to, task = std::move(task)] {
        to.order.take();
        task();
        to.order.give();
      });
    });
  }

  void wait_for(Group& group) {
    arena_.execute([&group] { group.tasks.wait(); });
    group.order.take();
  }

  Group& group_of(const llvm::ThreadPoolTaskGroup* group) {
    const std::lock_guard lock(mutex_);
    std::unique_ptr<Group>& made = groups_[group];
    if (!made) made = std::make_unique<Group>();
    return *made;
  }

  unsigned threads_;
  tbb::task_arena arena_;
  std::mutex mutex_;
  std::map<const llvm::ThreadPoolTaskGroup*, std::unique_ptr<Group>> groups_;
};

ThreadPool::ThreadPool(std::size_t threads) : impl_(std::make_unique<Impl>(threads)) {}
ThreadPool::~ThreadPool() = default;
llvm::ThreadPoolInterface& ThreadPool::llvm() { return *impl_; }

const std::vector<::mlir::Operation*>& Module::functions() const {
  static const std::vector<::mlir::Operation*> none;
  if (!module_) return none;
  // Operations of one name are all functions or none: the name's answer is
  // kept while it repeats (a body of func.func asks once).
  std::optional<::mlir::OperationName> last;
  bool last_is_function = false;
  auto function = [&](::mlir::Operation& op) {
    if (last != op.getName()) {
      last = op.getName();
      last_is_function = is_function(op);
    }
    return last_is_function;
  };
  const std::lock_guard lock(*functions_mutex_);
  // The list read last is usually still right: checked in place, no copy.
  std::size_t same = 0;
  bool changed = false;
  for (::mlir::Operation& op : op().getBody()->getOperations()) {
    if (!function(op)) continue;
    if (same == functions_.size() || functions_[same] != &op) {
      changed = true;
      break;
    }
    ++same;
  }
  if (!changed && same == functions_.size()) return functions_;
  functions_.clear();
  for (::mlir::Operation& op : op().getBody()->getOperations()) {
    if (function(op)) functions_.push_back(&op);
  }
  return functions_;
}

void register_passes() { register_mlir_passes(); }

::mlir::DialectRegistry registry_of_dialects() {
  ::mlir::DialectRegistry registry;
  ::mlir::registerAllDialects(registry);
  ::mlir::registerAllExtensions(registry);
  return registry;
}

namespace {

/// Parses the text of `buffer`, which the source manager keeps for the
/// locations MLIR's diagnostics print.
Module parse_buffer(std::unique_ptr<llvm::MemoryBuffer> buffer, std::string_view name, ::mlir::MLIRContext& context) {
  auto sources = std::make_shared<llvm::SourceMgr>();
  sources->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  // MLIR's own handler writes the error as mlir-opt does, source line and caret included.
  std::string message;
  llvm::raw_string_ostream stream(message);
  ::mlir::SourceMgrDiagnosticHandler handler(*sources, &context, stream);
  const ::mlir::ParserConfig config(&context);
  ::mlir::OwningOpRef<::mlir::Operation*> read = passline::mlir::read(sources, config);
  auto module = ::mlir::OwningOpRef<::mlir::ModuleOp>(read ? ::mlir::cast<::mlir::ModuleOp>(read.release()) : nullptr);
  if (!module) {
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw MlirError(message.empty() ? std::string(name) + ": not an MLIR module" : message);
  }
  return Module(std::move(module));
}

}  // namespace

Module parse(std::string_view text, std::string_view name, ::mlir::MLIRContext& context) {
  return parse_buffer(llvm::MemoryBuffer::getMemBufferCopy(ref(text), ref(name)), name, context);
}

Module parse_file(const std::string& path, ::mlir::MLIRContext& context) {
  // Read (or mapped) once and parsed where it lies, as mlir-opt reads its input.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) throw MlirError(path + ": cannot read: " + file.getError().message());
  return parse_buffer(std::move(*file), path, context);
}

std::string print(const Module& module) {
  std::string text;
  if (!module) return text;
  llvm::raw_string_ostream stream(text);
  write(module.op(), stream);
  stream << '\n';
  stream.flush();
  return text;
}

std::uint64_t fingerprint(const Module& module) {
  if (!module) return 0;
  llvm::hash_code hash = llvm::hash_value(0);
  module.op()->walk([&](::mlir::Operation* op) {
    hash = llvm::hash_combine(hash, op, op->getName().getAsOpaquePointer(), op->getRawDictionaryAttrs().getAsOpaquePointer(),
                              op->hashProperties(), op->getNumRegions(), op->getLoc().getAsOpaquePointer());
    for (::mlir::Value operand : op->getOperands()) hash = llvm::hash_combine(hash, operand.getAsOpaquePointer());
    for (::mlir::Type type : op->getResultTypes()) hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
    for (::mlir::Block* successor : op->getSuccessors()) hash = llvm::hash_combine(hash, successor);
    for (::mlir::Region& region : op->getRegions()) {
      for (::mlir::Block& block : region) {
        hash = llvm::hash_combine(hash, &block);
        for (::mlir::BlockArgument argument : block.getArguments()) {
          hash = llvm::hash_combine(hash, argument.getType().getAsOpaquePointer());
        }
      }
    }
  });
  return static_cast<std::uint64_t>(static_cast<std::size_t>(hash));
}

void verify(const Module& module) {
  if (!module) return;
  const CollectDiagnostics diagnostics(module.op().getContext(), /*pass_on=*/false);
  if (::mlir::failed(::mlir::verify(module.op().getOperation()))) {
    throw MlirError(diagnostics.first_error().value_or("the module does not verify"));
  }
}

Pass<Module> pass(std::string_view name, std::string_view options) {
  auto runner = std::make_shared<const MlirPassRunner>(name, options, "builtin.module");
  const std::string textual = runner->textual();
  return with_given_options(module_level(std::move(runner), described(name)), name, textual);
}

Pass<Module> pass_on_functions(std::string_view name, std::string_view options, std::string_view anchor) {
  auto runner = std::make_shared<const MlirPassRunner>(name, options, anchor);
  const std::string textual = runner->textual();
  return with_given_options(passline::function_pass<Module>(
                                described(name), OnFunctions{.runner = std::move(runner), .anchor = std::string(anchor)}),
                            name, textual);
}

namespace {

/// Whether `pass` is MLIR's adaptor that runs the pass managers nested in a
/// pipeline (`func.func(...)`) on the operations they are anchored on: by
/// MLIR's pipeline text, where the adaptor alone has no argument and prints
/// as its pass managers (a pass without an argument prints `unknown<NAME>`).
bool is_nesting(::mlir::Pass& pass) {
  if (!pass.getArgument().empty()) return false;
  const std::string text = printed(pass);
  return !text.starts_with("unknown<") && text.find('(') != std::string::npos;
}

/// The pipeline text of a pass as MLIR prints it: `cse`, `func.func(cse)`.
std::string printed(::mlir::Pass& pass) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  pass.printAsTextualPipeline(stream);
  return text;
}

/// MLIR's pipeline `text` read by MLIR's parser, whose errors it throws as MlirError.
::mlir::OpPassManager parsed_pipeline(std::string_view text) {
  register_mlir_passes();
  std::string error;
  llvm::raw_string_ostream stream(error);
  ::mlir::FailureOr<::mlir::OpPassManager> parsed = ::mlir::parsePassPipeline(ref(text), stream);
  if (::mlir::failed(parsed)) {
    while (!error.empty() && error.back() == '\n') error.pop_back();
    throw MlirError(error);
  }
  return std::move(*parsed);
}

/// The elements at the top of MLIR pipeline text `anchor(e1,e2,...)`, each
/// as written, and whether it is a nested pipeline (`func.func(cse)`): the
/// text's structure as MLIR's pipeline parser reads it (a name ends at one
/// of `,(){`, options run to the matching `}`, a nested pipeline to its
/// `)`). For text MLIR's parser has read.
std::vector<std::pair<std::string, bool>> top_level_elements(std::string_view text) {
  std::vector<std::pair<std::string, bool>> elements;
  std::size_t depth = 0;  // inside the anchor's parentheses: 1
  std::size_t start = 0;
  bool nested = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{') {  // options: to the matching brace, nothing else counts there
      for (std::size_t braces = 1; braces > 0 && ++i < text.size();) {
        if (text[i] == '{') ++braces;
        if (text[i] == '}') --braces;
      }
    } else if (c == '(') {
      if (depth++ == 0) {
        start = i + 1;
      } else if (depth == 2) {
        nested = true;
      }
    } else if ((c == ',' && depth == 1) || (c == ')' && --depth == 0)) {
      const std::string_view element = llvm::StringRef(text.data() + start, i - start).trim();
      if (!element.empty()) elements.emplace_back(std::string(element), nested);
      start = i + 1;
      nested = false;
    }
  }
  return elements;
}

}  // namespace

Pass<Module> parse_mlir_pipeline(std::string_view text) {
  ::mlir::OpPassManager whole = parsed_pipeline(text);
  const std::string anchor(view(whole.getOpAnchorName()));
  if (anchor != "builtin.module" && anchor != "any") {
    throw MlirError("can't run '" + anchor + "' pass manager on 'builtin.module' op");
  }
  // Each element read again alone, as written: the same pass, its options
  // given as they were (MLIR takes an option printed at its default as
  // given). Nests that follow each other are one pass, as MLIR merges them
  // into one walk over the operations they nest on.
  const Dialects dialects = dependent_dialects(whole);
  const std::vector<std::pair<std::string, bool>> elements = top_level_elements(text);
  std::vector<Pass<Module>> passes;
  for (std::size_t i = 0; i < elements.size();) {
    const bool nested = elements[i].second;
    std::string group = elements[i].first;
    for (++i; nested && i < elements.size() && elements[i].second; ++i) group += "," + elements[i].first;
    ::mlir::OpPassManager prototype = parsed_pipeline(anchor + "(" + group + ")");
    std::string name;
    std::string textual;  // as MLIR prints it
    for (::mlir::Pass& pass : prototype.getPasses()) textual += (textual.empty() ? "" : ",") + printed(pass);
    if (nested) {
      name = textual;
    } else {
      name = llvm::StringRef(group).take_until([](char c) { return c == '{'; }).trim().str();
    }
    const PassInfo info{.name = name,
                        .opt_level = 0,
                        .summary = nested ? std::string_view("MLIR's passes nested on the operations named")
                                          : summary_of(name)};
    Pass<Module> made = module_level(std::make_shared<const MlirPassRunner>(name, std::move(prototype), dialects), info);
    passes.push_back(nested || ::mlir::PassInfo::lookup(llvm::StringRef(name)) == nullptr
                         ? std::move(made)
                         : with_given_options(std::move(made), name, textual));
  }
  return sequential<Module>(std::move(passes), {.name = anchor});
}

Pass<Module> from_pass_flags(const std::vector<std::pair<std::string, std::string>>& flags) {
  register_mlir_passes();
  // Each pass where it runs (its own anchor, as a manager that nests
  // nothing holds it; a pipeline's passes nest as they ask, on the module),
  // loading the dialects of the whole list first.
  auto all = std::make_shared<::mlir::DialectRegistry>();
  std::vector<std::optional<std::string>> anchors;
  for (const auto& [name, options] : flags) {
    const MlirPassRunner alone(name, options, "any", ::mlir::OpPassManager::Nesting::Explicit);
    alone.dependent_dialects_into(*all);
    anchors.push_back(alone.anchor());
  }
  const Dialects dialects = all;
  std::vector<Pass<Module>> passes;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const auto& [name, options] = flags[i];
    const bool on_functions = anchors[i] && *anchors[i] != "builtin.module";
    const std::string anchor = on_functions ? *anchors[i] : "builtin.module";
    auto runner = std::make_shared<const MlirPassRunner>(name, options, anchor,
                                                         ::mlir::OpPassManager::Nesting::Implicit, dialects);
    const std::string textual = runner->textual();
    Pass<Module> made = on_functions ? passline::function_pass<Module>(
                                           described(name), OnFunctions{.runner = std::move(runner), .anchor = anchor})
                                     : module_level(std::move(runner), described(name));
    passes.push_back(with_given_options(std::move(made), name, textual));
  }
  return sequential<Module>(std::move(passes), {.name = "builtin.module"});
}

bool is_mlir_pipeline(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t\n");
  if (start == std::string_view::npos) return false;
  const std::size_t paren = text.find('(', start);
  if (paren == std::string_view::npos) return false;
  const std::string_view anchor = text.substr(start, paren - start);
  return anchor == "builtin.module" || anchor == "any";
}


MlirPipeline read_mlir_pipeline(std::string_view text) {
  ::mlir::OpPassManager parsed = parsed_pipeline(text);
  MlirPipeline read{.anchor = std::string(view(parsed.getOpAnchorName())), .elements = {}};
  for (::mlir::Pass& pass : parsed.getPasses()) read.elements.emplace_back(printed(pass), is_nesting(pass));
  return read;
}

::mlir::DialectRegistry dependent_dialects(const Pass<Module>& pipeline) {
  ::mlir::DialectRegistry dialects;
  auto add = [&dialects](const auto& self, const Pass<Module>& pass) -> void {
    if (pass.is_pipeline()) {
      for (const Pass<Module>& inner : pass.passes()) self(self, inner);
      return;
    }
    const llvm::StringRef name = ref(pass.info().name);
    if (::mlir::PassInfo::lookup(name) == nullptr && ::mlir::PassPipelineInfo::lookup(name) == nullptr) return;
    MlirPassRunner(pass.info().name, {}, "builtin.module").dependent_dialects_into(dialects);
  };
  register_mlir_passes();
  add(add, pipeline);
  return dialects;
}

void load_dialects(const ::mlir::DialectRegistry& dialects, ::mlir::MLIRContext& context) {
  // Only on a thread that has the context to itself: loading a dialect
  // changes what every thread reads.
  context.appendDialectRegistry(dialects);
  for (llvm::StringRef name : dialects.getDialectNames()) context.getOrLoadDialect(name);
}

void print_registered_passes() {
  register_mlir_passes();
  // MLIR's registry is read only by its command-line parser, whose option
  // prints every pass and pipeline with their options as mlir-opt's help
  // does; each pass's name is a name of that option. A tool that declared
  // mlir-opt's flags has one already.
  llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
  std::optional<::mlir::PassPipelineCLParser> parser;
  if (!options.contains("canonicalize")) {
    parser.emplace("", "MLIR's passes and pipelines: in --passes by their names without the dashes, their options in "
                       "braces, e.g. canonicalize{max-iterations=3}");
  }
  const auto found = options.find("canonicalize");
  if (found == options.end()) throw MlirError("MLIR's passes cannot be listed");
  found->second->printOptionInfo(found->second->getOptionWidth());
  llvm::outs().flush();
}

Registry<Module>& registry() {
  static Registry<Module>& made = []() -> Registry<Module>& {
    static Registry<Module> registry;
    registry.resolve_unknown([](std::string_view name) -> std::optional<Registry<Module>::Resolved> {
      register_mlir_passes();
      if (::mlir::PassInfo::lookup(ref(name)) == nullptr && ::mlir::PassPipelineInfo::lookup(ref(name)) == nullptr) {
        return std::nullopt;
      }
      std::vector<std::pair<std::string, std::string>> defaults =
          printed_options(name, MlirPassRunner(name, {}, "builtin.module"));
      return Registry<Module>::Resolved{
          .info = described(name),
          .options = options_of(name, defaults),
          .factory = [name = std::string(name)](const auto& values) {
            return module_level(std::make_shared<const MlirPassRunner>(name, options_text(values), "builtin.module"),
                                described(name));
          },
          // Pipeline text hands MLIR's own option parser the text in the
          // braces; the pass prints with the values MLIR read that are not
          // its defaults, as MLIR prints them.
          .from_text = [name = std::string(name), defaults = std::move(defaults)](std::string_view text) {
            auto runner = std::make_shared<const MlirPassRunner>(name, text, "builtin.module");
            return std::pair{module_level(runner, described(name)), given_options(name, runner->textual(), defaults)};
          },
      };
    });
    return registry;
  }();
  return made;
}

}  // namespace passline::mlir

namespace passline {

void IRTraits<mlir::Module>::replace_function(mlir::Module& module, std::size_t i, Function function) {
  ::mlir::Operation* old = module.function(i);
  if (function == old) return;
  if (function->getBlock() != nullptr) {
    function->moveBefore(old);
  } else {
    old->getBlock()->getOperations().insert(::mlir::Block::iterator(old), function);
  }
  old->erase();
  module.set_function(i, function);
}

bool IRTraits<mlir::Module>::skips_optimization(const Function& function) {
  return static_cast<bool>(function->getDiscardableAttr("passline.skip_optimization"));
}

std::string IRTraits<mlir::Module>::print_function(const Function& function) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  function->print(stream);
  stream.flush();
  return text;
}

void IRTraits<mlir::Module>::check_threads(const mlir::Module& module, std::size_t threads) {
  if (!module || module.op().getContext()->isMultithreadingEnabled()) return;
  throw mlir::MlirError("function passes would run on " + std::to_string(threads) +
                        " threads in an MLIR context whose threading is off: enable it (or give the context a thread "
                        "pool), or run on one thread");
}

std::string_view IRTraits<mlir::Module>::function_name(const Function& function) {
  if (auto symbol = ::mlir::dyn_cast<::mlir::SymbolOpInterface>(function)) {
    const llvm::StringRef name = symbol.getName();
    return {name.data(), name.size()};
  }
  return {};
}

}  // namespace passline
