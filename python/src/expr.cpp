// Functions and expressions of the reference IR, seen from Python.
//
// In C++ a function's body is an arena of compact nodes; Python sees it as a
// tree of expression objects (Var, Constant, Operator, Call, GlobalVar, Let,
// If, Tuple, TupleGetItem, Closure), as TVM's Relay shows its expressions. A
// body is turned into a tree once while Python holds it, so a function's
// parameters and the uses in its body are the same Var objects; a tree is
// turned back into a body when a Function is made from it. Both directions,
// and every walk, are loops, never recursion: a chain of a million lets is
// as good as any other body.
#include "bindings.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>
import passline;
import passline.support;
import passline.ir;

namespace py = pybind11;

namespace passline::python {
namespace {

using ir::Body;
using ir::ExprId;
using ir::Kind;
using ir::Type;

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

/// One expression. Its operands are in the order of ir::for_each_operand:
/// an operator's arguments; a call's callee, then arguments; a let's var,
/// value and body; an if's condition and branches; a tuple's fields; a
/// projection's tuple; a closure's parameters, then body.
struct Expr {
  Kind kind = Kind::var;
  ir::Op op = ir::Op::add;
  Type type{};
  std::int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string name;          // var, global
  std::uint32_t index = 0;   // proj
  std::uint32_t loc = 0;     // where it came from, for expressions read from a body
  std::uint32_t height = 0;  // how deep the expressions under it nest, as ir::nesting counts
  std::vector<ExprPtr> operands;

  Expr() = default;
  Expr(const Expr&) = default;
  virtual ~Expr() {
    // Torn down by a loop, not by the recursion of nested destructors.
    std::vector<ExprPtr> pending = std::move(operands);
    while (!pending.empty()) {
      ExprPtr e = std::move(pending.back());
      pending.pop_back();
      if (e.use_count() == 1) {
        for (ExprPtr& o : e->operands) pending.push_back(std::move(o));
        e->operands.clear();
      }
    }
  }
};

// One C++ type per Python class, so that pybind11 hands each node out as its class.
struct VarExpr final : Expr {};
struct ConstantExpr final : Expr {};
struct OperatorExpr final : Expr {};
struct CallExpr final : Expr {};
struct GlobalVarExpr final : Expr {};
struct LetExpr final : Expr {};
struct IfExpr final : Expr {};
struct TupleExpr final : Expr {};
struct TupleGetItemExpr final : Expr {};
struct ClosureExpr final : Expr {};

ExprPtr make(Kind kind) {
  ExprPtr e;
  switch (kind) {
    case Kind::var: e = std::make_shared<VarExpr>(); break;
    case Kind::int_const:
    case Kind::float_const:
    case Kind::bool_const: e = std::make_shared<ConstantExpr>(); break;
    case Kind::op: e = std::make_shared<OperatorExpr>(); break;
    case Kind::call: e = std::make_shared<CallExpr>(); break;
    case Kind::global: e = std::make_shared<GlobalVarExpr>(); break;
    case Kind::let: e = std::make_shared<LetExpr>(); break;
    case Kind::if_: e = std::make_shared<IfExpr>(); break;
    case Kind::tuple: e = std::make_shared<TupleExpr>(); break;
    case Kind::proj: e = std::make_shared<TupleGetItemExpr>(); break;
    case Kind::fn: e = std::make_shared<ClosureExpr>(); break;
  }
  e->kind = kind;
  return e;
}

/// How deep `e` nests, from its operands' heights, as ir::nesting counts:
/// a let's body continues its block, every other operand nests one deeper.
std::uint32_t height_of(const Expr& e) {
  if (e.kind == Kind::let) return std::max(e.operands[1]->height + 1, e.operands[2]->height);
  std::uint32_t h = 0;
  for (const ExprPtr& o : e.operands) h = std::max(h, o->height + 1);
  return h;
}

/// `e`, a node just made, with its height, if it nests no deeper than the
/// parser reads and the verifier accepts: the printer, which recurses, never
/// sees a deeper tree.
ExprPtr checked(ExprPtr e) {
  e->height = height_of(*e);
  if (e->height > ir::max_nesting) {
    throw ir::IRError("expression nested more than " + std::to_string(ir::max_nesting) + " deep");
  }
  return e;
}

/// `e` with other operands: a node of the same class and fields.
ExprPtr with_operands(const Expr& e, std::vector<ExprPtr> operands) {
  ExprPtr copy = make(e.kind);
  copy->op = e.op;
  copy->type = e.type;
  copy->int_value = e.int_value;
  copy->float_value = e.float_value;
  copy->bool_value = e.bool_value;
  copy->name = e.name;
  copy->index = e.index;
  copy->loc = e.loc;
  copy->operands = std::move(operands);
  return checked(std::move(copy));
}

/// A body as a tree, and the body it came from.
struct Tree {
  std::shared_ptr<const Body> body;
  std::vector<ExprPtr> params;
  ExprPtr root;
};

std::shared_ptr<Tree> to_tree(const std::shared_ptr<const Body>& body) {
  const Body& b = *body;
  std::vector<ExprPtr> nodes(b.size());
  // Operands come before their users, so one pass in order sees every
  // operand built; a var's uses are its binder, so they share its object.
  for (ExprId id = 0; id < b.size(); ++id) {
    const ir::Node& n = b[id];
    ExprPtr e = make(n.kind);
    e->op = n.op;
    e->type = n.type;
    e->loc = n.loc;
    switch (n.kind) {
      case Kind::var:
      case Kind::global: e->name = std::string(b.name(id)); break;
      case Kind::int_const: e->int_value = b.int_value(id); break;
      case Kind::float_const: e->float_value = b.float_value(id); break;
      case Kind::bool_const: e->bool_value = b.bool_value(id); break;
      case Kind::proj: e->index = n.b; break;
      default: break;
    }
    ir::for_each_operand(n, b, [&](ExprId operand) { e->operands.push_back(nodes.at(operand)); });
    e->height = height_of(*e);  // a body nests no deeper than the limit
    nodes[id] = std::move(e);
  }
  auto tree = std::make_shared<Tree>();
  tree->body = body;
  for (ExprId p : b.params()) tree->params.push_back(nodes.at(p));
  tree->root = nodes.at(b.root());
  return tree;
}

/// The tree of each body, by the body's address, for as long as a function
/// anywhere holds the body: asked again, a function gives the same tree.
/// Only touched with the GIL held.
class Trees {
 public:
  std::shared_ptr<Tree> of(const ir::Function& fn) {
    if (!fn.body) throw std::invalid_argument("function '@" + fn.name + "' has no body");
    if (auto it = trees_.find(fn.body.get()); it != trees_.end()) return it->second;
    if (trees_.size() >= 2 * kept_ + 16) {
      // A body that only its tree holds can never be asked for again.
      std::erase_if(trees_, [](const auto& entry) { return entry.second->body.use_count() == 1; });
      kept_ = trees_.size();
    }
    std::shared_ptr<Tree> tree = to_tree(fn.body);
    trees_.emplace(fn.body.get(), tree);
    return tree;
  }

