// FoldConstant changes the IR and does not declare that it preserves what
// InferType established, so EliminateCommonSubexpr, which requires InferType,
// would run on an IR whose types no longer hold. The twin runs InferType
// again in between, as ResolvedSequential would.
// expect-error: requirement 'compile_error<passline::required_pass_broken_by<EliminateCommonSubexpr, InferType, FoldConstant>>'
// expect-error: run the required pass again before its user
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct EliminateCommonSubexpr : Step<"EliminateCommonSubexpr", 2, "InferType"> {};

#ifdef PASSLINE_COMPILE_FAIL
using Pipeline = passline::Sequential<InferType, FoldConstant, EliminateCommonSubexpr>;
#else
using Pipeline = passline::Sequential<InferType, FoldConstant, InferType, EliminateCommonSubexpr>;
#endif

using Case = Pipeline;
#include "use.h"
