// mlir-opt's flags in passline-mlir-opt (mlir_flags.h says how the words
// are shared between the two parsers).
#include "mlir_flags.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <mlir/Debug/Counter.h>
#include <mlir/IR/AsmState.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Tools/mlir-opt/MlirOptMain.h>

#include <cstddef>
#include <string>
#include <vector>

namespace passline_mlir_opt {

namespace {

namespace cl = llvm::cl;

/// The flags of mlir-opt's pass manager that passline's instruments carry
/// out, with mlir-opt's names. Made once, when the flags are declared.
struct InstrumentFlags {
  cl::OptionCategory category{"IR printing, timing and reproducers (mlir-opt's flags, passline's instruments)"};
  cl::list<std::string> print_before{"mlir-print-ir-before", cl::CommaSeparated, cl::value_desc("pass-arg"),
                                     cl::desc("Print IR before the passes named (passline's --print-before)"),
                                     cl::cat(category)};
  cl::list<std::string> print_after{"mlir-print-ir-after", cl::CommaSeparated, cl::value_desc("pass-arg"),
                                    cl::desc("Print IR after the passes named (passline's --print-after)"),
                                    cl::cat(category)};
  cl::opt<bool> print_before_all{"mlir-print-ir-before-all",
                                 cl::desc("Print IR before each pass (passline's --print-before-all)"), cl::cat(category)};
  cl::opt<bool> print_after_all{"mlir-print-ir-after-all",
                                cl::desc("Print IR after each pass (passline's --print-after-all)"), cl::cat(category)};
  cl::opt<bool> print_after_failure{
      "mlir-print-ir-after-failure",
      cl::desc("Print the IR a pass failed on (passline's --print-after-failure: the pass's input, as the run leaves "
               "it)"),
      cl::cat(category)};
  cl::opt<bool> print_after_change{
      "mlir-print-ir-after-change",
      cl::desc("Print IR after a pass only if it changed the IR (passline's --print-changed=quiet)"), cl::cat(category)};
  cl::opt<bool> print_module_scope{
      "mlir-print-ir-module-scope",
      cl::desc("Print the whole module when printing IR (passline always does)"), cl::cat(category)};
  cl::opt<std::string> tree_dir{"mlir-print-ir-tree-dir", cl::value_desc("dir"),
                                cl::desc("Write the IR after each pass to files in this directory (passline's --dump-dir)"),
                                cl::cat(category)};
  cl::opt<bool> timing{"mlir-timing", cl::desc("Time each pass and print a report at the end (passline's --time-passes)"),
                       cl::cat(category)};
  cl::opt<std::string> timing_display{"mlir-timing-display", cl::init("tree"),
                                      cl::desc("How the timing report is shown: passline's report nests passes as a "
                                               "tree whatever is asked"),
                                      cl::cat(category)};
  cl::opt<std::string> reproducer{
      "mlir-pass-pipeline-crash-reproducer", cl::value_desc("filename"),
      cl::desc("When a pass fails, write the module it failed on and how to replay it to this file (passline's "
               "--reproducer: the failing pass alone)"),
      cl::cat(category)};
  cl::opt<bool> local_reproducer{
      "mlir-pass-pipeline-local-reproducer",
      cl::desc("A reproducer holds the failing pass alone (passline's reproducers always do)"), cl::cat(category)};
  cl::opt<bool> statistics{"mlir-pass-statistics",
                           cl::desc("Print the passes' statistics at the end (passline's --stats)"), cl::cat(category)};
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
  return InstrumentRequests{.print_before = {f.print_before.begin(), f.print_before.end()},
                            .print_after = {f.print_after.begin(), f.print_after.end()},
                            .print_before_all = f.print_before_all,
                            .print_after_all = f.print_after_all,
                            .print_after_failure = f.print_after_failure,
                            .print_after_change = f.print_after_change,
                            .tree_dir = f.tree_dir,
                            .timing = f.timing,
                            .reproducer = f.reproducer,
                            .statistics = f.statistics};
}

namespace {

/// MLIR's -dump-pass-pipeline, as MlirOptMainConfig declares it (its value
/// kept in the config MLIR's pipeline callback reads).
cl::opt<bool, /*ExternalStorage=*/true>& dump_pass_pipeline() {
  return *static_cast<cl::opt<bool, true>*>(cl::getRegisteredOptions().lookup("dump-pass-pipeline"));
}

}  // namespace

QuietPipelineDump::QuietPipelineDump() : dump_(dump_pass_pipeline()) { dump_pass_pipeline().setValue(false); }
QuietPipelineDump::~QuietPipelineDump() { dump_pass_pipeline().setValue(dump_); }

void print_mlir_help() {
  llvm::outs() << "\nmlir-opt's flags (read by MLIR's own command-line code):\n";
  cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
}

}  // namespace passline_mlir_opt
