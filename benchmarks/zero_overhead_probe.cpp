// Does the compiled form of a static pipeline cost what hand-written calls cost?
//
//   zero_overhead_probe handwritten|compiled ITERATIONS [SEED]
//
// Ten passes over a small state do real integer arithmetic; the seed comes from
// the command line, so the compiler cannot fold any of it. Two of the passes are
// above opt level 2 and vanish from `Compiled<2, ...>`; the hand-written chain
// leaves them out too. zero_overhead.sh runs both modes under callgrind and
// compares their instruction counts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
import passline;

namespace {

struct State {
  std::uint64_t a, b, c, d;
};

// The requirements order the passes; the passes in between keep what the
// required passes established, so the pipeline needs no re-runs.
constexpr auto kept = passline::names<"Mix", "Rotate", "MulAdd", "Fold">;

struct Mix {
  static constexpr passline::PassInfo info{.name = "Mix", .opt_level = 0};
  State operator()(State s, passline::PassContext&) const {
    s.a ^= s.b >> 7;
    s.b += s.a * 0x9E3779B97F4A7C15ull;
    return s;
  }
};
struct Rotate {
  static constexpr passline::PassInfo info{.name = "Rotate", .opt_level = 1, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    s.c = (s.c << 13) | (s.c >> 51);
    s.d ^= s.c;
    return s;
  }
};
struct MulAdd {
  static constexpr passline::PassInfo info{
      .name = "MulAdd", .opt_level = 1, .required = passline::needs<"Mix">, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    s.a = s.a * 6364136223846793005ull + s.d;
    return s;
  }
};
struct Fold {
  static constexpr passline::PassInfo info{.name = "Fold", .opt_level = 2, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    s.b ^= s.c + (s.d >> 3);
    return s;
  }
};
struct Square {
  static constexpr passline::PassInfo info{.name = "Square", .opt_level = 3, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    s.c = s.c * s.c + 1;
    return s;
  }
};
struct Shuffle {
  static constexpr passline::PassInfo info{
      .name = "Shuffle", .opt_level = 2, .required = passline::needs<"Rotate">, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    std::swap(s.a, s.d);
    s.b += s.a;
    return s;
  }
};
struct Clamp {
  static constexpr passline::PassInfo info{.name = "Clamp", .opt_level = 2, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    s.d = s.d % 1000003u + (s.a & 0xFFFF);
    return s;
  }
};
struct Xorshift {
  static constexpr passline::PassInfo info{.name = "Xorshift", .opt_level = 1, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    s.c ^= s.c << 13;
    s.c ^= s.c >> 7;
    s.c ^= s.c << 17;
    return s;
  }
};
struct Expensive {
  static constexpr passline::PassInfo info{.name = "Expensive", .opt_level = 3, .preserves = kept};
  State operator()(State s, passline::PassContext&) const {
    for (int i = 0; i < 64; ++i) s.a = s.a * 3 + s.b;
    return s;
  }
};
struct Combine {
  static constexpr passline::PassInfo info{
      .name = "Combine", .opt_level = 0, .required = passline::needs<"MulAdd", "Fold">};
  State operator()(State s, passline::PassContext&) const {
    s.a += s.b ^ s.c ^ s.d;
    return s;
  }
};

// The pipeline is written as text, read at compile time: the very type the
// Sequential written by hand is, so what follows holds for both.
using Passes = passline::Catalog<Mix, Rotate, MulAdd, Fold, Square, Shuffle, Clamp, Xorshift, Expensive, Combine>;
using Pipeline = Passes::Pipeline<"Mix,Rotate,MulAdd,Fold,Square,Shuffle,Clamp,Xorshift,Expensive,Combine">;
static_assert(std::is_same_v<Pipeline, passline::Sequential<Mix, Rotate, MulAdd, Fold, Square, Shuffle, Clamp,
                                                            Xorshift, Expensive, Combine>>);
using AtO2 = passline::Compiled<2, Pipeline>;

[[gnu::noinline]] State run_handwritten(State s, long iterations, passline::PassContext& ctx) {
  for (long i = 0; i < iterations; ++i) {
    s = Mix{}(s, ctx);
    s = Rotate{}(s, ctx);
    s = MulAdd{}(s, ctx);
    s = Fold{}(s, ctx);
    s = Shuffle{}(s, ctx);
    s = Clamp{}(s, ctx);
    s = Xorshift{}(s, ctx);
    s = Combine{}(s, ctx);
  }
  return s;
}

[[gnu::noinline]] State run_compiled(State s, long iterations, passline::PassContext& ctx) {
  for (long i = 0; i < iterations; ++i) s = AtO2{}(s, ctx);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "handwritten") != 0 && std::strcmp(argv[1], "compiled") != 0)) {
    std::fprintf(stderr, "usage: %s handwritten|compiled ITERATIONS [SEED]\n", argv[0]);
    return 1;
  }
  const long iterations = std::strtol(argv[2], nullptr, 10);
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 42;
  State s{seed, seed * 3 + 1, seed ^ 0xABCDEF, seed + 7};
  passline::PassContext ctx;
  s = std::strcmp(argv[1], "compiled") == 0 ? run_compiled(s, iterations, ctx)
                                             : run_handwritten(s, iterations, ctx);
  std::printf("%llu\n", static_cast<unsigned long long>(s.a ^ s.b ^ s.c ^ s.d));
}