 private:
  std::unordered_map<const Body*, std::shared_ptr<Tree>> trees_;
  std::size_t kept_ = 0;
};

std::shared_ptr<Tree> tree_of(const ir::Function& fn) {
  static auto* trees = new Trees();  // left at exit, as the interpreter leaves its objects
  return trees->of(fn);
}

[[noreturn]] void fail(const std::string& message) { throw ir::IRError(message); }

std::string describe(const Expr& var) { return "'%" + var.name + "'"; }

/// Builds a body from a tree: parameters, then the expression, with the
/// same checks of scope as the verifier (a var is bound once, and used only
/// in its scope), by a loop over an explicit stack.
std::shared_ptr<const Body> to_body(const std::vector<ExprPtr>& params, const ExprPtr& root, Type result) {
  ir::BodyBuilder b;
  std::unordered_map<const Expr*, ExprId> in_scope;
  std::unordered_set<const Expr*> bound;
  auto bind = [&](const ExprPtr& var) -> ExprId {
    if (!var || var->kind != Kind::var) fail("a binder that is not a Var");
    if (!bound.insert(var.get()).second) fail("variable " + describe(*var) + " is bound twice");
    const ExprId id = b.var(var->name, var->type, var->loc);
    in_scope.emplace(var.get(), id);
    return id;
  };
  std::vector<ExprId> param_ids;
  for (const ExprPtr& p : params) {
    if (p && p->kind == Kind::var && !p->type.known()) fail("parameter " + describe(*p) + " needs a type");
    param_ids.push_back(bind(p));
  }
  struct Frame {
    const Expr* e;
    std::uint8_t phase;
    std::size_t results;  // where this node's operands start on `done`
  };
  std::vector<Frame> stack{{root.get(), 0, 0}};
  std::vector<ExprId> done;  // ids of finished operands, in order
  while (!stack.empty()) {
    Frame& f = stack.back();
    const Expr& e = *f.e;
    if (f.phase == 0) f.results = done.size();
    switch (e.kind) {
      case Kind::var: {
        auto it = in_scope.find(&e);
        if (it == in_scope.end()) fail("variable " + describe(e) + " is used outside its scope");
        done.push_back(it->second);
        stack.pop_back();
        continue;
      }
      case Kind::int_const: done.push_back(b.int_const(e.int_value, e.loc)); stack.pop_back(); continue;
      case Kind::float_const: done.push_back(b.float_const(e.float_value, e.loc)); stack.pop_back(); continue;
      case Kind::bool_const: done.push_back(b.bool_const(e.bool_value, e.loc)); stack.pop_back(); continue;
      case Kind::global: done.push_back(b.global(e.name, e.type, e.loc)); stack.pop_back(); continue;
      case Kind::let:
        // The value is out of the var's scope; the body is in it.
        if (f.phase == 0) {
          f.phase = 1;
          stack.push_back({e.operands[1].get(), 0, 0});
        } else if (f.phase == 1) {
          f.phase = 2;
          done.push_back(bind(e.operands[0]));
          stack.push_back({e.operands[2].get(), 0, 0});
        } else {
          const std::size_t at = f.results;
          const ExprId value = done[at], var = done[at + 1], body = done[at + 2];
          in_scope.erase(e.operands[0].get());
          done.resize(at);
          done.push_back(b.let(var, value, body, e.type, e.loc));
          stack.pop_back();
        }
        continue;
      case Kind::fn:
        if (f.phase == 0) {
          f.phase = 1;
          for (std::size_t i = 0; i + 1 < e.operands.size(); ++i) {
            const ExprPtr& p = e.operands[i];
            if (p && p->kind == Kind::var && !p->type.known()) fail("parameter " + describe(*p) + " needs a type");
            done.push_back(bind(p));
          }
          stack.push_back({e.operands.back().get(), 0, 0});
        } else {
          const std::size_t at = f.results;
          const std::vector<ExprId> ps(done.begin() + static_cast<std::ptrdiff_t>(at), done.end() - 1);
          const ExprId body = done.back();
          for (std::size_t i = 0; i + 1 < e.operands.size(); ++i) in_scope.erase(e.operands[i].get());
          done.resize(at);
          done.push_back(b.fn(ps, body, e.type, e.loc));
          stack.pop_back();
        }
        continue;
      default:
        break;
    }
    // Operators, calls, ifs, tuples, projections: every operand, then the node.
    if (f.phase == 0) {
      f.phase = 1;
      const std::size_t count = e.operands.size();
      for (std::size_t i = count; i-- > 0;) stack.push_back({e.operands[i].get(), 0, 0});
      continue;
    }
    const std::size_t at = f.results;
    const std::vector<ExprId> ops(done.begin() + static_cast<std::ptrdiff_t>(at), done.end());
    done.resize(at);
    ExprId id = ir::no_expr;
    switch (e.kind) {
      case Kind::op: id = b.op(e.op, ops, e.type, e.loc); break;
      case Kind::call: id = b.call(ops[0], std::span(ops).subspan(1), e.type, e.loc); break;
      case Kind::if_: id = b.if_(ops[0], ops[1], ops[2], e.type, e.loc); break;
      case Kind::tuple: id = b.tuple(ops, e.type, e.loc); break;
      case Kind::proj: id = b.proj(ops[0], e.index, e.type, e.loc); break;
      default: break;
    }
    done.push_back(id);
    stack.pop_back();
  }
  return b.finish(param_ids, done.back(), result);
}

// -- From Python values -------------------------------------------------------

Type type_from(const py::handle& type) {
  if (type.is_none()) return ir::types::unknown;
  if (!py::isinstance<py::str>(type)) {
    throw py::type_error("a type is a str the text format reads ('i64', '(i64, bool)'), or None; not " +
                         py::str(py::type::of(type).attr("__name__")).cast<std::string>());
  }
  return ir::parse_type(type.cast<std::string>());
}

py::object type_to(Type type) {
  if (!type.known()) return py::none();
  return py::str(ir::TypeTable::global().print(type));
}

ExprPtr constant(const py::handle& value) {
  ExprPtr e;
  if (py::isinstance<py::bool_>(value)) {
    e = make(Kind::bool_const);
    e->bool_value = value.cast<bool>();
    e->type = ir::types::boolean;
  } else if (py::isinstance<py::int_>(value)) {
    e = make(Kind::int_const);
    int overflow = 0;
    e->int_value = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0) {
      PyErr_SetString(PyExc_OverflowError, "an i64 Constant holds an int from -2**63 to 2**63 - 1");
      throw py::error_already_set();
    }
    e->type = ir::types::i64;
  } else if (py::isinstance<py::float_>(value)) {
    e = make(Kind::float_const);
    e->float_value = value.cast<double>();
    e->type = ir::types::f64;
  } else {
    throw py::type_error("a Constant holds a bool, an int or a float, not " +
                         py::str(py::type::of(value).attr("__name__")).cast<std::string>());
  }
  return e;
}

/// An expression, or a Python bool, int or float as a Constant.
ExprPtr expr_from(const py::handle& value) {
  if (py::isinstance<Expr>(value)) return value.cast<ExprPtr>();
  return constant(value);
}

std::vector<ExprPtr> exprs_from(const py::iterable& values) {
  std::vector<ExprPtr> out;
  for (const py::handle& v : values) out.push_back(expr_from(v));
  return out;
}

ExprPtr var_from(const py::handle& value) {
  ExprPtr e = expr_from(value);
  if (e->kind != Kind::var) throw py::type_error("a binder is a Var");
  return e;
}

std::optional<ir::Op> op_named(std::string_view name) {
  for (ir::Op op : ir::all_ops) {
    if (ir::op_name(op) == name) return op;
  }
  return std::nullopt;
}

ExprPtr node(Kind kind, std::vector<ExprPtr> operands, Type type = ir::types::unknown, ir::Op op = ir::Op::add) {
  ExprPtr e = make(kind);
  e->operands = std::move(operands);
  e->type = type;
  e->op = op;
  return checked(std::move(e));
}

/// An arithmetic operator on expressions (`x * 2`), or reflected (`2 * x`):
/// a Python number stands for a constant.
auto binary(ir::Op op, bool reflected) {
  return [op, reflected](const ExprPtr& a, const py::object& b) {
    ExprPtr other = expr_from(b);
    return reflected ? node(Kind::op, {std::move(other), a}, ir::types::unknown, op)
                     : node(Kind::op, {a, std::move(other)}, ir::types::unknown, op);
  };
}

// -- Walks ---------------------------------------------------------------------

/// Every expression under `root`, each once, operands before their users.
std::vector<ExprPtr> post_order(const ExprPtr& root) {
  std::vector<ExprPtr> order;
  std::unordered_set<const Expr*> seen;
  std::vector<std::pair<ExprPtr, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = std::move(stack.back());
    stack.pop_back();
    if (expanded) {
      order.push_back(std::move(e));
      continue;
    }
    if (!seen.insert(e.get()).second) continue;
    stack.emplace_back(e, true);
    for (std::size_t i = e->operands.size(); i-- > 0;) {
      if (!seen.contains(e->operands[i].get())) stack.emplace_back(e->operands[i], false);
    }
  }
  return order;
}

