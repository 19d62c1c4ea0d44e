// `import passline.instruments;` beside `import passline;` gives the
// standard instruments: a timing report of a run names its passes.
#include <memory>
#include <string>
import passline;
import passline.instruments;

struct Noop {
  static constexpr passline::PassInfo info{.name = "Noop"};
  int operator()(int ir, passline::PassContext&) const { return ir + 1; }
};

int main() {
  auto timing = std::make_shared<passline::TimePasses>();
  passline::PassContext ctx;
  ctx.instruments = {timing};
  // The context's record: the instrument starts a new one when the context exits.
  const std::shared_ptr<passline::PassTimings> timings = timing->timings();
  int result = 0;
  {
    auto scope = ctx.enter();
    result = passline::Sequential<Noop, Noop>{}(40, ctx);
  }
  return result == 42 && timings->report().find("Noop") != std::string::npos ? 0 : 1;
}
