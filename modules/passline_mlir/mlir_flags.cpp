// mlir-opt's flags in passline.mlir.opt's tools (mlir_flags.h says how the
// words are shared between the two parsers).
#include "mlir_flags.h"

#include <fmt/format.h>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/Debug/Counter.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/SymbolTable.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassManager.h>
#include <mlir/Support/Timing.h>
#include <mlir/Tools/mlir-opt/MlirOptMain.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

import passline.support;

namespace passline_mlir_opt {

namespace {

namespace cl = llvm::cl;

/// The flags of mlir-opt's pass manager, with mlir-opt's names: IR printing
/// and the crash reproducer, carried out by MLIR's own printer and
/// reproducer on every MLIR pass manager of the run (`mlir_instruments`),
/// and the statistics, carried out by passline's. Made once, when the flags
/// are declared.
struct InstrumentFlags {
  cl::OptionCategory category{"IR printing and reproducers (mlir-opt's flags)"};
  cl::list<std::string> print_before{"mlir-print-ir-before", cl::CommaSeparated, cl::value_desc("pass-arg"),
                                     cl::desc("Print IR before the passes named, as mlir-opt prints it"),
                                     cl::cat(category)};
  cl::list<std::string> print_after{"mlir-print-ir-after", cl::CommaSeparated, cl::value_desc("pass-arg"),
                                    cl::desc("Print IR after the passes named, as mlir-opt prints it"),
                                    cl::cat(category)};
  cl::opt<bool> print_before_all{"mlir-print-ir-before-all", cl::desc("Print IR before each MLIR pass"),
                                 cl::cat(category)};
  cl::opt<bool> print_after_all{"mlir-print-ir-after-all", cl::desc("Print IR after each MLIR pass"),
                                cl::cat(category)};
  cl::opt<bool> print_after_failure{"mlir-print-ir-after-failure",
                                    cl::desc("Print IR after an MLIR pass fails, as the pass left it"),
                                    cl::cat(category)};
  cl::opt<bool> print_after_change{"mlir-print-ir-after-change",
                                   cl::desc("Print IR after an MLIR pass only if it changed the operation it ran on"),
                                   cl::cat(category)};
  cl::opt<bool> print_module_scope{
      "mlir-print-ir-module-scope",
      cl::desc("Print the whole module when printing IR (with one thread, --threads=1 or -mlir-disable-threading)"),
      cl::cat(category)};
  cl::opt<std::string> tree_dir{"mlir-print-ir-tree-dir", cl::value_desc("dir"),
                                cl::desc("Write the IR printed to files in a tree under this directory, one "
                                         "directory per operation a pass ran on"),
                                cl::cat(category)};
  cl::opt<std::string> reproducer{
      "mlir-pass-pipeline-crash-reproducer", cl::value_desc("filename"),
      cl::desc("When an MLIR pass fails or crashes, write MLIR's reproducer to this file (the module before the "
               "pass or MLIR nest of the pipeline that failed, and that as its pipeline), as mlir-opt does; "
               "--run-reproducer replays it"),
      cl::cat(category)};
  cl::opt<bool> local_reproducer{
      "mlir-pass-pipeline-local-reproducer",
      cl::desc("The crash reproducer holds the failing MLIR pass alone, on the operation it ran on (with one "
               "thread)"),
      cl::cat(category)};
  cl::opt<bool> statistics{"mlir-pass-statistics",
                           cl::desc("Print MLIR's pass statistics report as each chunk's run is done: what the "
                                    "passes counted (passline's counters; MLIR's own passes count only in LLVM builds "
                                    "with statistics on)"),
                           cl::cat(category)};
  cl::opt<std::string> statistics_display{"mlir-pass-statistics-display", cl::init("pipeline"),
                                          cl::desc("How statistics are shown: passline's list per pass"),
                                          cl::cat(category)};
};

InstrumentFlags* instrument_flags = nullptr;

/// Whether LLVM's flag `name` takes the next word as its value when it is
/// written without `=value`.
bool takes_next_word(std::string_view name) {
  const llvm::StringMap<cl::Option*>& options = cl::getRegisteredOptions();
  const auto found = options.find(llvm::StringRef(name.data(), name.size()));
  return found != options.end() && found->second->getValueExpectedFlag() == cl::ValueRequired;
}

}  // namespace

Words split_words(std::span<char* const> words, const PasslineFlag& passline_flag) {
  Words split;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    if (word == "--") {
      split.passline.insert(split.passline.end(), words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
      break;
    }
    if (!word.starts_with('-') || word == "-") {
      split.passline.emplace_back(word);
      continue;
    }
    const std::string_view body = word.substr(word.starts_with("--") ? 2 : 1);  // without its dashes
    const std::string_view name = body.substr(0, body.find('='));
    const bool valued = word.find('=') != std::string_view::npos;
    const bool single = name.size() == 1 && !word.starts_with("--");
    // mlir-opt's -verify-each=false is MLIR's verifier; passline's bare
    // --verify-each verifies the whole module after each pass as well.
    const std::optional<bool> ours =
        name == "verify-each" && valued ? std::nullopt : passline_flag(single ? "-" + std::string(name) : "--" + std::string(name));
    std::vector<std::string>& to = ours ? split.passline : split.mlir;
    if (ours && single && valued) {  // LLVM's -o=FILE is CLI11's -o FILE
      to.emplace_back(word.substr(0, 2));
      to.emplace_back(word.substr(3));
      continue;
    }
    to.push_back(ours && !single ? "--" + std::string(body) : std::string(word));
    const bool next_is_value = !valued && (ours ? *ours : takes_next_word(name));
    if (next_is_value && i + 1 < words.size()) to.emplace_back(words[++i]);
  }
  return split;
}

void declare_mlir_flags(mlir::DialectRegistry& dialects) {
  mlir::MlirOptMainConfig::registerCLOptions(dialects);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::tracing::DebugCounter::registerCLOptions();
  // passline's --load-pass-plugin loads MLIR's pass plugins too; MLIR's flag
  // of that name is never reached, and not shown.
  if (cl::Option* plugin = cl::getRegisteredOptions().lookup("load-pass-plugin")) plugin->setHiddenFlag(cl::ReallyHidden);
  mlir::registerDefaultTimingManagerCLOptions();
  static InstrumentFlags flags;
  instrument_flags = &flags;
}

std::optional<std::string> parse_mlir_flags(const std::string& tool, const std::string& overview,
                                            const std::vector<std::string>& words) {
  std::vector<const char*> argv{tool.c_str()};
  for (const std::string& word : words) argv.push_back(word.c_str());
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  if (cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), overview, &stream)) return std::nullopt;
  // LLVM's lines each begin with the tool's name; one line of them, without it.
  std::string message;
  llvm::StringRef rest(errors);
  while (!rest.empty()) {
    auto [line, after] = rest.split('\n');
    rest = after;
    line = line.trim();
    line.consume_front(tool + ":");
    line = line.trim();
    if (line.empty()) continue;
    if (!message.empty()) message += ' ';
    message += line.str();
  }
  return message;
}

