// One pass alone on one module: nanoseconds per node of its input, the best
// of several runs. Each run parses the file afresh and runs InferType on it
// (neither is timed), so that the pass meets its input as in passline-opt:
// typed, and held by nothing else, so that it may rewrite it in place.
//
//   pass_scaling FILE.ir PASS [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

import passline;
import passline.ir;
import passline.ir.passes;

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s FILE.ir PASS [RUNS]\n", argv[0]);
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  const passline::Pass<passline::ir::Module> infer_type = passline::ir::registry().create("InferType");
  const passline::Pass<passline::ir::Module> pass = passline::ir::registry().create(argv[2]);
  double best = 1e300;
  std::size_t nodes = 0;
  const int runs = argc == 4 ? std::atoi(argv[3]) : 3;
  for (int run = 0; run < runs; ++run) {
    passline::PassContext ctx;
    ctx.opt_level = 3;
    passline::ir::Module module = infer_type(passline::ir::parse(text, argv[1]), ctx);
    nodes = 0;
    for (const auto& fn : module.functions) nodes += fn.body->size();
    const auto start = std::chrono::steady_clock::now();
    const passline::ir::Module out = pass(std::move(module), ctx);
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(stop - start).count());
  }
  std::printf("%.1f\n", best / static_cast<double>(nodes));
  return 0;
}
