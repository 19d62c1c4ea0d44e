// Braces where passline::needs<...> is meant: the braces would make an array
// that is gone once the declaration ends. One error, naming what to write,
// and none more where the pass is used (the pipeline's checks skip a pass
// whose PassInfo is not a constant).
// expect-error: write PassInfo name lists as passline::needs<...>, not in braces
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Trace;

struct FoldConstant {
#ifdef PASSLINE_COMPILE_FAIL
  static constexpr passline::PassInfo info{.name = "FoldConstant", .required = {"InferType"}};
#else
  static constexpr passline::PassInfo info{.name = "FoldConstant", .required = passline::needs<"InferType">};
#endif
  Trace operator()(Trace trace, passline::PassContext&) const { return trace; }
};

using Case = FoldConstant;
#if PASSLINE_IN_CONTEXT
#include "use.h"
#else
const passline::PassInfo& info() { return FoldConstant::info; }
#endif
