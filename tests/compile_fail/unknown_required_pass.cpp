// FoldConstant requires "InferTyp", which neither the pipeline nor the catalog has.
// expect-error: requirement 'compile_error<passline::unknown_required_pass<FoldConstant, passline::fixed_string<9>\{"InferTyp"\}>>'
// expect-error: add its type to the passline::Catalog
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
#ifdef PASSLINE_COMPILE_FAIL
struct FoldConstant : Step<"FoldConstant", 2, "InferTyp"> {};
#else
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
#endif

using Pipeline = passline::ResolvedSequential<passline::Catalog<InferType>, FoldConstant>;

using Case = Pipeline;
#include "use.h"
