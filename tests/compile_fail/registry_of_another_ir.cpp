// A pass over Trace put in a registry of Program: the registry says the pass
// cannot run on its IR, in one error, as a pipeline would.
// expect-error: requirement 'compile_error<passline::pass_cannot_run_on<OnTrace, passline::testing::Program>>'
// expect-error: fits neither shape
// max-errors: 1
import passline;
import passline.testing;

using passline::testing::Program;
using passline::testing::Trace;

struct OnTrace {
  static constexpr passline::PassInfo info{.name = "OnTrace"};
  Trace operator()(Trace trace, passline::PassContext&) const { return trace; }
};
struct OnProgram {
  static constexpr passline::PassInfo info{.name = "OnProgram"};
  Program operator()(Program program, passline::PassContext&) const { return program; }
};

void fill(passline::Registry<Program>& registry) {
#ifdef PASSLINE_COMPILE_FAIL
  registry.add<OnTrace>();
#else
  registry.add<OnProgram>();
#endif
}
