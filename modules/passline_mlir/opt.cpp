// passline.mlir.opt's implementation: mlir-opt's command line, run by
// passline's pass manager.
//
// It reads mlir-opt's flags with MLIR's own code (mlir_flags.h) and does what
// MlirOptMain does with them, with MLIR's pieces: splitAndProcessBuffer for
// -split-input-file, a context per chunk, SourceMgrDiagnosticHandler (or its
// verifier, -verify-diagnostics), parseSourceFileForTool, the printing flags
// and the bytecode writer. The pipeline, from mlir-opt's pass flags or
// --pass-pipeline (MLIR's parser builds it) or from passline's --passes, runs
// under passline's manager, contexts and instruments, each MLIR pass a
// passline pass. passline-opt's flags work as there; the output is written
// whole or not at all.
module;

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/Bytecode/BytecodeWriter.h>
#include <mlir/Debug/CLOptionsSetup.h>
#include <mlir/Debug/Counter.h>
#include <mlir/Dialect/IRDL/IRDLLoading.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Parser/Parser.h>
#include <mlir/Tools/Plugins/PassPlugin.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Pass/PassRegistry.h>
#include <mlir/Support/FileUtilities.h>
#include <mlir/Support/Timing.h>
#include <mlir/Support/ToolUtilities.h>
#include <mlir/Tools/ParseUtilities.h>
#include <mlir/Tools/mlir-opt/MlirOptMain.h>

#include "mlir_flags.h"

module passline.mlir.opt;

import passline;
import passline.support;
import passline.instruments;
import passline.mlir;
import passline.mlir.reduce;
import passline.reduce;
import passline.driver;

namespace {

/// `object`, which is never destroyed: the process's end takes it back at
/// once, as clang's -disable-free leaves its ASTs, where freeing a large
/// module operation by operation, then the context's uniqued types and
/// attributes, is work to no purpose. Kept reachable from a static, so that
/// leak checkers do not count it.
template <class T>
T& left_at_exit(std::unique_ptr<T> object) {
  static auto* const kept = new std::vector<void*>;
  kept->push_back(object.get());
  return *object.release();
}

/// Whether `failure`, or a cause nested in it, is an error of MLIR's that
/// MLIR's handlers printed already.
bool shown_by_mlir(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const passline::mlir::MlirError& error) {
    return error.shown();
  } catch (const std::nested_exception& outer) {
    return outer.nested_ptr() && shown_by_mlir(outer.nested_ptr());
  } catch (...) {
    return false;
  }
}

/// The input, read once whatever it is (a file, a FIFO, a pipe): mapped
/// when it is a regular file, else read to its end.
std::unique_ptr<llvm::MemoryBuffer> read_input(const passline::driver::RunFlags& options) {
  if (options.reproducer_text) return llvm::MemoryBuffer::getMemBufferCopy(*options.reproducer_text, options.input);
  if (options.input == "-") {
    return llvm::MemoryBuffer::getMemBufferCopy(passline::driver::read_all(STDIN_FILENO, "standard input"), "<stdin>");
  }
  const int fd = passline::driver::open_to_read(options.input);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> mapped =
        llvm::MemoryBuffer::getOpenFile(fd, options.input, static_cast<std::uint64_t>(info.st_size));
    if (!mapped) {
      throw passline::driver::Failure{fmt::format("cannot read '{}': {}", options.input, mapped.getError().message())};
    }
    return std::move(*mapped);
  }
  return llvm::MemoryBuffer::getMemBufferCopy(passline::driver::read_all(fd, "'" + options.input + "'"), options.input);
}

/// mlir-opt's reproducer in the input (`{-# external_resources: {
/// mlir_reproducer: { pipeline: "...", disable_threading: true, verify_each:
/// true } } #-}`), as mlir-opt's --run-reproducer reads it: the pipeline to
/// run, and how the run that wrote it was set.
struct MlirReproducer {
  std::optional<std::string> pipeline;
  std::optional<bool> disable_threading;
  std::optional<bool> verify_each;

  /// Has text read by `parsing` give its resource to this one: consumed, not
  /// written out again, and a key MLIR does not know an error, as in mlir-opt.
  void read_by(mlir::ParserConfig& parsing) {
    parsing.attachResourceParser("mlir_reproducer", [this](mlir::AsmParsedResourceEntry& entry) -> mlir::LogicalResult {
      auto keep = [](auto& field, auto value) -> mlir::LogicalResult {
        if (mlir::succeeded(value)) field = *value;
        return mlir::success(mlir::succeeded(value));
      };
      if (entry.getKey() == "pipeline") return keep(pipeline, entry.parseAsString());
      if (entry.getKey() == "disable_threading") return keep(disable_threading, entry.parseAsBool());
      if (entry.getKey() == "verify_each") return keep(verify_each, entry.parseAsBool());
      return entry.emitError() << "unknown 'mlir_reproducer' resource key '" << entry.getKey() << "'";
    });
  }
};