InstrumentRequests instrument_requests() {
  const InstrumentFlags& f = *instrument_flags;
  return InstrumentRequests{.print_module_scope = f.print_module_scope,
                            .local_reproducer = !f.reproducer.empty() && f.local_reproducer,
                            .statistics = f.statistics};
}

namespace {

using PrintCallback = mlir::PassManager::IRPrinterConfig::PrintCallbackFn;
using Filter = std::function<bool(mlir::Pass*, mlir::Operation*)>;

/// -mlir-print-ir-tree-dir: each print in a file of its own, in a directory
/// for each operation from the top down to the one the pass ran on (its name
/// with `_` for `.`, then its symbol), named by the count of the prints on
/// each of those operations so far, then the pass: `func_func_f/1_0_cse.mlir`.
/// One tree for the run: its counts go on across the pass managers.
class FileTree {
 public:
  explicit FileTree(std::string dir) : dir_(std::move(dir)) {}

  void write(mlir::Pass* pass, mlir::Operation* op, const PrintCallback& print) {
    std::filesystem::path path(dir_);
    std::string counts;
    {
      const std::lock_guard lock(mutex_);
      ++counts_.try_emplace(op, -1).first->second;
      std::vector<mlir::Operation*> chain;
      for (mlir::Operation* at = op; at != nullptr; at = at->getParentOp()) chain.push_back(at);
      for (auto at = chain.rbegin(); at != chain.rend(); ++at) {
        auto symbol = (*at)->getAttrOfType<mlir::StringAttr>(mlir::SymbolTable::getSymbolAttrName());
        std::string name = symbol ? symbol.str() : "no-symbol-name";
        std::ranges::replace(name, '/', '_');
        std::ranges::replace(name, '\\', '_');
        std::string op_name = (*at)->getName().getStringRef().str();
        std::ranges::replace(op_name, '.', '_');
        path /= op_name + "_" + name;
        counts += std::to_string(counts_[*at]) + "_";
      }
    }
    std::string text;
    llvm::raw_string_ostream stream(text);
    print(stream);
    stream.flush();
    path /= counts + pass->getArgument().str() + ".mlir";
    try {
      std::filesystem::create_directories(path.parent_path());
      passline::support::replace_file(path, text);
    } catch (const std::exception& error) {
      // Not thrown through MLIR's pass manager: the run goes on, and fails at its end.
      const std::lock_guard lock(mutex_);
      if (!failure_) failure_ = fmt::format("-mlir-print-ir-tree-dir: cannot write '{}': {}", path.string(), error.what());
    }
  }

