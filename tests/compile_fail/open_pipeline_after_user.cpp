// A static pipeline that becomes a runtime pass may require passes it does not
// hold (the run resolves them), but every other problem is still an error,
// even one that comes after such an open requirement.
// expect-error: requirement 'compile_error<passline::required_pass_runs_after_its_user<Simplify, CanonicalizeOps>>'
// expect-error: move it before its user
// max-errors: 1
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};  // InferType: left to the run
struct CanonicalizeOps : Step<"CanonicalizeOps"> {};
struct Simplify : Step<"Simplify", 2, "CanonicalizeOps"> {};

#ifdef PASSLINE_COMPILE_FAIL
using Pipeline = passline::Sequential<FoldConstant, Simplify, CanonicalizeOps>;
#else
using Pipeline = passline::Sequential<FoldConstant, CanonicalizeOps, Simplify>;
#endif

passline::Pass<Trace> pass() { return Pipeline{}; }
