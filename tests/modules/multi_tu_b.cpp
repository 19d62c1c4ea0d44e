#include <string>
#include <vector>
import passline;
import passline.testing;

std::vector<std::string> run_in_a();
int opt_level_seen_in_a();

using Pipeline = passline::Sequential<passline::testing::Step<"A">, passline::testing::Step<"B">>;

int main() {
  passline::PassContext ctx{.opt_level = 3};
  auto scope = ctx.enter();
  // The context entered here is the one the other translation unit sees.
  if (opt_level_seen_in_a() != 3) return 1;
  passline::Pass<passline::testing::Trace> pass = Pipeline{};
  const auto here = pass(passline::testing::Trace{}, ctx).ran;
  const auto there = run_in_a();
  return here == there && here == std::vector<std::string>{"A", "B"} ? 0 : 2;
}