  /// The first write that failed.
  std::optional<std::string> failure() {
    const std::lock_guard lock(mutex_);
    return failure_;
  }

 private:
  std::optional<std::string> failure_;
  std::string dir_;
  std::mutex mutex_;
  std::map<mlir::Operation*, unsigned> counts_;
};

/// Where the run's IR printers write: the standard error stream, one print
/// at a time (each pass manager's printer is its own, and managers run on
/// several threads), or a file tree.
struct PrintTarget {
  std::mutex standard_error;
  std::unique_ptr<FileTree> tree;
};

/// -mlir-pass-pipeline-crash-reproducer's file, which MLIR's reproducer of
/// each pass manager writes through a stream of this: the first reproducer
/// of the run, written whole when MLIR is done with it (managers run on
/// several threads, and two may fail at once).
class ReproducerFile {
 public:
  explicit ReproducerFile(std::string path) : path_(std::move(path)) {}

  mlir::ReproducerStreamFactory factory() {
    return [this](std::string&) -> std::unique_ptr<mlir::ReproducerStream> { return std::make_unique<Stream>(*this); };
  }
  std::optional<std::string> failure() {
    const std::lock_guard lock(mutex_);
    return failure_;
  }

 private:
  class Stream final : public mlir::ReproducerStream {
   public:
    explicit Stream(ReproducerFile& file) : file_(file), stream_(text_) {}
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() override { file_.write(text_); }
    llvm::StringRef description() override { return file_.path_; }
    llvm::raw_ostream& os() override { return stream_; }

   private:
    ReproducerFile& file_;
    std::string text_;
    llvm::raw_string_ostream stream_;
  };

  void write(const std::string& text) {
    const std::lock_guard lock(mutex_);
    if (written_) return;
    written_ = true;
    try {
      passline::support::replace_file(path_, text);
    } catch (const std::exception& error) {
      failure_ = fmt::format("-mlir-pass-pipeline-crash-reproducer: cannot write '{}': {}", path_, error.what());
    }
  }

