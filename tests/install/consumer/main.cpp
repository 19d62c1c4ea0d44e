// Uses the installed library: a static and a runtime pipeline over an int "IR".
#include <cstdio>
#include <vector>
import passline;

struct Double {
  static constexpr passline::PassInfo info{.name = "Double", .opt_level = 1};
  int operator()(int ir, passline::PassContext&) const { return ir * 2; }
};

struct Increment {
  static constexpr passline::PassInfo info{.name = "Increment", .opt_level = 3};
  int operator()(int ir, passline::PassContext&) const { return ir + 1; }
};

int main() {
  passline::PassContext ctx;  // opt level 2: Increment does not run
  const int from_static = passline::Sequential<Double, Increment, Double>{}(5, ctx);
  const passline::Pass<int> pipeline = passline::sequential<int>({Double{}, Increment{}});
  ctx.opt_level = 3;
  const int from_runtime = pipeline(5, ctx);
  std::printf("static %d, runtime %d\n", from_static, from_runtime);
  return from_static == 20 && from_runtime == 11 ? 0 : 1;
}
