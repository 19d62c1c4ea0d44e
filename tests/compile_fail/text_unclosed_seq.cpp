// A 'seq(' the text never closes: the column of its '('.
// expect-error: static assertion failed due to requirement 'compile_error<passline::syntax_error_in_text<passline::at_column<14, passline::fixed_string<24>\{"\(InferType,FoldConstant"\}>, passline::fixed_string<20>\{"\\'seq\(\\' never closed"\}>>'
// max-errors: 1
// also-in: sequential compiled registry
#include "text_catalog.h"

#ifdef PASSLINE_COMPILE_FAIL
using Case = Passes::Pipeline<"InferType,seq(InferType,FoldConstant">;
#else
using Case = Passes::Pipeline<"InferType,seq(InferType,FoldConstant)">;
#endif

#include "use.h"
