// A pipeline from text on one module, from C++: the best wall time of
// several runs, in seconds (parsing and printing are not timed). The
// counterpart of what benchmarks/python/overhead.py times from Python.
// The file is read as passline-opt reads it (ir::parse_file maps it): a
// read into a growing std::string frees buffers of up to twice the file's
// size, and glibc's malloc, which raises its mmap and trim thresholds to
// the largest block freed, then returns less memory to the system during
// the runs than in a process that never freed such a block (a Python
// process, or the driver); that alone made this side 8% faster.
//
//   pipeline_run FILE.ir PIPELINE RUNS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

import passline;
import passline.ir;
import passline.pipelines;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FILE.ir PIPELINE RUNS\n", argv[0]);
    return 1;
  }
  const passline::ir::Module module = passline::ir::parse_file(argv[1], argv[1]);
  const passline::Pass<passline::ir::Module> pipeline = passline::parse_pipeline(argv[2], passline::pipelines::registry());
  double best = 1e300;
  for (int run = 0, runs = std::atoi(argv[3]); run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const passline::ir::Module out = pipeline(module);
    const auto stop = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(stop - start).count());
  }
  std::printf("%.6f\n", best);
  return 0;
}
