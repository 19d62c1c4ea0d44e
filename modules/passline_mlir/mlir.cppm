// passline.mlir: MLIR's IR and MLIR's own passes under passline.
//
//   mlir::MLIRContext context(passline::mlir::registry_of_dialects());
//   passline::mlir::Module module = passline::mlir::parse_file("in.mlir", context);
//   passline::Pass<passline::mlir::Module> pipeline =
//       passline::parse_pipeline("canonicalize,cse", passline::mlir::registry());
//   module = pipeline(std::move(module));
//
// An MLIR module is reached through a handle and changed in place by its
// passes, where the reference IR is a value. `Module` makes it one: it owns
// its `builtin.module`, a copy is a clone and a move hands the module on, so
// a pipeline given a copy leaves the caller's module as it was whatever
// happens, and one given the module by move costs no clone at all. Its
// IRTraits say it changes in place: nothing in passline keeps an old value of
// it; change is told by fingerprint.
//
// Every pass registered with MLIR (mlir::registerAllPasses) is a pass of
// `registry()` by its mlir-opt name, its options in MLIR's own syntax, and
// `MlirPass<"canonicalize">` is one as a static pass type. A pass of MLIR's
// that fails (signalPassFailure, an emitted error) throws `MlirError` with
// MLIR's diagnostic, which the pipeline reports as a PassError.
module;

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/Support/SourceMgr.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/DialectRegistry.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/OwningOpRef.h>
#include <mlir/Pass/PassManager.h>

export module passline.mlir;

import passline;

export namespace passline::mlir {

/// An MLIR module as a passline IR: owns its `builtin.module`. A copy is a
/// clone; a move hands the module on, leaving this one empty.
class Module {
 public:
  Module();
  explicit Module(::mlir::OwningOpRef<::mlir::ModuleOp> module);
  Module(const Module& other);
  Module& operator=(const Module& other) {
    if (this != &other) *this = Module(other);
    return *this;
  }
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  ~Module();

  /// The module; null when empty.
  ::mlir::ModuleOp op() const { return module_ ? const_cast<Module*>(this)->module_.get() : ::mlir::ModuleOp(); }
  ::mlir::ModuleOp operator->() const { return op(); }
  explicit operator bool() const { return static_cast<bool>(module_); }
  /// Gives the module up to the caller.
  ::mlir::OwningOpRef<::mlir::ModuleOp> release() && { return std::move(module_); }

  /// The functions of the module, for function passes: the operations of
  /// its body that are isolated from above (`func.func`, `spirv.module`,
  /// a nested `module`), in order. Read again when asked, so that a module pass may add or remove
  /// functions; the list changes only when the module's did.
  const std::vector<::mlir::Operation*>& functions() const;
  /// Function `i` of the list `functions()` last read: a loop over the
  /// functions reads the module once, not once per function.
  ::mlir::Operation* const& function(std::size_t i) const { return functions_[i]; }
  /// Puts `op` in the list in place of function `i`.
  void set_function(std::size_t i, ::mlir::Operation* op) { functions_[i] = op; }

 private:
  ::mlir::OwningOpRef<::mlir::ModuleOp> module_;
  mutable std::vector<::mlir::Operation*> functions_;
  std::unique_ptr<std::mutex> functions_mutex_;  // the list's: read again from several threads
};

/// An MLIR pass that failed, or MLIR text that does not parse: MLIR's
/// diagnostic, `file:line:col: error: message` (with the source line and a
/// caret under it for a parse error).
class MlirError : public std::runtime_error {
 public:
  explicit MlirError(const std::string& message, bool shown = false) : std::runtime_error(message), shown_(shown) {}
  /// Whether MLIR's own diagnostic handlers had the error already
  /// (`emit_diagnostics`): a tool whose handler printed it does not again.
  bool shown() const { return shown_; }

 private:
  bool shown_;
};

/// MLIR's thread pool over passline's (TBB's): a context given it
/// (`context.setThreadPool(pool.llvm())`, on a context made with threading
/// off) runs MLIR's own parallel loops on the threads passline's function
/// passes run on, with work stealing between them, instead of on a second
/// pool of its own. Outlives the context.
class ThreadPool {
 public:
  /// At most `threads` threads; 0 is one per hardware thread.
  explicit ThreadPool(std::size_t threads = 0);
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();
  llvm::ThreadPoolInterface& llvm();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// MLIR's own pass instrumentation in a passline run: among the context's
/// instruments, it has `setup` called on every MLIR pass manager that the
/// run's MLIR passes are run by, before the manager runs anything, to add
/// MLIR's instrumentation there (`PassManager::enableIRPrinting`,
/// `enableTiming`, `addInstrumentation`). MLIR's instrumentation then sees
/// what MLIR runs, the passes MLIR nests (`func.func(cse,canonicalize)`) on
/// each operation in MLIR's order included, and reports it in MLIR's formats:
/// passline-mlir-opt's `-mlir-print-ir-*`, `-mlir-timing` and
/// `-mlir-pass-pipeline-crash-reproducer` are this. It does not see
/// passline's own passes over the module (passline's instruments do). A
/// manager set up for it serves one run of one pass, and is gone with it;
/// `setup` may be called from several threads at once.
class MlirInstrumentation final : public Instrument {
 public:
  explicit MlirInstrumentation(std::function<void(::mlir::PassManager&)> setup) : setup_(std::move(setup)) {}
  void setup(::mlir::PassManager& manager) const { setup_(manager); }

