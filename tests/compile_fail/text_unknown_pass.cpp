// The text names a pass the catalog does not have: the column, the name, and the closest name.
// expect-error: static assertion failed due to requirement 'compile_error<passline::unknown_pass_in_text<passline::at_column<11, passline::fixed_string<12>\{"FoldConstnt"\}>, passline::fixed_string<12>\{"FoldConstnt"\}, passline::fixed_string<13>\{"FoldConstant"\}>>'
// expect-error: fix the name, or add the pass to the passline::Catalog
// max-errors: 1
// also-in: sequential compiled registry
#include "text_catalog.h"

#ifdef PASSLINE_COMPILE_FAIL
using Case = Passes::Pipeline<"InferType,FoldConstnt">;
#else
using Case = Passes::Pipeline<"InferType,FoldConstant">;
#endif

#include "use.h"