/// `root` rewritten bottom-up: each expression, its operands rewritten
/// first, goes to `fn`, whose result (None: the expression as it is) takes
/// its place. An expression whose operands did not change is kept.
ExprPtr rewrite(const ExprPtr& root, const py::function& fn) {
  std::unordered_map<const Expr*, ExprPtr> rewritten;
  for (const ExprPtr& e : post_order(root)) {
    std::vector<ExprPtr> operands;
    bool changed = false;
    for (const ExprPtr& o : e->operands) {
      operands.push_back(rewritten.at(o.get()));
      changed = changed || operands.back() != o;
    }
    ExprPtr current = changed ? with_operands(*e, std::move(operands)) : e;
    py::object result = fn(current);
    rewritten[e.get()] = result.is_none() ? current : expr_from(result);
  }
  return rewritten.at(root.get());
}

std::string repr(const Expr& e) {
  switch (e.kind) {
    case Kind::var: return "Var(%" + e.name + ")";
    case Kind::int_const: return "Constant(" + std::to_string(e.int_value) + ")";
    case Kind::float_const: return "Constant(" + py::repr(py::float_(e.float_value)).cast<std::string>() + ")";
    case Kind::bool_const: return e.bool_value ? "Constant(True)" : "Constant(False)";
    case Kind::op: return "Operator(" + std::string(ir::op_name(e.op)) + ")";
    case Kind::call: return "Call(" + std::to_string(e.operands.size() - 1) + " arguments)";
    case Kind::global: return "GlobalVar(@" + e.name + ")";
    case Kind::let: return "Let(%" + e.operands[0]->name + ")";
    case Kind::if_: return "If";
    case Kind::tuple: return "Tuple(" + std::to_string(e.operands.size()) + " fields)";
    case Kind::proj: return "TupleGetItem(" + std::to_string(e.index) + ")";
    case Kind::fn: return "Closure(" + std::to_string(e.operands.size() - 1) + " parameters)";
  }
  return "Expr";
}