  std::string path_;
  std::mutex mutex_;
  bool written_ = false;
  std::optional<std::string> failure_;
};

/// MLIR's IR printer's choice of what to print (the filters) and where.
class PrinterConfig final : public mlir::PassManager::IRPrinterConfig {
 public:
  PrinterConfig(Filter before, Filter after, const InstrumentFlags& flags, std::shared_ptr<PrintTarget> target)
      : IRPrinterConfig(flags.print_module_scope, flags.print_after_change, flags.print_after_failure),
        before_(std::move(before)), after_(std::move(after)), target_(std::move(target)) {}

  void printBeforeIfEnabled(mlir::Pass* pass, mlir::Operation* op, PrintCallback print) override {
    if (before_ && before_(pass, op)) emit(pass, op, print);
  }
  void printAfterIfEnabled(mlir::Pass* pass, mlir::Operation* op, PrintCallback print) override {
    if (after_ && after_(pass, op)) emit(pass, op, print);
  }

 private:
  void emit(mlir::Pass* pass, mlir::Operation* op, const PrintCallback& print) {
    if (target_->tree) {
      target_->tree->write(pass, op, print);
      return;
    }
    const std::lock_guard lock(target_->standard_error);
    print(llvm::errs());
  }

  Filter before_;
  Filter after_;
  std::shared_ptr<PrintTarget> target_;
};

/// Whether `pass` is one of the passes named by their arguments.
Filter named(const cl::list<std::string>& names) {
  std::vector<std::string> list(names.begin(), names.end());
  return [list = std::move(list)](mlir::Pass* pass, mlir::Operation*) {
    return std::ranges::find(list, pass->getArgument().str()) != list.end();
  };
}

}  // namespace

MlirInstruments mlir_instruments(mlir::TimingScope* const* timing) {
  const InstrumentFlags& f = *instrument_flags;
  // What mlir-opt's flags select, as MLIR's pass manager options select it.
  Filter before;
  if (f.print_before_all) {
    before = [](mlir::Pass*, mlir::Operation*) { return true; };
  } else if (!f.print_before.empty()) {
    before = named(f.print_before);
  }
  Filter after;
  if (f.print_after_all || f.print_after_failure) {
    after = [](mlir::Pass*, mlir::Operation*) { return true; };
  } else if (!f.print_after.empty()) {
    after = named(f.print_after);
  }
  const bool printing = before || after;
  if (!printing && timing == nullptr && f.reproducer.empty()) return {};
  auto target = std::make_shared<PrintTarget>();
  if (!f.tree_dir.empty()) target->tree = std::make_unique<FileTree>(f.tree_dir);
  std::shared_ptr<ReproducerFile> reproducer;
  if (!f.reproducer.empty()) reproducer = std::make_shared<ReproducerFile>(f.reproducer);
  return MlirInstruments{
      .setup =
          [before, after, target, timing, printing, reproducer, &f](mlir::PassManager& manager) {
            if (printing) manager.enableIRPrinting(std::make_unique<PrinterConfig>(before, after, f, target));
            if (timing != nullptr && *timing != nullptr) manager.enableTiming(**timing);
            if (reproducer) manager.enableCrashReproducerGeneration(reproducer->factory(), f.local_reproducer);
          },
      .failure = [target, reproducer]() -> std::optional<std::string> {
        if (target->tree) {
          if (std::optional<std::string> failure = target->tree->failure()) return failure;
        }
        return reproducer ? reproducer->failure() : std::nullopt;
      }};
}

std::string pass_pipeline_text() {
  // MLIR's PassPipelineCLParser declares it (MlirOptMainConfig's).
  cl::Option* option = cl::getRegisteredOptions().lookup("pass-pipeline");
  if (option == nullptr || option->getNumOccurrences() == 0) return {};
  return static_cast<cl::opt<std::string>*>(option)->getValue();
}

void print_mlir_help() {
  llvm::outs() << "\nmlir-opt's flags (read by MLIR's own command-line code):\n";
  cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
}

}  // namespace passline_mlir_opt
