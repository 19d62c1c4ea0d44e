// Two translation units import passline, instantiate the same templates and use
// the same thread-local context stack: the link must see one of each.
#include <string>
#include <vector>
import passline;
import passline.testing;

using Pipeline = passline::Sequential<passline::testing::Step<"A">, passline::testing::Step<"B">>;

std::vector<std::string> run_in_a() {
  passline::Pass<passline::testing::Trace> pass = Pipeline{};
  return pass(passline::testing::Trace{}, passline::PassContext::current()).ran;
}

int opt_level_seen_in_a() { return passline::PassContext::current().opt_level; }
