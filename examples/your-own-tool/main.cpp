// stack-opt: every flag of passline's tools, for the stack machine of
// stack.cppm, in one call of passline::driver::main. The tool says what is
// the IR's own: its name, how it is read, verified and named in --help, and
// where its passes are; the rest (pipelines, instruments, --report,
// --reduce, plugins, threads, reproducers) is passline's.
#include <string>
#include <string_view>
import passline;
import passline.driver;
import stack;

struct StackTool {
  std::string_view name = "stack-opt";
  passline::driver::Help help{.description = "stack-opt: runs passes over stack machine programs",
                              .extension = ".stack", .print_before = "fold", .print_after = "peephole",
                              .unit = "program", .disable_example = "peephole"};
  std::string_view comment = "#";
  std::string_view default_pipeline = "O2";
  stack::Program read(std::string text, const std::string& file) { return stack::parse(text, file); }
  void verify(const stack::Program& program) { stack::verify(program); }
  passline::Registry<stack::Program>& registry() { return stack::registry(); }
};

int main(int argc, char** argv) { return passline::driver::main<stack::Program>(argc, argv, StackTool{}); }
