// How a compile-fail case puts its pass or pipeline, `Case`, to use
// (`PASSLINE_USE(IR)`): run on an IR, as the case itself does, or, in the
// variants its `// also-in:` line lists (PasslineCompileFail.cmake), inside a
// Sequential, inside a Compiled form, or registered in a Registry. Each
// variant must fail with the case's one error, within its line budget.
#pragma once

#if defined(PASSLINE_IN_SEQUENTIAL)
#define PASSLINE_IN_CONTEXT 1
#define PASSLINE_USE(IR) \
  IR use_case(passline::PassContext& ctx) { return passline::Sequential<Case>{}(IR{}, ctx); }
#elif defined(PASSLINE_IN_COMPILED)
#define PASSLINE_IN_CONTEXT 1
#define PASSLINE_USE(IR)                                                                 \
  IR use_case(passline::PassContext& ctx) {                                              \
    return passline::Compiled<3, passline::Sequential<Case>>{}(IR{}, ctx);               \
  }
#elif defined(PASSLINE_IN_REGISTRY)
#define PASSLINE_IN_CONTEXT 1
#define PASSLINE_USE(IR)                                      \
  template <class P>                                          \
  void use_case(passline::Registry<IR>& registry) {           \
    if constexpr (requires { P::passes; }) {                  \
      registry.template add<P>("Case");                       \
    } else {                                                  \
      registry.template add<P>();                             \
    }                                                         \
  }                                                           \
  template void use_case<Case>(passline::Registry<IR>&);
#else
#define PASSLINE_IN_CONTEXT 0
#define PASSLINE_USE(IR) \
  IR use_case(passline::PassContext& ctx) { return Case{}(IR{}, ctx); }
#endif
