// Uses the installed reference IR: parses a function, runs the registered O2
// pipeline from pipeline text, and prints the result.
#include <cstdio>
#include <string>
import passline;
import passline.ir;
import passline.pipelines;

int main() {
  passline::ir::Module module = passline::ir::parse(
      "def @f(%x: i64) -> i64 {\n  let %unused = mul(%x, 5);\n  mul(%x, add(3, 4))\n}\n", "f.ir");
  const passline::Pass<passline::ir::Module> o2 = passline::parse_pipeline("O2", passline::pipelines::registry());
  passline::PassContext ctx;
  module = o2(std::move(module), ctx);
  const std::string text = passline::ir::print(module);
  std::printf("%s", text.c_str());
  return text == "def @f(%x: i64) -> i64 {\n  mul(%x, 7)\n}\n" ? 0 : 1;
}
