// Lower requires InferType and ToANormalForm, and ToANormalForm does not
// preserve InferType: whichever runs second breaks the first, so resolution
// cannot order them. The twin declares that ToANormalForm keeps the types.
// expect-error: requirement 'compile_error<passline::conflicting_required_passes<Lower, InferType, ToANormalForm>>'
// expect-error: no order satisfies both
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Preserving;
using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct Lower : Step<"Lower", 0, "InferType", "ToANormalForm"> {};
#ifdef PASSLINE_COMPILE_FAIL
struct ToANormalForm : Step<"ToANormalForm"> {};
#else
struct ToANormalForm : Preserving<Step<"ToANormalForm">, "InferType"> {};
#endif

using Pipeline = passline::ResolvedSequential<passline::Catalog<InferType, ToANormalForm>, Lower>;

using Case = Pipeline;
#include "use.h"
