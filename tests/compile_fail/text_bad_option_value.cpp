// The text gives an option a value its type does not read: the column of
// the value, the option and its type.
// expect-error: static assertion failed due to requirement 'compile_error<passline::syntax_error_in_text<passline::at_column<27, passline::fixed_string<5>\{"big\}"\}>, passline::fixed_string<31>\{"option \\'max-size\\' takes an int"\}>>'
// expect-error: does not read as a pipeline
// max-errors: 1
// also-in: sequential compiled registry
#include "text_catalog.h"

#ifdef PASSLINE_COMPILE_FAIL
using Case = Passes::Pipeline<"InferType,Inline{max-size=big}">;
#else
using Case = Passes::Pipeline<"InferType,Inline{max-size=20}">;
#endif

#include "use.h"
