// The catalog the pipeline-text cases read their text in (text_*.cpp):
// InferType, FoldConstant, which requires it, and Inline, with an option.
#pragma once

#include <cstdint>

import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : Step<"Inline", 2> {
  std::int64_t max_size = 32;
  static constexpr auto options = passline::options(passline::option<&Inline::max_size>("max-size", "largest callee"));
};
using Passes = passline::Catalog<InferType, FoldConstant, Inline>;
