// The catalog the pipeline-text cases read their text in (text_*.cpp):
// InferType, and FoldConstant, which requires it.
#pragma once

import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
using Passes = passline::Catalog<InferType, FoldConstant>;
