// A library of a downstream project that uses passline in its own code and
// hands it on to its users (PUBLIC), who never name passline::passline.
import passline;

namespace {
struct Increment {
  static constexpr passline::PassInfo info{.name = "Increment"};
  int operator()(int x, passline::PassContext&) const { return x + 1; }
};
}  // namespace

int run_twice(int ir) {
  passline::PassContext ctx;
  return passline::Sequential<Increment, Increment>{}(ir, ctx);
}
