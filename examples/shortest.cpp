// The shortest passline program: an IR (here an int), two passes that are
// types, and a pipeline of them that the compiler checks: Double requires
// AddOne, so Sequential<Double, AddOne> does not compile.
#include <fmt/core.h>
import passline;

struct AddOne {
  static constexpr passline::PassInfo info{.name = "AddOne"};
  int operator()(int ir, passline::PassContext&) const { return ir + 1; }
};

struct Double {
  static constexpr passline::PassInfo info{.name = "Double", .required = passline::needs<"AddOne">};
  int operator()(int ir, passline::PassContext&) const { return ir * 2; }
};

int main() {
  passline::PassContext ctx;
  fmt::print("{}\n", passline::Sequential<AddOne, Double>{}(20, ctx));
}
