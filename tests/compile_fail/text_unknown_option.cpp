// The text sets an option the pass does not declare: the column, the pass,
// the name, and the closest option of the pass.
// expect-error: static assertion failed due to requirement 'compile_error<passline::unknown_option_in_text<passline::at_column<18, passline::fixed_string<12>\{"max-sise=2\}"\}>, Inline, passline::fixed_string<9>\{"max-sise"\}, passline::fixed_string<9>\{"max-size"\}>>'
// expect-error: sets an option that the pass does not declare
// max-errors: 1
// also-in: sequential compiled registry
#include "text_catalog.h"

#ifdef PASSLINE_COMPILE_FAIL
using Case = Passes::Pipeline<"InferType,Inline{max-sise=2}">;
#else
using Case = Passes::Pipeline<"InferType,Inline{max-size=2}">;
#endif

#include "use.h"
