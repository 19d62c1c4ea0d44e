// passline.mlir.opt: passline-mlir-opt for the dialects and passes of a
// project of your own, as MLIR's MlirOptMain is mlir-opt for them.
//
//   #include <mlir/IR/DialectRegistry.h>
//   #include <mlir/InitAllDialects.h>
//   import passline.mlir.opt;
//
//   int main(int argc, char** argv) {
//     mlir::DialectRegistry dialects;
//     mlir::registerAllDialects(dialects);
//     my::registerMyDialect(dialects);   // your dialects
//     my::registerMyPasses();            // your passes, with MLIR's registry
//     return passline::mlir::opt_main(argc, argv, "my-opt", dialects);
//   }
//
// The tool takes mlir-opt's command line (MLIR's own code reads its flags:
// every registered pass as a flag, --pass-pipeline, -split-input-file,
// -verify-diagnostics, the printing flags, MLIR's reproducers, ...) and runs
// it under passline's pass manager, with all of passline-opt's flags:
// --passes in passline's text over MLIR's pass names, the instruments
// (--print-changed, --time-passes, --trace, --dump-dir, --verify-each,
// --bisect, --report), --reproducer and --run-reproducer, --reduce, passline's
// and MLIR's pass plugins (--load-pass-plugin; a tool that loads passline's
// plugins exports its symbols for them: passline_export_for_plugins), and
// reading and writing MLIR on its threads. docs/mlir.md tells it all.
module;

#include <string_view>

namespace mlir {
class DialectRegistry;
}

export module passline.mlir.opt;

export namespace passline::mlir {

/// Runs the command line `argv` as passline-mlir-opt does, as the tool
/// `name` (its --help, messages and reproducers say so), reading the
/// dialects of `dialects` (which outlives the call) and running any pass
/// registered with MLIR: every pass of MLIR's (mlir::registerAllPasses,
/// which this does), and those registered before the call. Returns the exit
/// code: 0, or 1 with the error on standard error. Once in a process, as
/// MlirOptMain: it declares mlir-opt's flags with LLVM's command-line parser.
int opt_main(int argc, char** argv, std::string_view name, ::mlir::DialectRegistry& dialects);

}  // namespace passline::mlir
