// A tool for passline::driver::main that does not say how to read its IR:
// one error that names what is missing.
// expect-error: passline::driver::main: the tool has no `IR read\(std::string text, const std::string& file\)`
// max-errors: 1
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
import passline;
import passline.driver;
import passline.testing;

using passline::testing::Trace;

struct Tool {
  std::string_view name = "trace-opt";
#ifndef PASSLINE_COMPILE_FAIL
  Trace read(std::string text, const std::string&) { return Trace{.ran = {text}}; }
#endif
  void write(const Trace& trace, const std::function<void(std::string_view)>& put, std::size_t) {
    for (const std::string& pass : trace.ran) put(pass);
  }
};

int run(int argc, char** argv) { return passline::driver::main<Trace>(argc, argv, Tool{}); }
