// Resolution finds that A requires B, B requires C, and C requires A.
// expect-error: requirement 'compile_error<passline::dependency_cycle<A, B, C>>'
// expect-error: require each other in a cycle
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct A : Step<"A", 0, "B"> {};
struct B : Step<"B", 0, "C"> {};
#ifdef PASSLINE_COMPILE_FAIL
struct C : Step<"C", 0, "A"> {};
#else
struct C : Step<"C", 0> {};
#endif
struct User : Step<"User", 0, "A"> {};

using Pipeline = passline::ResolvedSequential<passline::Catalog<A, B, C>, User>;

using Case = Pipeline;
#include "use.h"
