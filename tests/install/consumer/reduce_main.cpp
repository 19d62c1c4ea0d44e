// Uses the installed reducer as docs/debugging.md shows it from C++:
// passline::reduce::reduce<IR> judged by a predicate of its own, over the
// reference IR's ReduceTraits (passline.ir.reduce). The "failure": a
// module that still multiplies by 7 after O1.
#include <cstdio>
#include <string>
import passline;
import passline.ir;
import passline.ir.reduce;
import passline.pipelines;
import passline.reduce;

int main() {
  passline::ir::Module module = passline::ir::parse(
      "def @f(%x: i64) -> i64 {\n  add(%x, 1)\n}\n"
      "#[export]\ndef @g(%y: i64) -> i64 {\n  let %a = add(%y, 2);\n  mul(%a, 7)\n}\n"
      "#[export]\ndef @h(%z: i64) -> i64 {\n  sub(%z, 3)\n}\n",
      "in.ir");
  auto still_fails = [](const std::string& pipeline, const passline::ir::Module& candidate) {
    passline::PassContext ctx;
    const passline::ir::Module out =
        passline::parse_pipeline(pipeline, passline::pipelines::registry())(candidate, ctx);
    return passline::ir::print(out).find(", 7)") != std::string::npos;
  };
  passline::reduce::Progress quiet("reduce_consumer", /*quiet=*/true);
  const passline::PassContext ctx;
  const passline::reduce::Reduced<passline::ir::Module> reduced = passline::reduce::reduce<passline::ir::Module>(
      passline::reduce::planned_steps(
          passline::parse_pipeline("InferType,FoldConstant,DeadCodeElimination", passline::pipelines::registry()), ctx),
      module, passline::reduce::judged_by<passline::ir::Module>(still_fails), quiet);
  const std::string text = passline::ir::print(reduced.ir);
  std::printf("%s: %s", reduced.pipeline.c_str(), text.c_str());
  // One function left, the one that multiplies, and no pass needed.
  return reduced.pipeline.empty() && text.find("@g") != std::string::npos && text.find("@f") == std::string::npos &&
                 text.find("@h") == std::string::npos
             ? 0
             : 1;
}