 private:
  std::function<void(::mlir::PassManager&)> setup_;
};

/// Registers every pass of MLIR's with MLIR (mlir::registerAllPasses), once.
/// `registry()` and the functions that make MLIR's passes do it themselves;
/// a tool that declares mlir-opt's pass flags does it first.
void register_passes();

/// Every dialect MLIR registers (mlir::registerAllDialects), for a context
/// that reads any MLIR text, as mlir-opt's does.
::mlir::DialectRegistry registry_of_dialects();

/// MLIR's text or bytecode in `sources`' main buffer read as mlir-opt reads
/// its input (mlir::parseSourceFileForTool): the same operation, locations
/// and diagnostics. Where the context has threads (a thread pool, threading
/// on), the module's top-level operations are read on them, a share of the
/// text on each with MLIR's own parser, aliases and deferred locations
/// included, and the module is verified on them; where the text does not
/// split (file metadata `{-# ... #-}`, SSA values at the top level, one
/// operation, bytecode) or anything fails, MLIR's parser reads it whole with
/// the context's threading off, and reports what is wrong as it does. No
/// other thread may use the context meanwhile.
::mlir::OwningOpRef<::mlir::Operation*> read(const std::shared_ptr<llvm::SourceMgr>& sources,
                                           const ::mlir::ParserConfig& config, bool implicit_module = true);

/// `op` written as MLIR's printer writes it (`op->print(os, state)` with
/// an AsmState of `flags` and `resources`). Where the context has threads
/// and `op` is a module, each operation of its body is lent to a module of
/// its own, which MLIR's printer writes on one of them, and the module's
/// text is joined from their bodies, their aliases (`#map`, debug
/// information's `#loc`) named as MLIR names them in the whole; where the
/// text cannot tell what MLIR would write (docs/mlir.md lists when: a
/// distinct attribute, a dialect resource, the generic form, ...), MLIR's
/// printer writes the whole. The operations are back in their places when
/// it returns; no other thread may use the module meanwhile.
void write(::mlir::Operation* op, llvm::raw_ostream& os, const ::mlir::OpPrintingFlags& flags = {},
           ::mlir::FallbackAsmResourceMap* resources = nullptr);

/// Parses MLIR text (several top-level operations are wrapped in a module,
/// as mlir-opt does) with `read`; throws MlirError at the first error.
/// `name` is the file name locations carry.
Module parse(std::string_view text, std::string_view name, ::mlir::MLIRContext& context);
Module parse_file(const std::string& path, ::mlir::MLIRContext& context);

/// The module as mlir-opt prints it, ending in a newline (by `write`: no
/// other thread may use the module meanwhile).
std::string print(const Module& module);

/// A structural hash of the module (its operations, attributes, types,
/// operands and regions, and which operations they are: a pass that
/// replaced an operation by an equal one changed the module, as for MLIR's
/// OperationFingerprint, which `--mlir-print-ir-after-change` uses).
std::uint64_t fingerprint(const Module& module);

/// Verifies the module (mlir::verify); throws MlirError with the first error.
void verify(const Module& module);

/// Config key `mlir.verify` (default true): MLIR's passes verify what they
/// made after each run, on the operation they ran on, as MLIR's pass
/// manager does (mlir-opt's `--verify-each`); a pass whose output does not
/// verify fails. False skips it.
extern const ConfigKey<bool> verify_passes;

/// Config key `mlir.emit-diagnostics` (default false): what MLIR's passes
/// emit goes on to the handlers installed on the MLIR context too (MLIR's
/// SourceMgrDiagnosticHandler, which prints it with its source line and a
/// caret; its verifier handler, which checks it against `expected-*`
/// comments), in the order a one-thread run emits it, and reaches passline's
/// diagnostics marked `shown`. False: passline's diagnostics alone get it.
extern const ConfigKey<bool> emit_diagnostics;

/// Config key `mlir.recover-crashes` (default false): an MLIR pass that
/// crashes (a signal: an abort, a bad address) fails as a pass that fails
/// does, with MlirError "MLIR pass 'name' crashed", so that its reproducer
/// can be written, as MLIR's crash reproducer recovers (LLVM's
/// CrashRecoveryContext). What the crash left is not to be trusted: the
/// process is left to report the failure and end.
extern const ConfigKey<bool> recover_crashes;

/// The MLIR pass registered as `name` (mlir-opt's flag name) with `options`
/// in MLIR's syntax (`max-iterations=3 top-down=false`), as a pass over the
/// whole module (as `mlir-opt --name` runs it: a pass that runs on
/// functions only is nested on them). Throws MlirError for an unknown name or
/// a bad option.
Pass<Module> pass(std::string_view name, std::string_view options = {});

/// The same MLIR pass run on each function (`func.func(name)` in MLIR's
/// pipeline text) as a passline function pass: on passline's threads.
/// `anchor` is the operation it runs on (`func.func`; `any` for every function).
Pass<Module> pass_on_functions(std::string_view name, std::string_view options = {},
                               std::string_view anchor = "func.func");

/// An MLIR textual pipeline (`builtin.module(func.func(cse,canonicalize),inline)`),
/// read by MLIR's parser (whose errors it throws as MlirError), as a
/// passline pipeline: each element at its top a passline pass, read again
/// alone as written (so its options are given as they were), so that
/// passline's instruments see each. A pipeline MLIR nests
/// (`func.func(cse,canonicalize)`), and nests that follow each other, which
/// MLIR merges into one walk, are one pass, run by MLIR's nesting on the
/// operations it names, on passline's threads. Each pass's run loads the
/// dialects the whole pipeline depends on first.
Pass<Module> parse_mlir_pipeline(std::string_view text);

/// mlir-opt's pass flags (`-cse`, `-canonicalize=max-iterations=3`, a
/// registered pipeline's), each as (name, options in MLIR's syntax), in
/// order, as a passline pipeline: each a passline pass, made as the flag
/// makes it; a pass anchored on another operation than the module (a
/// function pass of MLIR's) a function pass, run on each such operation of
/// the module on passline's threads, where mlir-opt nests it implicitly.
/// Each pass's run loads the dialects the whole list depends on first.
Pass<Module> from_pass_flags(const std::vector<std::pair<std::string, std::string>>& flags);

/// MLIR pipeline text `anchor(elements)` as MLIR's parser reads it: the
/// anchor, and each element as MLIR prints it, a nested pipeline whole
/// (`func.func(cse)`) and marked as one. Throws MlirError as
/// `parse_mlir_pipeline` does.
struct MlirPipeline {
  std::string anchor;
  std::vector<std::pair<std::string, bool>> elements;  // (text, nested)
};
MlirPipeline read_mlir_pipeline(std::string_view text);

/// The dialects that the MLIR passes of `pipeline` depend on
/// (Pass::getDependentDialects). With `load_dialects`, what a pipeline
/// written in passline's text over MLIR's passes needs before it runs: its
/// passes each load only their own.
::mlir::DialectRegistry dependent_dialects(const Pass<Module>& pipeline);

/// Loads `dialects` into `context`, as MLIR's PassManager::run loads a
/// pipeline's before it runs anything; only while no other thread uses the
/// context.
void load_dialects(const ::mlir::DialectRegistry& dialects, ::mlir::MLIRContext& context);

/// Whether `text` reads as MLIR's pipeline syntax (an anchor around a
/// list: `builtin.module(...)`) rather than passline's.
bool is_mlir_pipeline(std::string_view text);

/// Prints MLIR's registered passes and pipelines with their options to
/// standard output, as mlir-opt's help lists them (MLIR's registry cannot
/// be listed otherwise).
void print_registered_passes();

/// passline's registry of MLIR passes: every pass registered with MLIR, by
/// its mlir-opt name, each found on first use (MLIR cannot list its
/// registry), with its options: their names and types are read from the
/// pass's defaults (an integer, a boolean or else a string), their values
/// handed to MLIR's own option parser. Also `PrintIR`.
Registry<Module>& registry();

/// The MLIR pass named `Name` as a static pass type, a pass over the whole
/// module with MLIR's default options.
template <fixed_string Name>
struct MlirPass {
  static constexpr PassInfo info{.name = Name.view(), .opt_level = 0, .summary = "an MLIR pass"};
  Module operator()(Module module, PassContext& ctx) const {
    static const Pass<Module> made = passline::mlir::pass(Name.view());
    return made(std::move(module), ctx);
  }
};

}  // namespace passline::mlir

export namespace passline {

template <>
struct IRTraits<mlir::Module> {
  using Function = ::mlir::Operation*;
  static constexpr bool changes_in_place = true;

  /// Reads the module's functions again (a module pass may have added or
  /// removed some); `function` then indexes that list.
  static std::size_t function_count(const mlir::Module& module) { return module.functions().size(); }
  static const Function& function(const mlir::Module& module, std::size_t i) { return module.function(i); }
  /// A function pass changes its function in place and hands it back; one
  /// that hands back another operation has it take the old one's place.
  static void replace_function(mlir::Module& module, std::size_t i, Function function);
  /// A function with the unit attribute `passline.skip_optimization`.
  static bool skips_optimization(const Function& function);
  static std::string_view function_name(const Function& function);
  /// The function alone, as MLIR prints an operation on its own.
  static std::string print_function(const Function& function);
  /// Throws MlirError where the module's context has threading off: MLIR's
  /// uniquers would be used by `threads` threads without their locks.
  static void check_threads(const mlir::Module& module, std::size_t threads);

  static std::string print(const mlir::Module& module) { return mlir::print(module); }
  static std::uint64_t fingerprint(const mlir::Module& module) { return mlir::fingerprint(module); }
};

}  // namespace passline
