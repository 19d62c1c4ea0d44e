// Pipelines a reduction printed, pasted into C++: the `--passes=` texts of
// two reproducers (reduced_text.h, which paste.sh writes: `reduced`, the
// pipeline reduced, and `kept`, the pipeline kept whole) made static
// pipelines at compile time, over a catalog of the reference IR's passes and
// the planted ones. Prints the plan of the one named WHICH at --opt-level=3
// as `--print-pipeline=expanded` prints it, then runs it on the module in
// the file REPRODUCER and prints what fails.
//   reduced_pipeline reduced|kept REPRODUCER
#include <cstdio>
#include <exception>
#include <string>

import passline;
import passline.ir;
import passline.ir.passes;

#include "planted_bugs.h"
#include "reduced_text.h"

namespace ir = passline::ir;

using Passes = passline::Catalog<ir::InferType, ir::FoldConstant, ir::SimplifyExpr, ir::EliminateCommonSubexpr,
                                 ir::DeadCodeElimination, ir::Inline, planted::PlantedFail, planted::PlantedCrash,
                                 planted::PlantedHang, planted::PlantedMiscompile, planted::PlantedBreak>;

/// Prints the plan of the static pipeline P, run as a runtime pass (whose
/// plan adds the passes it requires, as the reproducer's run does), and
/// what fails when it runs on the module in `file`.
template <class P>
void plan_and_run(const char* file) {
  passline::PassContext ctx;
  ctx.opt_level = 3;
  const passline::Pass<ir::Module> pipeline = P{};
  std::fputs(passline::plan_text(pipeline.plan(ctx)).c_str(), stdout);
  try {
    (void)pipeline(ir::parse_file(file, file), ctx);
    std::puts("the pipeline ran without error");
  } catch (const std::exception& error) {
    std::printf("error: %s\n", error.what());
  }
}

int main(int argc, char** argv) {
  const std::string which = argc == 3 ? argv[1] : "";
  if (which == "reduced") {
    plan_and_run<Passes::Pipeline<reduced>>(argv[2]);
  } else if (which == "kept") {
    plan_and_run<Passes::Pipeline<kept>>(argv[2]);
  } else {
    std::fputs("usage: reduced_pipeline reduced|kept REPRODUCER\n", stderr);
    return 2;
  }
  return 0;
}
