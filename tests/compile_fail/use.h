// How a compile-fail case puts its pass or pipeline, `Case`, to use on a
// passline::testing::Trace: included at the end of the case, after `Case`.
// The case itself runs it; the variants its `// also-in:` line lists
// (PasslineCompileFail.cmake, which defines PASSLINE_IN_CONTEXT for them) run
// it inside a Sequential or a Compiled form, or register it in a Registry.
// Each must fail with the case's one error, within its line budget. The uses
// are written out, as a user writes them, so the error's notes are the ones a
// user sees.
#if defined(PASSLINE_IN_SEQUENTIAL)
passline::testing::Trace use_case(passline::PassContext& ctx) {
  return passline::Sequential<Case>{}(passline::testing::Trace{}, ctx);
}
#elif defined(PASSLINE_IN_COMPILED)
passline::testing::Trace use_case(passline::PassContext& ctx) {
  return passline::Compiled<3, passline::Sequential<Case>>{}(passline::testing::Trace{}, ctx);
}
#elif defined(PASSLINE_IN_REGISTRY)
void use_case(passline::Registry<passline::testing::Trace>& registry) { registry.add<Case>("Case"); }
#else
passline::testing::Trace use_case(passline::PassContext& ctx) { return Case{}(passline::testing::Trace{}, ctx); }
#endif
