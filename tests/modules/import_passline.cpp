// `import passline;` alone, with nothing included before it, gives the whole
// public API: every exported partition is reachable through the umbrella.
import passline;

struct Noop {
  static constexpr passline::PassInfo info{.name = "Noop"};
  int operator()(int ir, passline::PassContext&) const { return ir + 1; }
};

int main() {
  passline::PassContext ctx;
  auto scope = ctx.enter();
  passline::Pass<int> erased = passline::Sequential<Noop, Noop>{};
  return erased(40, passline::PassContext::current()) == 42 ? 0 : 1;
}
