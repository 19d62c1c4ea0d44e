// Writes one random straight-line program twice: as passline IR and as MLIR
// (`func` + `arith`), operation for operation, so that `passline-opt -O2` and
// `mlir-opt --canonicalize --cse` get the same work.
//
//   vs_mlir_generate OPS SEED OUT.ir OUT.mlir [FUNCTIONS]
//
// With FUNCTIONS, the operations are shared out among that many functions,
// @f0, @f1, ..., each a program of its own.
//
// Each operation is one `let` in passline IR and one op in MLIR: a constant,
// an add, sub or mul of earlier values, and in fixed shares:
//   - constant subexpressions (an op on two constants, and chains of them),
//   - repeats of an earlier op on the same operands (common subexpressions),
//   - identities (x + 0, x * 1, x - 0),
//   - dead ops, whose results nothing uses.
// Every other result feeds a later op, and those still unused at the end are
// returned, so the live part is what both tools must keep.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/os.h>

namespace {

struct Op {
  enum Kind { constant, add, sub, mul } kind;
  std::int64_t value = 0;  // constant
  std::uint32_t x = 0, y = 0;
};

constexpr const char* passline_name[] = {"", "add", "sub", "mul"};
constexpr const char* mlir_name[] = {"", "arith.addi", "arith.subi", "arith.muli"};
constexpr std::uint32_t params = 4;

/// One function's operations, and the values it returns.
struct Program {
  std::vector<Op> ops;
  std::vector<std::uint32_t> results;
};

Program generate(std::uint64_t count, std::mt19937_64& rng) {
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  // Values 0..3 are the parameters; value params + i is op i.
  std::vector<Op> ops;
  std::vector<std::uint8_t> used(params + count, 0);
  std::deque<std::uint32_t> unused;  // live results no op has used yet
  for (std::uint32_t p = 0; p < params; ++p) unused.push_back(p);
  auto recent = [&](std::uint32_t self) {
    const std::uint32_t window = std::min<std::uint32_t>(self, 64);
    return self - 1 - static_cast<std::uint32_t>(rng() % window);
  };
  auto constant = [&](std::int64_t v) {
    ops.push_back({Op::constant, v});
    return static_cast<std::uint32_t>(params + ops.size() - 1);
  };
  while (ops.size() < count) {
    const auto self = static_cast<std::uint32_t>(params + ops.size());
    const auto kind = static_cast<Op::Kind>(1 + rng() % 3);
    if (chance(10) && ops.size() + 3 <= count) {  // a constant subexpression
      const std::uint32_t a = constant(static_cast<std::int64_t>(rng() % 100));
      const std::uint32_t b = constant(static_cast<std::int64_t>(rng() % 100));
      ops.push_back({kind, 0, a, b});
      used[a] = used[b] = 1;
      unused.push_back(static_cast<std::uint32_t>(params + ops.size() - 1));
    } else if (chance(8) && ops.size() > 1 && ops.back().kind != Op::constant) {  // a repeat
      Op again = ops.back();
      ops.push_back(again);
      unused.push_back(self);
    } else if (chance(5) && ops.size() + 2 <= count) {  // an identity
      const std::uint32_t x = unused.empty() ? recent(self) : unused.front();
      if (!unused.empty()) unused.pop_front();
      const int which = static_cast<int>(rng() % 3);
      const std::uint32_t c = constant(which == 2 ? 1 : 0);
      ops.push_back({which == 0 ? Op::add : which == 1 ? Op::sub : Op::mul, 0, x, c});
      used[x] = used[c] = 1;
      unused.push_back(static_cast<std::uint32_t>(params + ops.size() - 1));
    } else if (chance(8)) {  // dead: nothing will use it
      ops.push_back({kind, 0, recent(self), recent(self)});
      used[self] = 2;
    } else {
      std::uint32_t x = recent(self);
      if (!unused.empty()) {
        x = unused.front();
        unused.pop_front();
      }
      std::uint32_t y = recent(self);
      if (used[y] == 2) y = x;  // never revive a dead value
      if (used[x] == 2) x = y;
      ops.push_back({kind, 0, x, y});
      used[x] = used[y] = 1;
      unused.push_back(self);
    }
  }
  std::vector<std::uint32_t> results;
  for (std::uint32_t v : unused) {
    if (used[v] == 0) results.push_back(v);
  }
  if (results.empty()) results.push_back(params + static_cast<std::uint32_t>(count) - 1);

  return {std::move(ops), std::move(results)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: %s OPS SEED OUT.ir OUT.mlir [FUNCTIONS]\n", argv[0]);
    return 1;
  }
  const std::uint64_t count = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t functions = argc == 6 ? std::max<std::uint64_t>(1, std::strtoull(argv[5], nullptr, 10)) : 1;
  std::mt19937_64 rng(std::strtoull(argv[2], nullptr, 10));
  std::vector<Program> programs;
  for (std::uint64_t f = 0; f < functions; ++f) {
    programs.push_back(generate(count / functions + (f < count % functions ? 1 : 0), rng));
  }
  // One function is @main; several are @f0, @f1, ..., every one exported.
  auto name = [&](std::size_t f) { return functions == 1 ? std::string("main") : fmt::format("f{}", f); };
  auto value = [](std::uint32_t v) { return v < params ? fmt::format("%a{}", v) : fmt::format("%v{}", v - params); };
  {
    auto out = fmt::output_file(argv[3]);
    for (std::size_t f = 0; f < programs.size(); ++f) {
      const auto& [ops, results] = programs[f];
      out.print("{}#[export]\ndef @{}(%a0: i64, %a1: i64, %a2: i64, %a3: i64) {{\n", f ? "\n" : "", name(f));
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        if (op.kind == Op::constant) {
          out.print("  let %v{} = {};\n", i, op.value);
        } else {
          out.print("  let %v{} = {}({}, {});\n", i, passline_name[op.kind], value(op.x), value(op.y));
        }
      }
      out.print("  (");
      for (std::size_t r = 0; r < results.size(); ++r) out.print("{}{}", r ? ", " : "", value(results[r]));
      out.print("{})\n}}\n", results.size() == 1 ? "," : "");
    }
  }
  {
    auto out = fmt::output_file(argv[4]);
    for (std::size_t f = 0; f < programs.size(); ++f) {
      const auto& [ops, results] = programs[f];
      std::string types;
      for (std::size_t r = 0; r < results.size(); ++r) types += r ? ", i64" : "i64";
      out.print("func.func @{}(%a0: i64, %a1: i64, %a2: i64, %a3: i64) -> ({}) {{\n", name(f), types);
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        if (op.kind == Op::constant) {
          out.print("  %v{} = arith.constant {} : i64\n", i, op.value);
        } else {
          out.print("  %v{} = {} {}, {} : i64\n", i, mlir_name[op.kind], value(op.x), value(op.y));
        }
      }
      out.print("  return ");
      for (std::size_t r = 0; r < results.size(); ++r) out.print("{}{}", r ? ", " : "", value(results[r]));
      out.print(" : {}\n}}\n", types);
    }
  }
  return 0;
}
