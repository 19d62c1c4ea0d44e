// passline on MLIR: a static pipeline that mixes MLIR's passes with a pass
// of one's own, then a runtime pipeline from text, on one thread pool, with
// MLIR 19. docs/mlir.md quotes it; the test example.mlir_cleanup runs it.
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/MLIRContext.h>
import passline;
import passline.mlir;

using passline::mlir::Module;    // owns a builtin.module; a copy is a clone
using passline::mlir::MlirPass;  // MLIR's pass NAME as a static pass type

struct CountOps {                // a pass of your own over MLIR
  static constexpr passline::PassInfo info{.name = "CountOps", .preserves = passline::preserves_all};
  Module operator()(Module module, passline::PassContext& ctx) const {
    std::int64_t ops = 0;
    module.op()->walk([&](mlir::Operation*) { ++ops; });
    ctx.statistics->add("CountOps", "operations", ops);
    return module;
  }
};

using Cleanup = passline::Sequential<MlirPass<"canonicalize">, CountOps, MlirPass<"cse">>;

Module clean(Module module, passline::PassContext& ctx) {
  module = Cleanup{}(std::move(module), ctx);                             // static
  return passline::parse_pipeline("canonicalize{max-iterations=3},cse",  // runtime
                                  passline::mlir::registry())(std::move(module), ctx);
}

int main() {
  passline::mlir::ThreadPool pool(2);
  mlir::MLIRContext context(passline::mlir::registry_of_dialects(), mlir::MLIRContext::Threading::DISABLED);
  context.setThreadPool(pool.llvm());  // the pool outlives the context

  const char* text = R"(func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %x = arith.addi %a, %c0 : i32
  %y = arith.addi %a, %a : i32
  %z = arith.addi %a, %a : i32
  %w = arith.muli %y, %z : i32
  %v = arith.addi %x, %w : i32
  return %v : i32
}
)";
  passline::PassContext ctx;
  const Module module = clean(passline::mlir::parse(text, "example.mlir", context), ctx);
  std::fputs(passline::mlir::print(module).c_str(), stdout);
  for (const auto& counter : ctx.statistics->counters()) {
    std::printf("%s %s: %lld\n", counter.pass.c_str(), counter.name.c_str(), static_cast<long long>(counter.value));
  }
  return 0;
}