/// The reproducer in `input`, read before the pipeline is made (the pipeline
/// comes from it). What does not parse is left to the run's own reading,
/// which reports it.
MlirReproducer read_mlir_reproducer(const llvm::MemoryBuffer& input, const mlir::DialectRegistry& dialects,
                                    const mlir::MlirOptMainConfig& config) {
  MlirReproducer found;
  mlir::MLIRContext context(dialects, mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  const mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic&) { return mlir::success(); });
  mlir::ParserConfig parsing(&context, /*verifyAfterParse=*/false);
  found.read_by(parsing);
  auto sources = std::make_shared<llvm::SourceMgr>();
  sources->AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(), /*RequiresNullTerminator=*/false),
                              llvm::SMLoc());
  (void)mlir::parseSourceFileForTool(sources, parsing, !config.shouldUseExplicitModule());
  return found;
}

/// Whether `--run-reproducer` at `words[at]` is passline's option, whose
/// value is a reproducer passline wrote (its first line says so), rather
/// than mlir-opt's flag, which replays the reproducer MLIR writes into the
/// input itself. A word after it that is no regular file is passline's
/// value, not read here: a pipe is read once.
bool replays_passline_reproducer(const std::vector<std::string>& words, std::size_t at, std::string_view tool) {
  const std::string& word = words[at];
  if (const std::size_t equals = word.find('='); equals != std::string::npos) {
    const std::string value = word.substr(equals + 1);
    return !(value == "true" || value == "false" || value == "1" || value == "0" || value == "TRUE" ||
             value == "FALSE" || value == "True" || value == "False");
  }
  if (at + 1 >= words.size() || words[at + 1].starts_with('-')) return false;
  struct stat info {};
  if (::stat(words[at + 1].c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return true;
  std::ifstream file(words[at + 1]);
  std::string line;
  std::getline(file, line);
  return line.find(passline::Reproducer::marker_of(tool)) != std::string::npos;
}

/// An LLVM stream into the output file. A write that fails is kept, not
/// thrown through MLIR's printer: `check` throws it once the printing is done.
class OutputStream final : public llvm::raw_ostream {
 public:
  explicit OutputStream(passline::support::OutputFile& output) : output_(output) { SetBufferSize(1 << 16); }
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;
  ~OutputStream() override = default;

  /// Writes what is buffered; throws the first error a write met.
  void check() {
    flush();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  void write_impl(const char* data, std::size_t size) override {
    written_ += size;
    if (failure_) return;
    try {
      output_.write(std::string_view(data, size));
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  std::uint64_t current_pos() const override { return written_; }

  passline::support::OutputFile& output_;
  std::uint64_t written_ = 0;
  std::exception_ptr failure_;
};

/// Standard output is llvm::outs(), as in mlir-opt, where what passes print
/// there (MLIR's test passes do) and the output are one stream in one order.
/// A write that failed is one error, not LLVM's abort at exit.
void check_standard_output() {
  llvm::outs().flush();
  if (!llvm::outs().has_error()) return;
  const std::error_code error = llvm::outs().error();
  llvm::outs().clear_error();
  throw passline::driver::Failure{fmt::format("cannot write standard output: {}", error.message())};
}

/// mlir-opt's pass flags among `words` (those LLVM's parser read), in
/// order: each word that names a pass or pipeline of MLIR's registry, with
/// the options after its `=`.
std::vector<std::pair<std::string, std::string>> pass_flags(const std::vector<std::string>& words) {
  std::vector<std::pair<std::string, std::string>> flags;
  for (const std::string& word : words) {
    if (!word.starts_with('-')) continue;
    const std::string_view body = std::string_view(word).substr(word.starts_with("--") ? 2 : 1);
    const std::size_t equals = body.find('=');
    const llvm::StringRef name(body.data(), std::min(equals, body.size()));
    if (mlir::PassInfo::lookup(name) == nullptr && mlir::PassPipelineInfo::lookup(name) == nullptr) continue;
    flags.emplace_back(name.str(), equals == std::string_view::npos ? std::string() : std::string(body.substr(equals + 1)));
  }
  return flags;
}

/// mlir-opt's pipeline (its pass flags or --pass-pipeline, read by MLIR's
/// parser and checked whole before anything runs), or passline's --passes.
passline::Pass<passline::mlir::Module> pipeline_of(const passline::driver::RunFlags& options, const mlir::MlirOptMainConfig& config,
                                                  mlir::MLIRContext& context, const std::optional<std::string>& replayed,
                                                  const std::vector<std::string>& mlir_words,
                                                  std::optional<mlir::OpPassManager>& as_mlir) {
  std::string errors;
  mlir::ScopedDiagnosticHandler collect(&context, [&errors](mlir::Diagnostic& diagnostic) {
    if (!errors.empty()) errors += "; ";
    errors += diagnostic.str();
    return mlir::success();
  });
  // As mlir-opt builds it (and dumps it, with -dump-pass-pipeline): pass
  // flags nested implicitly where they are anchored.
  mlir::PassManager checked(&context, "builtin.module", mlir::OpPassManager::Nesting::Implicit);
  if (replayed) {
    // A reproducer's pipeline first, then any pass flags after it, as mlir-opt adds them.
    llvm::raw_string_ostream stream(errors);
    mlir::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(*replayed, stream);
    if (mlir::failed(parsed)) throw passline::driver::Failure{llvm::StringRef(errors).trim().str()};
    static_cast<mlir::OpPassManager&>(checked) = std::move(*parsed);
  }
  if (mlir::failed(config.setupPassPipeline(checked))) throw passline::driver::Failure{errors};
  as_mlir = checked;
  // An empty pipeline on another operation (`wrong-op()`) is refused as mlir-opt refuses it.
  if (checked.size() == 0 && checked.getOpAnchorName() == "builtin.module") {
    const std::string text = options.passes.value_or("");
    if (options.passes) as_mlir.reset();  // passline's text, not MLIR's
    if (passline::mlir::is_mlir_pipeline(text)) {
      llvm::raw_string_ostream stream(errors);
      if (mlir::FailureOr<mlir::OpPassManager> parsed = mlir::parsePassPipeline(text, stream); mlir::succeeded(parsed)) {
        as_mlir = std::move(*parsed);
      }
      return passline::mlir::parse_mlir_pipeline(text);
    }
    try {
      return passline::parse_pipeline(text, passline::mlir::registry());
    } catch (const passline::PipelineSyntaxError&) {
      // One nest of MLIR's on an operation of a dialect (`func.func(cse)`, as
      // the reproducer of a nest that failed writes it) is MLIR's text on
      // the module; any other text keeps passline's error.
      const std::size_t paren = text.find('(');
      if (paren == std::string::npos || text.substr(0, paren).find('.') == std::string::npos ||
          text.substr(0, paren).find_first_of(",{") != std::string::npos || !text.ends_with(')')) {
        throw;
      }
      try {
        return passline::mlir::parse_mlir_pipeline("builtin.module(" + text + ")");
      } catch (const std::exception&) {
      }
      throw;
    }
  }
  if (options.passes) {
    throw passline::driver::Failure{"--passes cannot be used with mlir-opt's pass flags or --pass-pipeline"};
  }
  // Made again from what was written, so that each pass's options are given
  // as they were: a reproducer's pipeline, --pass-pipeline's, the pass flags
  // (a pass anchored on func.func a function pass of its own, where MLIR
  // would keep it to a nest).
  std::vector<passline::Pass<passline::mlir::Module>> parts;
  if (replayed) parts.push_back(passline::mlir::parse_mlir_pipeline(*replayed));
  if (const std::string text = passline_mlir_opt::pass_pipeline_text(); !text.empty()) {
    parts.push_back(passline::mlir::parse_mlir_pipeline(text));
  }
  if (const auto flags = pass_flags(mlir_words); !flags.empty()) parts.push_back(passline::mlir::from_pass_flags(flags));
  if (parts.size() == 1) return parts.front();
  return passline::sequential<passline::mlir::Module>(std::move(parts));
}

/// The flags of mlir-opt that the tool does not carry out: an error rather
/// than a run that ignores them.
void refuse_unsupported(const mlir::MlirOptMainConfig& config, std::string_view tool) {
  auto refuse = [tool](std::string_view flag) {
    throw passline::driver::Failure{fmt::format("{} is mlir-opt's, and {} does not offer it", flag, tool)};
  };
  if (config.shouldVerifyRoundtrip()) refuse("-verify-roundtrip");
}

/// -irdl-file: the dialects the IRDL module in `file` defines, loaded into
/// `context` before the input is read, as mlir-opt loads them. Errors go to
/// the context's diagnostics, the file's as MLIR's parser reports them.
mlir::LogicalResult load_irdl_dialects(llvm::StringRef file, mlir::MLIRContext& context) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = mlir::openInputFile(file, &error);
  if (!buffer) return mlir::emitError(mlir::UnknownLoc::get(&context)) << error;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  const mlir::SourceMgrDiagnosticHandler handler(sources, &context);
  const mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  return module ? mlir::irdl::loadDialects(*module) : mlir::failure();
}

/// One run: each chunk of the input (the whole input without
/// -split-input-file) in a context of its own, as mlir-opt runs it.
class Run {
 public:
  Run(std::string_view tool, bool strict_diagnostics, const mlir::MlirOptMainConfig& config, mlir::DialectRegistry& dialects,
      const passline::Pass<passline::mlir::Module>& pipeline, mlir::OpPassManager* mlir_pipeline,
      passline::PassContext& ctx, const passline::driver::RunInstruments& instruments,
      const std::shared_ptr<passline::PassTimings>& timings, mlir::TimingScope** mlir_timing, bool mlir_statistics,
      passline::mlir::ThreadPool& threads)
      : tool_(tool), strict_diagnostics_(strict_diagnostics), config_(config), dialects_(dialects), pipeline_(pipeline),
        mlir_pipeline_(mlir_pipeline), dialects_needed_(passline::mlir::dependent_dialects(pipeline)), ctx_(ctx), instruments_(instruments),
        timings_(timings), mlir_timing_(mlir_timing), mlir_statistics_(mlir_statistics), threads_(threads) {}

  /// Processes the chunk in `buffer`, writing its output to `os`.
  mlir::LogicalResult chunk(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::raw_ostream& os) {
    auto sources = std::make_shared<llvm::SourceMgr>();
    sources->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    auto made = std::make_unique<mlir::MLIRContext>(dialects_, mlir::MLIRContext::Threading::DISABLED);
    mlir::MLIRContext& context = lone() ? left_at_exit(std::move(made)) : *made;
    if (ctx_.threads() > 1) context.setThreadPool(threads_.llvm());
    context.allowUnregisteredDialects(config_.shouldAllowUnregisteredDialects());
    if (config_.shouldVerifyDiagnostics()) context.printOpOnDiagnostic(false);
    const mlir::tracing::InstallDebugHandler debug(context, config_.getDebugConfig());
    if (!config_.getIrdlFile().empty() && mlir::failed(load_irdl_dialects(config_.getIrdlFile(), context))) {
      return mlir::failure();
    }
    if (!config_.shouldVerifyDiagnostics()) {
      const mlir::SourceMgrDiagnosticHandler handler(*sources, &context);
      return perform(os, sources, context);
    }
    mlir::SourceMgrDiagnosticVerifierHandler handler(*sources, &context);
    // Only the diagnostics count, not whether the run succeeded (mlir-opt's rule).
    (void)perform(os, sources, context);
    return handler.verify();
  }

 private:
  /// Whether the chunk's context and module are left to the process's end
  /// (a lone chunk's, unless -mlir-debug-counter's counter, which the
  /// context holds, is to print its counts when the context dies, as in
  /// mlir-opt); chunks' die in turn.
  bool lone() const { return config_.inputSplitMarker().empty() && !mlir::tracing::DebugCounter::isActivated(); }

  mlir::LogicalResult perform(llvm::raw_ostream& os, const std::shared_ptr<llvm::SourceMgr>& sources,
                              mlir::MLIRContext& context) {
    // -mlir-timing: a report for each chunk, printed when it is done, as MlirOptMain times it.
    std::optional<mlir::DefaultTimingManager> timing_manager;
    mlir::TimingScope timing_root;
    if (mlir_timing_ != nullptr) {
      timing_manager.emplace();
      mlir::applyDefaultTimingManagerCLOptions(*timing_manager);
      timing_root = timing_manager->getRootScope();
      *mlir_timing_ = &timing_root;
    }
    const struct Untimed {
      mlir::TimingScope** slot;
      ~Untimed() {
        if (slot != nullptr) *slot = nullptr;
      }
    } untimed{mlir_timing_};
    mlir::FallbackAsmResourceMap resources;
    mlir::OwningOpRef<mlir::Operation*> op = passline::driver::timed(timings_, "Parse input", [&] {
      const mlir::TimingScope timing = mlir_scope("Parser");
      mlir::ParserConfig parsing(&context, /*verifyAfterParse=*/true, &resources);
      MlirReproducer replayed;  // read before the run; here consumed, not written out
      if (config_.shouldRunReproducer()) replayed.read_by(parsing);
      return passline::mlir::read(sources, parsing, !config_.shouldUseExplicitModule());
    });
    if (!op) return mlir::failure();
    auto module_op = mlir::dyn_cast<mlir::ModuleOp>(op.get());
    if (!module_op) {
      // -no-implicit-module: another operation at the top, printed as it is
      // when there is no pass to run on it.
      if (pipeline_.is_pipeline() && pipeline_.passes().empty()) return print(op.get(), os, resources, context);
      return mlir::emitError(op.get()->getLoc()) << tool_ << " runs passes on a 'builtin.module', not on '"
                                                 << op.get()->getName() << "'";
    }
    (void)op.release();
    auto made = std::make_unique<passline::mlir::Module>(mlir::OwningOpRef(module_op));
    passline::mlir::Module& module = lone() ? left_at_exit(std::move(made)) : *made;
    passline::mlir::load_dialects(dialects_needed_, context);
    const passline::driver::ShownRules rules{.failure_shown = shown_by_mlir,
                                             .name_shown_failures = !config_.shouldVerifyDiagnostics(),
                                             .shown_errors_fail = strict_diagnostics_};
    using Counters = decltype(ctx_.statistics->counters());
    const Counters counted = mlir_statistics_ ? ctx_.statistics->counters() : Counters{};
    const int failed = passline::driver::run_pipeline<passline::mlir::MlirError>(pipeline_, module, ctx_, instruments_, tool_, rules);
    if (mlir_statistics_) print_mlir_statistics(counted, ctx_.statistics->counters());
    if (failed != 0) return mlir::failure();
    if (!config_.getReproducerFilename().empty()) {
      // -mlir-generate-reproducer: the module the pipeline made, with the pipeline, as mlir-opt writes it.
      const std::string written = mlir::makeReproducer(mlir::PassManager::getAnyOpAnchorName(), mlir_pipeline_->getPasses(),
                                                       module.op(), config_.getReproducerFilename());
      if (!llvm::StringRef(written).starts_with("reproducer generated at")) {
        return mlir::emitError(mlir::UnknownLoc::get(&context)) << "-mlir-generate-reproducer: " << written;
      }
    }
    if (instruments_.graph) {
      os << instruments_.graph->dot();
      return mlir::success();
    }
    return print(module.op(), os, resources, context);
  }

  /// Writes `op` as the flags say: MLIR's text or its bytecode.
  mlir::LogicalResult print(mlir::Operation* op, llvm::raw_ostream& os, mlir::FallbackAsmResourceMap& resources,
                            mlir::MLIRContext& context) {
    return passline::driver::timed(timings_, "Print output", [&]() -> mlir::LogicalResult {
      const mlir::TimingScope timing = mlir_scope("Output");
      if (config_.shouldEmitBytecode()) {
        mlir::BytecodeWriterConfig writing(resources);
        if (const std::optional<std::int64_t> version = config_.bytecodeVersionToEmit()) {
          writing.setDesiredBytecodeVersion(*version);
        }
        if (config_.shouldElideResourceDataFromBytecode()) writing.setElideResourceDataFlag();
        return mlir::writeBytecodeToFile(op, os, writing);
      }
      if (config_.bytecodeVersionToEmit()) {
        return mlir::emitError(mlir::UnknownLoc::get(&context)) << "bytecode version while not emitting bytecode";
      }
      passline::mlir::write(op, os, mlir::OpPrintingFlags(), &resources);
      os << '\n';
      return mlir::success();
    });
  }

  /// -mlir-pass-statistics: what the passes counted in the chunk's run
  /// (`after` less `before`), as MLIR's pass manager reports it when its run
  /// is done (MLIR's own passes count only in LLVM builds with statistics
  /// on, which Debian's is not: for them the report is empty in mlir-opt too).
  template <class Counter>
  static void print_mlir_statistics(const std::vector<Counter>& before, const std::vector<Counter>& after) {
    llvm::raw_ostream& os = llvm::errs();
    os << "===" << std::string(73, '-') << "===\n"
       << "                         ... Pass statistics report ...\n"
       << "===" << std::string(73, '-') << "===\n";
    std::string pass;
    for (const Counter& counter : after) {
      std::int64_t value = counter.value;
      for (const Counter& old : before) {
        if (old.pass == counter.pass && old.name == counter.name) value -= old.value;
      }
      if (value == 0) continue;
      if (counter.pass != pass) os << (pass = counter.pass) << "\n";
      os << "  (S) " << value << " " << counter.name << "\n";
    }
    os << "\n";
    os.flush();
  }

  /// A step of -mlir-timing's report, as MlirOptMain times it.
  mlir::TimingScope mlir_scope(llvm::StringRef name) const {
    return mlir_timing_ != nullptr && *mlir_timing_ != nullptr ? (*mlir_timing_)->nest(name) : mlir::TimingScope();
  }

  std::string_view tool_;
  bool strict_diagnostics_;
  const mlir::MlirOptMainConfig& config_;
  mlir::DialectRegistry& dialects_;
  const passline::Pass<passline::mlir::Module>& pipeline_;
  mlir::OpPassManager* mlir_pipeline_;  // the same, as MLIR reads it, where it is MLIR's text
  const mlir::DialectRegistry dialects_needed_;  // by the pipeline, loaded into each chunk's context first
  passline::PassContext& ctx_;
  const passline::driver::RunInstruments& instruments_;
  const std::shared_ptr<passline::PassTimings>& timings_;
  mlir::TimingScope** mlir_timing_;  // where the chunk's -mlir-timing scope is; null: not asked
  bool mlir_statistics_;             // -mlir-pass-statistics
  passline::mlir::ThreadPool& threads_;
};

/// Loads `path` as mlir-opt's -load-pass-plugin does if it is one of MLIR's
/// pass plugins (it defines mlirGetPassPluginInfo): its passes join MLIR's
/// registry, where passline's pipelines find them too. Anything else is
/// left to passline's loader, which says why it cannot be loaded.
bool load_mlir_pass_plugin(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  const bool mlir_plugin = ::dlsym(handle, "mlirGetPassPluginInfo") != nullptr;
  ::dlclose(handle);
  if (!mlir_plugin) return false;
  llvm::Expected<mlir::PassPlugin> plugin = mlir::PassPlugin::load(path);
  if (!plugin) {
    throw passline::driver::Failure{
        fmt::format("cannot load MLIR's pass plugin '{}': {}", path, llvm::toString(plugin.takeError()))};
  }
  plugin->registerPassRegistryCallbacks();
  return true;
}

/// What passline::driver::main needs to know of MLIR: its flags (MLIR's own
/// code reads mlir-opt's), its registry, reading and writing as MlirOptMain
/// does (`process`), its verifier, its plugins and its instruments.
struct MlirTool {
  std::string_view name;
  std::string description = fmt::format("{}: mlir-opt's command line, run by passline's pass manager.", name);
  std::string examples = fmt::format(
      "  {0} in.mlir -canonicalize -cse\n"
      "  {0} in.mlir --pass-pipeline='builtin.module(func.func(canonicalize,cse))' --threads=2\n"
      "  {0} in.mlir --passes='canonicalize{{max-iterations=3}}' --print-changed=diff -o out.mlir\n"
      "  {0} in.mlir -split-input-file -verify-diagnostics -canonicalize\n",
      name);
  passline::driver::Help help{
      .description = description,
      .examples = examples,
      .extension = ".mlir",
      .print_before = "cse",
      .print_after = "canonicalize",
      .unit = "module",
      .disable_example = "cse,canonicalize",
      .opt_level_default = "3: every pass named runs",
      .threads_use = "reading and writing MLIR, function passes (passes nested on func.func) and MLIR's own parallel work",
      .input = "MLIR file to read; '-' reads stdin (the default)",
      .output = "where to write the MLIR; '-' is stdout (the default). Written whole or not at all",
      .passes = "the pipeline in passline's text over MLIR's pass names, 'canonicalize,cse', any pass --list-passes "
                "lists with its options in braces ('canonicalize{max-iterations=3}'), or MLIR's textual pipeline, "
                "'builtin.module(func.func(canonicalize,cse))'; mlir-opt's pass flags and --pass-pipeline work too "
                "(not with --passes); none runs no pass",
      .list_passes = "list passline's own passes, then MLIR's passes and pipelines with their options (as "
                     "mlir-opt's help lists them)",
      .print_pipeline = "print the pipeline as passline's text and exit; =expanded prints the passes it would "
                        "run, one per line",
      .no_verify = "MLIR's passes do not verify what they made (they do by default, as mlir-opt's "
                   "-verify-each; --verify-each here verifies the whole module after every pass)",
      .run_reproducer = "replay a file written by --reproducer: its module through the pass that failed, e.g. "
                        "--run-reproducer crash.mlir; alone, it is mlir-opt's flag: the pipeline is the input's "
                        "mlir_reproducer resource (what -mlir-pass-pipeline-crash-reproducer writes)"};
  using positioned_errors = std::tuple<passline::mlir::MlirError>;
  // A file is written whole or not at all; standard output as mlir-opt writes it.
  bool output_file_for_stdout = false;

  /// mlir-opt's flags, declared by MLIR's code: every pass registered with
  /// MLIR is one.
  MlirTool(std::string_view name, mlir::DialectRegistry& dialects) : name(name), dialects(dialects) {
    passline::mlir::register_passes();
    passline_mlir_opt::declare_mlir_flags(dialects);
  }

  void add_pipeline_flags(CLI::App& app) {
    app.get_option("--load-pass-plugin")
        ->description("load the passes of a plugin before the pipeline is read: passline's (a shared library built "
                      "with passline_add_plugin, see docs/plugins.md) or MLIR's (mlir-opt's -load-pass-plugin); may be "
                      "given more than once, e.g. --load-pass-plugin=./my_passes.so");
  }
  void add_flags(CLI::App& app) {
    app.add_flag("--strict-diagnostics", strict_diagnostics,
                 "an error that an MLIR pass reports fails the run even when the pass succeeds (passline's rule; "
                 "mlir-opt prints it with the module and exits 0)")
        ->group("Debugging");
  }

  /// The words that are mlir-opt's, read by MLIR's own code; passline's are left.
  std::optional<int> take_words(std::vector<std::string>& words, const CLI::App& app) {
    std::vector<char*> pointers;
    for (std::string& word : words) pointers.push_back(word.data());
    // mlir-opt's --run-reproducer is a flag of MLIR's; passline's takes its file.
    bool mlir_replay = false;
    for (std::size_t i = 0; i < words.size() && words[i] != "--"; ++i) {
      const std::string_view word = words[i];
      const std::string_view flag = word.substr(0, word.find('='));
      if ((flag == "-run-reproducer" || flag == "--run-reproducer") && !replays_passline_reproducer(words, i, name)) {
        mlir_replay = true;
      }
    }
    passline_mlir_opt::Words split = passline_mlir_opt::split_words(
        std::span<char* const>(pointers.data(), pointers.size()),
        [&app, mlir_replay](std::string_view flag) -> std::optional<bool> {
          if (mlir_replay && flag == "--run-reproducer") return std::nullopt;
          const CLI::Option* option = app.get_option_no_throw(std::string(flag));
          if (option == nullptr) return std::nullopt;
          return option->get_type_size_max() > 0 && option->get_expected_max() > 0;
        });
    // MLIR's flags keep pointers into the words they read and to the help's
    // overview: both kept for the process.
    mlir_words = std::move(split.mlir);
    // mlir-opt's help header, with the dialects it reads.
    overview = fmt::format("MLIR modular optimizer driver, run by passline's pass manager\n"
                                             "Available Dialects: {}",
                                             llvm::join(dialects.getDialectNames(), ","));
    if (const std::optional<std::string> error = passline_mlir_opt::parse_mlir_flags(std::string(name), overview, mlir_words)) {
      fmt::print(stderr, "{}: error: {}\n", name, *error);
      return 1;
    }
    words = std::move(split.passline);
    return std::nullopt;
  }
  void print_more_help() { passline_mlir_opt::print_mlir_help(); }

  passline::Registry<passline::mlir::Module>& registry() { return passline::mlir::registry(); }
  bool load_plugin(const std::string& path) { return load_mlir_pass_plugin(path); }
  void list_more_passes() { passline::mlir::print_registered_passes(); }

  std::optional<int> check_flags(const passline::driver::RunFlags&) {
    config.emplace(mlir::MlirOptMainConfig::createFromCLOptions());
    if (config->shouldShowDialects()) {
      passline::driver::print_out(fmt::format("Available Dialects: {}\n", llvm::join(dialects.getDialectNames(), ",")));
      return 0;
    }
    refuse_unsupported(*config, name);
    return std::nullopt;
  }
  passline::Pass<passline::mlir::Module> pipeline(const passline::driver::RunFlags& flags) {
    // Made with threading as mlir-opt's flags say (-mlir-disable-threading).
    pipeline_context = &left_at_exit(std::make_unique<mlir::MLIRContext>(dialects));
    if (config->shouldRunReproducer()) {
      // mlir-opt's --run-reproducer: the pipeline and the run's settings are the input's.
      input = read_input(flags);
      replayed = read_mlir_reproducer(*input, dialects, *config);
      if (replayed->disable_threading == true) pipeline_context->disableMultithreading();
    }
    passline::Pass<passline::mlir::Module> made =
        pipeline_of(flags, *config, *pipeline_context, replayed ? replayed->pipeline : std::nullopt, mlir_words,
                    mlir_pipeline);
    if (!config->getReproducerFilename().empty() && !mlir_pipeline) {
      throw passline::driver::Failure{"-mlir-generate-reproducer writes the pipeline as MLIR's text: give it as "
                                      "mlir-opt's pass flags, --pass-pipeline or --passes='builtin.module(...)'"};
    }
    return made;
  }
  void configure(passline::PassContext& ctx, passline::driver::RunFlags& flags) {
    if (!pipeline_context->isMultithreadingEnabled()) ctx.config.set(passline::config::threads, std::int64_t{1});
    if (flags.no_verify || !config->shouldVerifyPasses()) ctx.config.set(passline::mlir::verify_passes, false);
    // MLIR's handlers print what MLIR's passes emit (or check it, with
    // -verify-diagnostics); passline's print the rest.
    ctx.config.set(passline::mlir::emit_diagnostics, true);
    asked = passline_mlir_opt::instrument_requests();
    if (asked.print_module_scope && ctx.threads() > 1) {
      // MLIR's rule: the whole module is printed while no other thread changes it.
      throw passline::driver::Failure{"-mlir-print-ir-module-scope: IR print for module scope can't be setup on a "
                                      "pass-manager without disabling multi-threading first. Give --threads=1 or "
                                      "-mlir-disable-threading."};
    }
    if (asked.local_reproducer && ctx.threads() > 1) {
      throw passline::driver::Failure{"-mlir-pass-pipeline-local-reproducer: Local crash reproduction can't be setup "
                                      "on a pass-manager without disabling multi-threading first. Give --threads=1 "
                                      "or -mlir-disable-threading."};
    }
    // passline's reproducer is written for an MLIR pass that crashes too.
    if (!flags.instruments.reproducer.empty()) ctx.config.set(passline::mlir::recover_crashes, true);
    if (replayed && replayed->verify_each == false) ctx.config.set(passline::mlir::verify_passes, false);
    mlir_instruments = passline_mlir_opt::mlir_instruments(mlir_timing());
  }
  /// --verify-each: MLIR's verifier on the whole module.
  void verify(const passline::mlir::Module& module) { passline::mlir::verify(module); }
  /// MLIR's IR printer and timing on each MLIR pass manager of the run.
  std::vector<std::shared_ptr<passline::Instrument>> instruments(const passline::driver::RunFlags&) {
    std::vector<std::shared_ptr<passline::Instrument>> made;
    if (mlir_instruments.setup) made.push_back(std::make_shared<passline::mlir::MlirInstrumentation>(mlir_instruments.setup));
    return made;
  }

  int process(const passline::Pass<passline::mlir::Module>& pipeline, passline::driver::Session& session) {
    // One pool of threads, passline's (TBB's): function passes run there, and
    // MLIR's own parallel loops too. With one thread, a context locks nothing.
    // Like the context of a whole input, it is left at exit: it outlives every
    // context it serves.
    passline::mlir::ThreadPool& threads =
        left_at_exit(std::make_unique<passline::mlir::ThreadPool>(session.ctx.threads()));
    Run run(name, strict_diagnostics, *config, dialects, pipeline, mlir_pipeline ? &*mlir_pipeline : nullptr, session.ctx,
            session.instruments, session.timings, mlir_timing(), asked.statistics, threads);
    std::optional<OutputStream> file;
    if (session.output) file.emplace(*session.output);
    llvm::raw_ostream& os = file ? static_cast<llvm::raw_ostream&>(*file) : llvm::outs();
    const mlir::LogicalResult result = mlir::splitAndProcessBuffer(
        input ? std::move(input) : read_input(session.flags),
        [&run](std::unique_ptr<llvm::MemoryBuffer> chunk, llvm::raw_ostream& out) {
          return run.chunk(std::move(chunk), out);
        },
        os, std::as_const(*config).inputSplitMarker(), std::as_const(*config).outputSplitMarker());
    if (file) {
      file->check();
    } else {
      check_standard_output();
    }
    if (mlir::failed(result)) return 1;
    if (mlir_instruments.failure) {
      if (const std::optional<std::string> failure = mlir_instruments.failure()) throw passline::driver::Failure{*failure};
    }
    if (session.output) session.output->commit();
    return 0;
  }

  /// --reduce: a pipeline's passes written out, MLIR's nests read by MLIR's parser.
  std::vector<passline::reduce::Step> pipeline_steps(const std::string& text, const passline::PassContext& ctx) {
    const passline::Pass<passline::mlir::Module> pass =
        passline::mlir::is_mlir_pipeline(text) ? passline::mlir::parse_mlir_pipeline(text)
        : text.find('(') != std::string::npos
            ? passline::mlir::parse_mlir_pipeline("builtin.module(" + text + ")")
            : passline::parse_pipeline(text, passline::mlir::registry());
    return passline::mlir::mlir_steps(passline::reduce::planned_steps(pass, ctx));
  }
  std::vector<std::string> pipeline_args(const std::string& pipeline) {
    return {pipeline.find('(') != std::string::npos ? "--passes=builtin.module(" + pipeline + ")" : "--passes=" + pipeline};
  }
  passline::mlir::Module read(std::string text, const std::string& file) {
    return passline::mlir::parse(text, file, *pipeline_context);
  }

 private:
  /// Where the scope of -mlir-timing's report of the chunk being run is
  /// (MLIR's report, printed as each chunk is done), or null when not asked.
  mlir::TimingScope** mlir_timing() {
    mlir::DefaultTimingManager asked;
    mlir::applyDefaultTimingManagerCLOptions(asked);
    const bool on = asked.isEnabled();
    asked.setEnabled(false);  // it prints no report of its own
    return on ? &chunk_timing : nullptr;
  }

  mlir::DialectRegistry& dialects;
  bool strict_diagnostics = false;
  std::vector<std::string> mlir_words;
  std::string overview;
  std::optional<mlir::MlirOptMainConfig> config;
  mlir::MLIRContext* pipeline_context = nullptr;
  std::unique_ptr<llvm::MemoryBuffer> input;  // read before the run: mlir-opt's --run-reproducer
  std::optional<MlirReproducer> replayed;      // what the input's reproducer says
  std::optional<mlir::OpPassManager> mlir_pipeline;  // the pipeline as MLIR reads it, where it is MLIR's text
  passline_mlir_opt::InstrumentRequests asked;
  passline_mlir_opt::MlirInstruments mlir_instruments;
  mlir::TimingScope* chunk_timing = nullptr;
};

}  // namespace

namespace passline::mlir {

int opt_main(int argc, char** argv, std::string_view name, ::mlir::DialectRegistry& dialects) {
  // LLVM's crash handlers first, as mlir-opt's InitLLVM installs them: a
  // stack trace on a crash, and the recovery MLIR's crash reproducer enables
  // later stays on top of them.
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  MlirTool tool(name, dialects);
  return driver::main<Module>(argc, argv, tool);
}

}  // namespace passline::mlir
