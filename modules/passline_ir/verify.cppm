// The verifier: is a module well formed?
//
// Well formed means: names are names the text format reads (letters, digits
// and '_'; a variable may have none, and the printer names it); global names are unique and every global a body names exists; every variable is bound once and used only in its scope; operators
// get as many operands as they take, and calls of globals as many arguments as
// the callee has parameters. Types are InferType's business, not the
// verifier's. It also checks what the representation relies on: a body is a
// tree (only variables, constants and globals may have several users) whose
// operands come before the nodes that use them, and expressions nest no deeper
// than max_nesting. The walk is iterative, so deep let chains cost no stack.
module;
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
export module passline.ir:verify;
import :types;
import :body;
import :source;
import :functions;
import passline;
import passline.support;

export namespace passline::ir {

/// Throws IRError at the first ill-formed spot of `module`. With `threads`
/// > 1, the functions are checked on that many threads, and the error is the
/// first function's in module order: the one-thread error.
void verify(const Module& module, std::size_t threads = 1) {
  const Source& source = *module.source;
  std::unordered_map<std::string_view, const Function*> globals;
  for (const Function& fn : module.functions) {
    if (!is_name(fn.name)) {
      throw IRError(source, fn.loc, fmt::format("function name '@{}' is not a name (letters, digits and '_')", support::printable(fn.name)));
    }
    if (!fn.body) throw IRError(source, fn.loc, fmt::format("function '@{}' has no body", fn.name));
    if (!globals.try_emplace(fn.name, &fn).second) {
      throw IRError(source, fn.loc, fmt::format("function '@{}' is defined twice", fn.name));
    }
  }
  struct Frame {
    ExprId id;
    std::uint8_t phase;
    std::uint16_t depth = 0;  // how deep it nests below the root, as the text format writes it (up to max_nesting + 1)
  };
  auto check_function = [&](const Function& fn) {
    std::vector<Frame> stack;
    const Body& body = *fn.body;
    auto fail = [&](ExprId id, const std::string& message) {
      throw IRError(source, body[id].loc, fmt::format("in '@{}': {}", fn.name, message));
    };
    // What the walk knows of each node, in one byte: a node's three facts
    // are on one cache line, and the table is a third the size of three.
    enum : std::uint8_t { in_scope = 1, bound = 2, reached = 4 };
    std::vector<std::uint8_t> facts = detail::node_table(body.size(), std::uint8_t{0});
    auto bind = [&](ExprId var) {
      if (var >= body.size() || body[var].kind != Kind::var) fail(var < body.size() ? var : 0, "a binder that is not a variable");
      if (facts[var] & bound) fail(var, fmt::format("variable '%{}' is bound twice", body.name(var)));
      if (!body.name(var).empty() && !is_name(body.name(var))) {  // an unnamed one, the printer names
        fail(var, fmt::format("variable name '%{}' is not a name (letters, digits and '_')", support::printable(body.name(var))));
      }
      facts[var] |= bound | in_scope;
    };
    // Parameters carry their types (the text format has no other place for them).
    auto bind_param = [&](ExprId var) {
      bind(var);
      if (!body[var].type.known()) {
        fail(var, fmt::format("parameter '%{}' needs a type: '%{}: i64'", support::printable(body.name(var)), support::printable(body.name(var))));
      }
    };
    auto check = [&](ExprId child, ExprId parent) {
      if (child == no_expr || child >= body.size()) fail(parent, "an operand is missing");
      if (child >= parent) fail(parent, "an operand comes after the expression that uses it");
    };
    // An operand that is a variable in scope is checked by that alone: its
    // node, which may be far back in a large body, is not read.
    auto walk = [&](ExprId c, std::uint16_t depth) {
      if (!(facts[c] & in_scope)) stack.push_back({c, 0, depth});
    };
    // A node nests too deep if and only if some node lies deeper than
    // max_nesting below the root, so the walk tells whether the heights
    // (which say where) need computing at all.
    bool too_deep = false;
    auto operand_depth = [&](std::uint16_t depth) {
      too_deep = too_deep || depth >= max_nesting;
      return static_cast<std::uint16_t>(std::min<std::uint32_t>(depth + 1u, max_nesting + 1u));
    };
    for (ExprId p : body.params()) bind_param(p);
    if (body.root() >= body.size()) throw IRError(source, fn.loc, fmt::format("function '@{}' has no body", fn.name));
    stack = detail::walk_stack(body.size(), Frame{body.root(), 0});
    while (!stack.empty()) {
      const Frame frame = stack.back();
      stack.pop_back();
      const ExprId id = frame.id;
      const Node& n = body[id];
      if (frame.phase == 0 && !is_leaf(n.kind)) {
        if (facts[id] & reached) fail(id, "an expression is shared by two users (bodies are trees)");
        facts[id] |= reached;
      }
      switch (n.kind) {
        case Kind::var:
          if (!(facts[id] & in_scope)) fail(id, fmt::format("variable '%{}' is used outside its scope", body.name(id)));
          break;
        case Kind::let:
          if (frame.phase == 0) {
            check(n.a, id), check(n.b, id), check(n.c, id);
            stack.push_back({id, 1, frame.depth});
            stack.push_back({n.b, 0, operand_depth(frame.depth)});
          } else if (frame.phase == 1) {
            bind(n.a);
            stack.push_back({id, 2, frame.depth});
            stack.push_back({n.c, 0, frame.depth});  // a let's body continues its block
          } else {
            facts[n.a] &= ~in_scope;
          }
          break;
        case Kind::fn:
          if (frame.phase == 0) {
            for (ExprId p : body.fn_params(id)) bind_param(p);
            check(n.c, id);
            stack.push_back({id, 1, frame.depth});
            stack.push_back({n.c, 0, operand_depth(frame.depth)});
          } else {
            for (ExprId p : body.fn_params(id)) facts[p] &= ~in_scope;
          }
          break;
        case Kind::op: {
          const int given = (n.a != no_expr) + (n.b != no_expr) + (n.c != no_expr);
          if (given != op_arity(n.op)) {
            fail(id, fmt::format("operator '{}' takes {} operands, not {}", op_name(n.op), op_arity(n.op), given));
          }
          for_each_child(body, id, [&](ExprId c) { check(c, id), walk(c, operand_depth(frame.depth)); });
          break;
        }
        case Kind::global:
          if (!globals.contains(body.name(id))) fail(id, fmt::format("unknown function '@{}'", support::printable(body.name(id))));
          break;
        case Kind::call:
          if (n.a < body.size() && body[n.a].kind == Kind::global) {
            auto callee = globals.find(body.name(n.a));
            if (callee != globals.end() && callee->second->body &&
                callee->second->body->params().size() != body.args(id).size()) {
              const std::size_t params = callee->second->body->params().size();
              fail(id, fmt::format("'@{}' takes {} argument{}, not {}", body.name(n.a), params, params == 1 ? "" : "s",
                                   body.args(id).size()));
            }
          }
          [[fallthrough]];
        default:
          for_each_child(body, id, [&](ExprId c) { check(c, id), walk(c, operand_depth(frame.depth)); });
          break;
      }
    }
    // The first node, in the order a parser builds them, that nests too deep.
    if (!too_deep) return;
    const std::vector<std::uint16_t> height = nesting(body);
    for (ExprId id = 0; id < body.size(); ++id) {
      if (height[id] > max_nesting && (facts[id] & reached)) fail(id, fmt::format("expression nested more than {} deep", max_nesting));
    }
  };
  passline::support::parallel_for(module.functions.size(), threads, [&](std::size_t i) { check_function(module.functions[i]); });
}

}  // namespace passline::ir
