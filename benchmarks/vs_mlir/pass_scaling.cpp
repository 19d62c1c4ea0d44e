// One pass alone on one module: nanoseconds per node of its input, the best
// of several runs (parsing and printing are not timed).
//
//   pass_scaling FILE.ir PASS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

import passline;
import passline.ir;
import passline.ir.passes;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FILE.ir PASS\n", argv[0]);
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const passline::ir::Module module = passline::ir::parse(std::string(std::istreambuf_iterator<char>(in), {}), argv[1]);
  std::size_t nodes = 0;
  for (const auto& fn : module.functions) nodes += fn.body->size();
  // The pass alone: what it requires (InferType) has run on the input already.
  const passline::Pass<passline::ir::Module> pass = passline::ir::registry().create(argv[2]);
  double best = 1e300;
  const int runs = nodes > 1'000'000 ? 3 : 7;
  for (int run = 0; run < runs; ++run) {
    passline::PassContext ctx;
    ctx.opt_level = 3;
    const auto start = std::chrono::steady_clock::now();
    const passline::ir::Module out = pass(module, ctx);
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(stop - start).count());
  }
  std::printf("%.1f\n", best / static_cast<double>(nodes));
  return 0;
}
