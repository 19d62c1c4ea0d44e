// How the passes of the reference IR work: each pass's operator(), declared
// in its part of the interface (passes.cppm), with the rewriters it uses.
// Compiled apart from the interface, so that what imports passline.ir.passes
// waits only for the passes' declarations.
module;
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <boost/unordered/unordered_flat_set.hpp>
module passline.ir.passes;
import passline;
import passline.instruments;
import passline.ir;
import passline.support;

#include "impl/infer_type.inc"
#include "impl/fold_constant.inc"
#include "impl/dead_code.inc"
#include "impl/cse.inc"
#include "impl/simplify.inc"
#include "impl/inline.inc"
#include "impl/anf.inc"
#include "impl/lambda_lift.inc"
