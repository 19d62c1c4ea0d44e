// mlir-opt's command line in passline-mlir-opt: MLIR's own flags, declared
// by MLIR's code and read by LLVM's parser, beside passline's, read by CLI11.
//
// A user's mlir-opt command line runs unchanged: every word whose flag
// passline's driver declares goes to CLI11, every other word to LLVM's
// parser, where MLIR declared mlir-opt's flags (MlirOptMainConfig's, the
// printing and context flags, the pass flags and --pass-pipeline). The flags
// of mlir-opt that passline's instruments carry out (IR printing, timing,
// the crash reproducer, statistics) are declared here with mlir-opt's
// names, for the driver to hand to those instruments.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mlir {
class DialectRegistry;
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

/// Reads `words` with LLVM's parser, `tool` first. Returns the error, one
/// line, if the words do not parse.
std::optional<std::string> parse_mlir_flags(const std::string& tool, const std::vector<std::string>& words);

/// What mlir-opt's instrument flags asked for, as passline's instruments take it.
struct InstrumentRequests {
  std::vector<std::string> print_before;
  std::vector<std::string> print_after;
  bool print_before_all = false;
  bool print_after_all = false;
  bool print_after_change = false;
  std::string tree_dir;
  bool timing = false;
  std::string reproducer;
  bool statistics = false;
};
InstrumentRequests instrument_requests();

/// LLVM's help for the flags it declares (mlir-opt's), on stdout.
void print_mlir_help();

}  // namespace passline_mlir_opt
