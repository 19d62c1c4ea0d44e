// mlir-opt's command line in passline.mlir.opt's tools: MLIR's own flags,
// declared by MLIR's code and read by LLVM's parser, beside passline's, read
// by CLI11.
//
// A user's mlir-opt command line runs unchanged: every word whose flag
// passline's driver declares goes to CLI11, every other word to LLVM's
// parser, where MLIR declared mlir-opt's flags (MlirOptMainConfig's, the
// printing, context and timing flags, the pass flags and --pass-pipeline).
// mlir-opt's IR printing flags are declared here with mlir-opt's names, and
// set up MLIR's own printer (and MLIR's timing, for -mlir-timing) on each
// MLIR pass manager of passline's run, and so is MLIR's crash reproducer;
// its statistics flag is handed to passline's.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
class DialectRegistry;
class PassManager;
class TimingScope;
}

namespace passline_mlir_opt {

/// The words of a command line, each for the parser that declares its flag.
struct Words {
  std::vector<std::string> passline;  // CLI11's: passline's flags and the operands
  std::vector<std::string> mlir;      // LLVM's: mlir-opt's flags
};

/// Whether passline's parser declares the flag `--name` (or `-n`), and if
/// so, whether it takes a value.
using PasslineFlag = std::function<std::optional<bool>(std::string_view name)>;

/// Splits the words after the program's name. A flag may be written with one
/// dash or two, as LLVM's parser reads them; passline's then get two.
Words split_words(std::span<char* const> words, const PasslineFlag& passline_flag);

/// Declares mlir-opt's flags with LLVM's parser: MLIR's (MlirOptMainConfig's
/// with the pass flags and --pass-pipeline, the printing, context and debug
/// flags), and those passline's instruments carry out. Dialect plugins
/// register into `dialects`, which must outlive the run.
void declare_mlir_flags(mlir::DialectRegistry& dialects);

/// Reads `words` with LLVM's parser, `tool` first; `overview` heads LLVM's
/// help. Returns the error, one line, if the words do not parse.
std::optional<std::string> parse_mlir_flags(const std::string& tool, const std::string& overview,
                                            const std::vector<std::string>& words);

/// What mlir-opt's flags ask of passline's driver: statistics (passline's
/// instruments), and whether IR is printed with its module or a crash
/// reproducer holds the failing pass alone (which MLIR does with one thread
/// only).
struct InstrumentRequests {
  bool print_module_scope = false;
  bool local_reproducer = false;
  bool statistics = false;
};
InstrumentRequests instrument_requests();

/// What mlir-opt's IR printing flags (-mlir-print-ir-*), its crash
/// reproducer (-mlir-pass-pipeline-crash-reproducer) and `timing` (where the
/// scope of MLIR's timing report of the chunk being run is, under
/// -mlir-timing; else null) add to each MLIR
/// pass manager of a run, as MlirOptMain adds them to its one: MLIR's IR
/// printer (to standard error, or to one file tree for the whole run), MLIR's
/// crash reproducer (the first one of the run written) and MLIR's pass timing.
struct MlirInstruments {
  /// Called on each MLIR pass manager of the run; empty when nothing is asked.
  std::function<void(mlir::PassManager&)> setup;
  /// Why a file of -mlir-print-ir-tree-dir or the reproducer could not be
  /// written, the first time: the run goes on, and then fails.
  std::function<std::optional<std::string>()> failure;
};
MlirInstruments mlir_instruments(mlir::TimingScope* const* timing);

/// --pass-pipeline's text as given, or empty.
std::string pass_pipeline_text();

/// LLVM's help for the flags it declares (mlir-opt's), on stdout.
void print_mlir_help();

}  // namespace passline_mlir_opt
