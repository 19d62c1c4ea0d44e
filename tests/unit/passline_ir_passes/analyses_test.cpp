// The analyses of the reference IR: CallGraph, and the walk it is built on.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>
import passline.ir;
import passline.ir.passes;

namespace {

namespace ir = passline::ir;
using List = std::vector<std::size_t>;

TEST(CallGraph, NamesEachFunctionOnceInTheOrderOfFirstMention) {
  // @main names @c, then @a (a call, then a closure), then @b, then @c and @a again.
  const ir::Module module = ir::parse(
      "def @a(%x: i64) -> i64 {\n  %x\n}\n\n"
      "def @b(%x: i64) -> i64 {\n  @a(%x)\n}\n\n"
      "def @c(%x: i64) -> i64 {\n  %x\n}\n\n"
      "def @main(%x: i64) -> i64 {\n  let %p = @c(%x);\n  let %q = @a(%p);\n  let %f = @a;\n"
      "  let %r = @b(%q);\n  let %s = @c(%r);\n  @a(%s)\n}\n",
      "calls.ir");
  EXPECT_EQ(ir::named_functions(*module.functions[3].body, module.index()), (List{2, 0, 1}));
  const ir::CallGraph::Result graph = ir::CallGraph{}(module);
  EXPECT_EQ(graph.callees, (std::vector<List>{{}, {0}, {}, {2, 0, 1}}));
  EXPECT_EQ(graph.callers, (std::vector<List>{{1, 3}, {3}, {3}, {}}));
  EXPECT_EQ(graph.bottom_up, (List{0, 2, 1, 3}));
}

TEST(CallGraph, FunctionsInOrLeadingIntoACycleComeLast) {
  const ir::Module module = ir::parse(
      "def @even(%x: i64) -> i64 {\n  @odd(%x)\n}\n\n"
      "def @odd(%x: i64) -> i64 {\n  @even(%x)\n}\n\n"
      "def @leaf(%x: i64) -> i64 {\n  %x\n}\n\n"
      "def @top(%x: i64) -> i64 {\n  let %y = @leaf(%x);\n  @even(%y)\n}\n",
      "cycle.ir");
  const ir::CallGraph::Result graph = ir::CallGraph{}(module);
  EXPECT_EQ(graph.bottom_up, (List{2, 0, 1, 3}));
  EXPECT_EQ(graph.acyclic, (std::vector<std::uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(graph.reachable_from({0, 0, 0, 1}), (std::vector<std::uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(graph.reachable_from({0, 1, 0, 0}), (std::vector<std::uint8_t>{1, 1, 0, 0}));
}

}  // namespace
