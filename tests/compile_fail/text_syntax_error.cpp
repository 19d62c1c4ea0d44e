// The text does not read as a pipeline: what was expected, at the column.
// expect-error: static assertion failed due to requirement 'compile_error<passline::syntax_error_in_text<passline::at_column<11, passline::fixed_string<14>\{",FoldConstant"\}>, passline::fixed_string<31>\{"expected a pass name after \\',\\'"\}>>'
// expect-error: does not read as a pipeline
// max-errors: 1
// also-in: sequential compiled registry
#include "text_catalog.h"

#ifdef PASSLINE_COMPILE_FAIL
using Case = Passes::Pipeline<"InferType,,FoldConstant">;
#else
using Case = Passes::Pipeline<"InferType,FoldConstant">;
#endif

#include "use.h"