std::vector<ExprPtr> slice(const Expr& e, std::size_t from, std::size_t drop_last = 0) {
  return {e.operands.begin() + static_cast<std::ptrdiff_t>(from),
          e.operands.end() - static_cast<std::ptrdiff_t>(drop_last)};
}

ir::Function make_function(std::string name, const py::iterable& params, const py::handle& body,
                           const py::handle& ret_type, bool exported, bool skip_optimization) {
  std::vector<ExprPtr> ps;
  for (const py::handle& p : params) ps.push_back(var_from(p));
  ir::Function fn;
  fn.name = checked_name(std::move(name), "a Function's name");
  fn.body = to_body(ps, expr_from(body), type_from(ret_type));
  fn.exported = exported;
  fn.skip_optimization = skip_optimization;
  return fn;
}

bool same_function(const ir::Function& a, const ir::Function& b) {
  return ir::same_attributes(a, b) && ir::structurally_equal(*a.body, *b.body);
}

}  // namespace

std::string checked_name(std::string name, const char* what) {
  if (!ir::is_name(name)) {
    throw py::value_error(std::string(what) + " '" + passline::support::printable(name) +
                          "' is not a name: one or more letters, digits and '_'");
  }
  return name;
}

void bind_expressions(py::module_& m) {
  py::class_<Expr, ExprPtr>(m, "Expr", "An expression of the reference IR.")
      .def_property_readonly("type", [](const Expr& e) { return type_to(e.type); },
                             "The type as the text format writes it ('i64'), None before InferType.")
      .def_property_readonly("operands", [](const Expr& e) { return e.operands; })
      .def("post_order", &post_order, "Every expression under this one, once each, operands first.")
      .def("rewrite", &rewrite, py::arg("fn"),
           "This expression rewritten bottom-up by fn(expr) -> expr or None (keep).")
      .def("__repr__", [](const Expr& e) { return repr(e); })
      .def("__add__", binary(ir::Op::add, false))
      .def("__radd__", binary(ir::Op::add, true))
      .def("__sub__", binary(ir::Op::sub, false))
      .def("__rsub__", binary(ir::Op::sub, true))
      .def("__mul__", binary(ir::Op::mul, false))
      .def("__rmul__", binary(ir::Op::mul, true))
      .def("__truediv__", binary(ir::Op::div, false))
      .def("__rtruediv__", binary(ir::Op::div, true))
      .def("__mod__", binary(ir::Op::mod, false))
      .def("__rmod__", binary(ir::Op::mod, true))
      .def("__neg__", [](const ExprPtr& a) { return node(Kind::op, {a}, ir::types::unknown, ir::Op::neg); });

  py::class_<VarExpr, Expr, std::shared_ptr<VarExpr>>(m, "Var", "A variable: a binder, and its uses.")
      .def(py::init([](std::string name, const py::object& type) {
             auto e = std::make_shared<VarExpr>();
             e->name = checked_name(std::move(name), "a Var's name");
             e->type = type_from(type);
             return e;
           }),
           py::arg("name"), py::arg("type") = py::none())
      .def_property_readonly("name", [](const Expr& e) { return e.name; })
      .def_property_readonly("name_hint", [](const Expr& e) { return e.name; }, "The name, as TVM spells it.");

  py::class_<ConstantExpr, Expr, std::shared_ptr<ConstantExpr>>(m, "Constant", "An i64, f64 or bool constant.")
      .def(py::init([](const py::object& value) {
             return std::static_pointer_cast<ConstantExpr>(constant(value));
           }),
           py::arg("value"))
      .def_property_readonly("value", [](const Expr& e) -> py::object {
        if (e.kind == Kind::int_const) return py::int_(e.int_value);
        if (e.kind == Kind::float_const) return py::float_(e.float_value);
        return py::bool_(e.bool_value);
      });

  py::class_<OperatorExpr, Expr, std::shared_ptr<OperatorExpr>>(m, "Operator",
                                                                "A built-in operator applied: add(a, b), not(a), ...")
      .def(py::init([](const std::string& op, const py::iterable& args) {
             const std::optional<ir::Op> which = op_named(op);
             if (!which) throw py::value_error("unknown operator '" + op + "'");
             std::vector<ExprPtr> operands = exprs_from(args);
             if (static_cast<int>(operands.size()) != ir::op_arity(*which)) {
               throw py::value_error("operator '" + op + "' takes " + std::to_string(ir::op_arity(*which)) +
                                     " operands, not " + std::to_string(operands.size()));
             }
             return std::static_pointer_cast<OperatorExpr>(node(Kind::op, std::move(operands), ir::types::unknown, *which));
           }),
           py::arg("op"), py::arg("args"))
      .def_property_readonly("op", [](const Expr& e) { return std::string(ir::op_name(e.op)); })
      .def_property_readonly("args", [](const Expr& e) { return e.operands; });

  py::class_<CallExpr, Expr, std::shared_ptr<CallExpr>>(m, "Call", "A call of a function or closure.")
      .def(py::init([](const py::object& callee, const py::iterable& args) {
             std::vector<ExprPtr> operands{expr_from(callee)};
             for (ExprPtr& a : exprs_from(args)) operands.push_back(std::move(a));
             return std::static_pointer_cast<CallExpr>(node(Kind::call, std::move(operands)));
           }),
           py::arg("callee"), py::arg("args"))
      .def_property_readonly("callee", [](const Expr& e) { return e.operands[0]; })
      .def_property_readonly("args", [](const Expr& e) { return slice(e, 1); });

  py::class_<GlobalVarExpr, Expr, std::shared_ptr<GlobalVarExpr>>(m, "GlobalVar", "A global function by name: @f.")
      .def(py::init([](std::string name) {
             auto e = std::make_shared<GlobalVarExpr>();
             e->kind = Kind::global;
             e->name = checked_name(std::move(name), "a GlobalVar's name");
             return e;
           }),
           py::arg("name"))
      .def_property_readonly("name", [](const Expr& e) { return e.name; })
      .def_property_readonly("name_hint", [](const Expr& e) { return e.name; }, "The name, as TVM spells it.");

  py::class_<LetExpr, Expr, std::shared_ptr<LetExpr>>(m, "Let", "let var = value; body")
      .def(py::init([](const py::object& var, const py::object& value, const py::object& body) {
             return std::static_pointer_cast<LetExpr>(
                 node(Kind::let, {var_from(var), expr_from(value), expr_from(body)}));
           }),
           py::arg("var"), py::arg("value"), py::arg("body"))
      .def_property_readonly("var", [](const Expr& e) { return e.operands[0]; })
      .def_property_readonly("value", [](const Expr& e) { return e.operands[1]; })
      .def_property_readonly("body", [](const Expr& e) { return e.operands[2]; });

  py::class_<IfExpr, Expr, std::shared_ptr<IfExpr>>(m, "If", "if cond { true_branch } else { false_branch }")
      .def(py::init([](const py::object& cond, const py::object& then, const py::object& otherwise) {
             return std::static_pointer_cast<IfExpr>(
                 node(Kind::if_, {expr_from(cond), expr_from(then), expr_from(otherwise)}));
           }),
           py::arg("cond"), py::arg("true_branch"), py::arg("false_branch"))
      .def_property_readonly("cond", [](const Expr& e) { return e.operands[0]; })
      .def_property_readonly("true_branch", [](const Expr& e) { return e.operands[1]; })
      .def_property_readonly("false_branch", [](const Expr& e) { return e.operands[2]; });

  py::class_<TupleExpr, Expr, std::shared_ptr<TupleExpr>>(m, "Tuple", "A tuple of expressions.")
      .def(py::init([](const py::iterable& fields) {
             return std::static_pointer_cast<TupleExpr>(node(Kind::tuple, exprs_from(fields)));
           }),
           py::arg("fields"))
      .def_property_readonly("fields", [](const Expr& e) { return e.operands; });

  py::class_<TupleGetItemExpr, Expr, std::shared_ptr<TupleGetItemExpr>>(m, "TupleGetItem",
                                                                        "A tuple's field: t.0")
      .def(py::init([](const py::object& tuple, std::uint32_t index) {
             ExprPtr e = node(Kind::proj, {expr_from(tuple)});
             e->index = index;  // a field past the tuple's end is InferType's error
             return std::static_pointer_cast<TupleGetItemExpr>(e);
           }),
           py::arg("tuple_value"), py::arg("index"))
      .def_property_readonly("tuple_value", [](const Expr& e) { return e.operands[0]; })
      .def_property_readonly("index", [](const Expr& e) { return e.index; });

  py::class_<ClosureExpr, Expr, std::shared_ptr<ClosureExpr>>(m, "Closure", "fn(%p: T, ...) -> R { body }")
      .def(py::init([](const py::iterable& params, const py::object& body, const py::object& ret_type) {
             std::vector<ExprPtr> operands;
             std::vector<Type> param_types;
             for (const py::handle& p : params) {
               operands.push_back(var_from(p));
               param_types.push_back(operands.back()->type);
             }
             operands.push_back(expr_from(body));
             const Type result = type_from(ret_type);
             Type type = ir::types::unknown;
             if (result.known()) {
               type = ir::TypeTable::global().function(param_types, result);
               if (ir::TypeTable::global().depth(type) > ir::max_nesting) {
                 throw ir::IRError("the closure's type nests more than " + std::to_string(ir::max_nesting) + " deep");
               }
             }
             return std::static_pointer_cast<ClosureExpr>(node(Kind::fn, std::move(operands), type));
           }),
           py::arg("params"), py::arg("body"), py::arg("ret_type") = py::none())
      .def_property_readonly("params", [](const Expr& e) { return slice(e, 0, 1); })
      .def_property_readonly("body", [](const Expr& e) { return e.operands.back(); })
      .def_property_readonly("ret_type", [](const Expr& e) -> py::object {
        if (!e.type.known()) return py::none();
        return type_to(ir::TypeTable::global().result(e.type));
      });

  py::class_<ir::Function>(m, "Function", "A global function: name, attributes, parameters and body.")
      .def(py::init(&make_function), py::arg("name"), py::arg("params"), py::arg("body"),
           py::arg("ret_type") = py::none(), py::arg("exported") = false, py::arg("skip_optimization") = false)
      .def_readonly("name", &ir::Function::name)
      .def_readonly("exported", &ir::Function::exported)
      .def_readonly("skip_optimization", &ir::Function::skip_optimization)
      .def_property_readonly("params", [](const ir::Function& fn) { return tree_of(fn)->params; })
      .def_property_readonly("body", [](const ir::Function& fn) { return tree_of(fn)->root; })
      .def_property_readonly("ret_type", [](const ir::Function& fn) { return type_to(fn.body->result()); })
      .def("with_body", [](const ir::Function& fn, const py::object& body) {
             ir::Function out = fn;
             out.body = to_body(tree_of(fn)->params, expr_from(body), fn.body->result());
             return out;
           }, py::arg("body"), "This function with another body, over the same parameters.")
      .def("same_as", [](const ir::Function& a, const ir::Function& b) {
             return a.body == b.body && ir::same_attributes(a, b);
           }, py::arg("other"), "Whether the two hold the very same body, under the same name and attributes.")
      .def("__str__", [](const ir::Function& fn) { return ir::print(fn); })
      .def("__repr__", [](const ir::Function& fn) { return "<passline.Function @" + fn.name + ">"; });

  m.def("parse_type", [](const std::string& text) { return type_to(ir::parse_type(text)); }, py::arg("text"),
        "The type written in `text`, in the text format's spelling; IRError if it is none.");
  m.def("structural_equal", &same_function, py::arg("a"), py::arg("b"),
        "Whether two functions have the same name, attributes and body, up to the names of variables.");
  m.def("structural_equal", [](const ir::Module& a, const ir::Module& b) {
    return a.functions.size() == b.functions.size() &&
           std::equal(a.functions.begin(), a.functions.end(), b.functions.begin(), same_function);
  }, py::arg("a"), py::arg("b"), "Whether two modules have the same functions, in order, up to the names of variables.");
}

}  // namespace passline::python
