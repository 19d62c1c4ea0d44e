// Passes with planted bugs, for --reduce's tests: each misbehaves only on
// the pattern `mod(X, 7919)`, and leaves every other IR as it is. The
// plugin planted_bugs.cpp registers them; reduced_pipeline.cpp builds the
// pipeline a reduction printed from them. Include it after importing
// passline and passline.ir.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

namespace planted {

using passline::ir::Body;
using passline::ir::ExprId;
using passline::ir::Kind;
using passline::ir::Module;

inline constexpr std::int64_t pattern_constant = 7919;

/// Whether node `id` of `body` is the pattern.
inline bool is_pattern(const Body& body, ExprId id) {
  const auto& n = body[id];
  return n.kind == Kind::op && n.op == passline::ir::Op::mod && body[n.b].kind == Kind::int_const &&
         body.int_value(n.b) == pattern_constant;
}

inline bool has_pattern(const Module& module) {
  for (const auto& fn : module.functions) {
    for (ExprId id = 0; id < fn.body->size(); ++id) {
      if (is_pattern(*fn.body, id)) return true;
    }
  }
  return false;
}

/// Fails (a pass error) on the pattern.
struct PlantedFail {
  static constexpr passline::PassInfo info{.name = "PlantedFail",
                                           .opt_level = 1,
                                           .required = passline::needs<"InferType">,
                                           .summary = "fails on mod(x, 7919)"};
  Module operator()(Module module, passline::PassContext&) const {
    if (has_pattern(module)) throw std::runtime_error("found mod by 7919, which it cannot handle");
    return module;
  }
};

/// Crashes (SIGABRT) on the pattern.
struct PlantedCrash {
  static constexpr passline::PassInfo info{.name = "PlantedCrash",
                                           .opt_level = 1,
                                           .required = passline::needs<"InferType">,
                                           .summary = "aborts on mod(x, 7919)"};
  Module operator()(Module module, passline::PassContext&) const {
    if (has_pattern(module)) std::abort();
    return module;
  }
};

/// Never ends on the pattern.
struct PlantedHang {
  static constexpr passline::PassInfo info{.name = "PlantedHang",
                                           .opt_level = 1,
                                           .required = passline::needs<"InferType">,
                                           .summary = "loops forever on mod(x, 7919)"};
  Module operator()(Module module, passline::PassContext&) const {
    while (has_pattern(module)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return module;
  }
};

/// Rewrites the pattern into a different value, `mod(x, 7920)`: a miscompile.
struct PlantedMiscompile {
  static constexpr passline::PassInfo info{.name = "PlantedMiscompile",
                                           .opt_level = 1,
                                           .required = passline::needs<"InferType">,
                                           .summary = "rewrites mod(x, 7919) into mod(x, 7920)"};
  Module operator()(Module module, passline::PassContext&) const {
    struct Miscompile final : passline::ir::Rewrite {
      const Body* body = nullptr;
      ExprId node(passline::ir::BodyBuilder& out, ExprId old_id, const passline::ir::Node& node,
                  std::vector<ExprId>& list) override {
        if (node.kind == Kind::int_const && body->int_value(old_id) == pattern_constant) {
          changed = true;
          return out.int_const(pattern_constant + 1, node.loc);
        }
        return list_node(out, node, list);
      }
    };
    for (auto& fn : module.functions) {
      bool found = false;
      for (ExprId id = 0; id < fn.body->size() && !found; ++id) found = is_pattern(*fn.body, id);
      if (!found) continue;
      Miscompile rewrite;
      rewrite.body = fn.body.get();
      fn.body = passline::ir::rewrite(fn.body, rewrite);
    }
    return module;
  }
};

/// Leaves the IR broken on the pattern: the function's body becomes an
/// `add` of one operand, which the verifier rejects.
struct PlantedBreak {
  static constexpr passline::PassInfo info{.name = "PlantedBreak",
                                           .opt_level = 1,
                                           .required = passline::needs<"InferType">,
                                           .summary = "breaks the IR on mod(x, 7919)"};
  Module operator()(Module module, passline::PassContext&) const {
    for (auto& fn : module.functions) {
      const Body& body = *fn.body;
      bool found = false;
      for (ExprId id = 0; id < body.size() && !found; ++id) found = is_pattern(body, id);
      if (!found) continue;
      passline::ir::BodyBuilder out(body);
      std::vector<ExprId> params;
      for (const ExprId p : body.params()) params.push_back(out.var_like(body, p, body[p].type));
      const ExprId one = out.int_const(1, 0);
      const ExprId broken = out.op(passline::ir::Op::add, std::span<const ExprId>(&one, 1), body.result(), 0);
      fn.body = out.finish(params, broken, body.result());
    }
    return module;
  }
};

}  // namespace planted
