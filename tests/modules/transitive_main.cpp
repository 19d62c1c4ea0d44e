// `import passline;` in a target that links passline only through another
// library (transitive_lib links passline::passline PUBLIC).
import passline;

int run_twice(int ir);

struct Double {
  static constexpr passline::PassInfo info{.name = "Double"};
  int operator()(int ir, passline::PassContext&) const { return ir * 2; }
};

int main() {
  passline::PassContext ctx;
  const passline::Pass<int> twice = Double{};
  return twice(run_twice(19), ctx) == 42 ? 0 : 1;
}
