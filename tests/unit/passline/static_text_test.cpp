// Pipeline text read at compile time: the type it makes is the pipeline
// written by hand, and its plan is the plan of the same text read at run time.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
import passline;
import passline.support;
import passline.testing;

namespace {

using passline::Catalog;
using passline::Named;
using passline::Pass;
using passline::PassContext;
using passline::Registry;
using passline::Sequential;
using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : Step<"Inline", 2> {};
struct Simplify : Step<"Simplify", 1> {};
struct DeadCode : Step<"DeadCode", 1> {};
using Cleanup = Named<"Cleanup", Sequential<Simplify, DeadCode>>;

/// A pass with an option of each type, which says the values it ran with.
struct Unroll {
  static constexpr passline::PassInfo info{.name = "Unroll", .opt_level = 2};
  std::int64_t factor = 4;
  bool full = false;
  double ratio = 0.5;
  std::string mode = "fast";
  static constexpr auto options = passline::options(passline::option<&Unroll::factor>("factor", "copies"),
                                                    passline::option<&Unroll::full>("full", "unroll whole loops"),
                                                    passline::option<&Unroll::ratio>("ratio", "growth allowed"),
                                                    passline::option<&Unroll::mode>("mode", "strategy"));
  Trace operator()(Trace trace, PassContext&) const {
    const std::vector<std::pair<std::string, passline::Value>> values{
        {"factor", factor}, {"full", full}, {"ratio", ratio}, {"mode", mode}};
    trace.ran.push_back(passline::pass_text("Unroll", values));
    return trace;
  }
};
using Passes = Catalog<InferType, FoldConstant, Inline, Simplify, DeadCode, Cleanup, Unroll>;
using passline::With;

// Names, in order.
static_assert(std::is_same_v<Passes::Pipeline<"InferType,FoldConstant">, Sequential<InferType, FoldConstant>>);
// Nesting, and spaces where run-time text allows them.
static_assert(std::is_same_v<Passes::Pipeline<" InferType , seq( Inline,seq(Simplify) ) ,DeadCode ">,
                             Sequential<InferType, Sequential<Inline, Sequential<Simplify>>, DeadCode>>);
// A named pipeline of the catalog stands whole, as it does in a registry.
static_assert(std::is_same_v<Passes::Pipeline<"InferType,Cleanup">, Sequential<InferType, Cleanup>>);
// No pass, and an empty seq().
static_assert(std::is_same_v<Passes::Pipeline<"">, Sequential<>>);
static_assert(std::is_same_v<Passes::Pipeline<"seq()">, Sequential<Sequential<>>>);
// A fixed point, of rounds as written.
static_assert(std::is_same_v<Passes::Pipeline<"fixed_point<4>(Simplify,DeadCode)">,
                             Sequential<passline::FixedPoint<4, Sequential<Simplify, DeadCode>>>>);
static_assert(std::is_same_v<Passes::Pipeline<"InferType, fixed_point< 12 >( seq(Inline), Cleanup )">,
                             Sequential<InferType, passline::FixedPoint<12, Sequential<Sequential<Inline>, Cleanup>>>>);
// Options in braces: the pass With them, in the order the pass declares
// them, values as written; none, the pass.
static_assert(std::is_same_v<Passes::Pipeline<"Unroll{factor=8}">, Sequential<With<Unroll, "factor=8">>>);
static_assert(std::is_same_v<Passes::Pipeline<"Unroll{ mode=\"two words\"  factor=-8 }">,
                             Sequential<With<Unroll, "factor=-8 mode=\"two words\"">>>);
static_assert(std::is_same_v<Passes::Pipeline<"Unroll{ratio=1e-3 full=true},seq(Unroll{})">,
                             Sequential<With<Unroll, "full=true ratio=1e-3">, Sequential<Unroll>>>);
// The same pass twice.
static_assert(std::is_same_v<Passes::Pipeline<"Simplify,Simplify">, Sequential<Simplify, Simplify>>);

// A catalog and a text of 300 passes, "N0,N1,...,N299": more than a fold
// expression may hold (256), so nothing in the reading may fold over them.
constexpr std::size_t digits(std::size_t i) { return i < 10 ? 1 : 1 + digits(i / 10); }
template <std::size_t I>
constexpr auto numbered_name = [] {
  passline::fixed_string<digits(I) + 2> name;
  name.chars[0] = 'N';
  for (std::size_t i = I, k = digits(I); k > 0; i /= 10, --k) name.chars[k] = static_cast<char>('0' + i % 10);
  return name;
}();
template <std::size_t I>
struct Numbered : Step<numbered_name<I>> {};
template <std::size_t Count>
constexpr auto numbered_text = [] {
  constexpr std::size_t size = [] {
    std::size_t n = 0;
    for (std::size_t i = 0; i < Count; ++i) n += digits(i) + 2;  // "N<i>" and a ','
    return n - 1;
  }();
  passline::fixed_string<size + 1> text;
  std::size_t at = 0;
  for (std::size_t i = 0; i < Count; ++i) {
    if (i > 0) text.chars[at++] = ',';
    text.chars[at++] = 'N';
    at += digits(i);
    for (std::size_t n = i, k = at; k > at - digits(i); n /= 10) text.chars[--k] = static_cast<char>('0' + n % 10);
  }
  return text;
}();
template <std::size_t... I>
auto numbered(std::index_sequence<I...>) -> std::pair<Catalog<Numbered<I>..., Unroll>, Sequential<Numbered<I>...>>;
using Numbers = decltype(numbered(std::make_index_sequence<300>{}));
static_assert(std::is_same_v<Numbers::first_type::Pipeline<numbered_text<300>>, Numbers::second_type>);

/// The registry of the same passes, the named pipeline under its name.
const Registry<Trace>& registry() {
  static Registry<Trace> r;
  static const bool filled =
      (r.add<InferType>().add<FoldConstant>().add<Inline>().add<Simplify>().add<DeadCode>().add<Cleanup>("Cleanup").add<Unroll>(),
       true);
  (void)filled;
  return r;
}

/// The plan of `P` and of the same text read at run time as a pipeline of
/// its own (`seq(text)`, as the type is one), as --print-pipeline=expanded
/// prints them; each in a pipeline of the registry, where both find the
/// passes they require and do not hold.
template <class P>
void expect_same_plan(const std::string& text, int opt_level) {
  PassContext ctx;
  ctx.opt_level = opt_level;
  const auto plan = [&](const Pass<Trace>& pass) { return passline::plan_text(registry().sequential({pass}).plan(ctx)); };
  EXPECT_EQ(plan(Pass<Trace>(P{})), plan(passline::parse_pipeline("seq(" + text + ")", registry()))) << text << " at -O"
                                                                                                      << opt_level;
}

#define SAME_PLAN(text)                                \
  for (int level = 0; level <= 3; ++level) {           \
    expect_same_plan<Passes::Pipeline<text>>(text, level); \
  }

TEST(StaticText, ThePlanOfTheTypeIsThePlanOfTheTextReadAtRunTime) {
  SAME_PLAN("");
  SAME_PLAN("InferType");
  SAME_PLAN("InferType,FoldConstant");
  SAME_PLAN("Inline,InferType,FoldConstant,Simplify,DeadCode");
  SAME_PLAN("Simplify,Simplify,DeadCode");
  SAME_PLAN(" Simplify ,  DeadCode ");
  SAME_PLAN("seq(InferType,FoldConstant),Inline");
  SAME_PLAN("seq(seq(Simplify),DeadCode)");
  SAME_PLAN("Cleanup");
  SAME_PLAN("Cleanup,InferType,FoldConstant,Cleanup");
  SAME_PLAN("seq(),Simplify");
  SAME_PLAN("InferType,seq(FoldConstant,seq(Inline,Cleanup)),DeadCode");
  SAME_PLAN("seq(FoldConstant)");
  SAME_PLAN("FoldConstant,seq(Inline,FoldConstant)");
  SAME_PLAN("fixed_point<3>(Simplify,DeadCode)");
  SAME_PLAN("Unroll{factor=8}");
  SAME_PLAN("Unroll{mode=\"two words\" full=true},Unroll{},Unroll{ratio=-0.25 factor=9223372036854775807}");
  SAME_PLAN("seq(Unroll{ratio=1e300}),fixed_point<2>(Unroll{mode=x})");
  SAME_PLAN("Unroll{ratio=inf mode=\"a\\\"b\"}");
  SAME_PLAN("fixed_point<2>(Simplify,Cleanup),InferType,seq(FoldConstant),fixed_point<1>(Inline)");
}

TEST(StaticText, AFixedPointPrintsAsTheTextThatMadeIt) {
  EXPECT_EQ(Pass<Trace>(Passes::Pipeline<"fixed_point<3>(Simplify,DeadCode)">{}).text(),
            "fixed_point<3>(Simplify,DeadCode)");
  EXPECT_EQ(Pass<Trace>(Passes::Pipeline<"InferType,fixed_point<7>(seq(Inline),DeadCode)">{}).text(),
            "InferType,fixed_point<7>(seq(Inline),DeadCode)");
}

/// The passes `P` runs and those the same text read at run time runs, on
/// every opt level.
template <class P>
void expect_same_run(const std::string& text) {
  for (int level = 0; level <= 3; ++level) {
    PassContext ctx;
    ctx.opt_level = level;
    EXPECT_EQ(P{}(Trace{}, ctx).ran, passline::parse_pipeline(text, registry())(Trace{}, ctx).ran)
        << text << " at -O" << level;
  }
}

#define SAME_RUN(text) expect_same_run<Passes::Pipeline<text>>(text)

TEST(StaticText, NestedPipelinesRunTheSamePassesAsTheTextReadAtRunTime) {
  SAME_RUN("seq(InferType,FoldConstant),Inline");
  SAME_RUN("seq(seq(Simplify),DeadCode)");
  SAME_RUN("Cleanup");
  SAME_RUN("Cleanup,InferType,FoldConstant,Cleanup");
  SAME_RUN("seq(),Simplify");
  SAME_RUN(" Simplify , seq( DeadCode ) ");
  SAME_RUN("fixed_point<2>(Simplify,seq(DeadCode)),fixed_point<1>(Cleanup)");
  SAME_RUN("Unroll{factor=8},Unroll,Unroll{mode=\"two words\" full=true ratio=.125}");
  SAME_RUN("Unroll{factor=-9223372036854775808 ratio=4.9e-324 mode=\"\"}");
}

TEST(StaticText, AThreeHundredPassTextRunsItsPasses) {
  PassContext ctx;
  const Trace out = Numbers::first_type::Pipeline<numbered_text<300>>{}(Trace{}, ctx);
  ASSERT_EQ(out.ran.size(), 300U);
  EXPECT_EQ(out.ran.front(), "N0");
  EXPECT_EQ(out.ran.back(), "N299");
}

/// Whether run-time pipeline text takes `value` for option `option` of Unroll.
bool read_at_run_time(std::string_view option, const std::string& value) {
  try {
    (void)passline::parse_pipeline("Unroll{" + std::string(option) + "=\"" + value + "\"}", registry());
    return true;
  } catch (const passline::PipelineSyntaxError&) {
    return false;
  }
}

// What the compile-time catalog checks values with (support::reads_as_int,
// reads_as_float) takes what the run-time parser takes, and nothing else:
// the edges of the grammar and of double's range, then random words.
TEST(StaticText, AValueReadsAtCompileTimeAsAtRunTime) {
  std::vector<std::string> values{
      "0", "-0", "00012", "+1", "-", "", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
      "-9223372036854775809", "1.", "-.5", ".", "1e", "1e+5", "1e-5", "1E5", "0e999999", "0x10", "inf", "-INFINITY",
      "infx", "nan", "NaN", "nan(abc_1)", "nan()", "nan(a-b)", "1e308", "1e309", "1.7976931348623158e308",
      "1.7976931348623159e308", "4e-320", "2.5e-324", "2.4e-324", "1e-400", "0.000000000000000000001e-300",
      "123456789012345678901234567890e280"};
  std::mt19937_64 random(2026);
  const std::string alphabet = "0123456789.eE-+infatyINF()_x";
  for (int n = 0; n < 20000; ++n) {
    std::string value;
    for (int k = std::uniform_int_distribution(0, 10)(random); k > 0; --k) {
      value += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(random)];
    }
    values.push_back(value);
  }
  for (const std::string& value : values) {
    EXPECT_EQ(passline::support::reads_as_int(value), read_at_run_time("factor", value)) << "int '" << value << "'";
    EXPECT_EQ(passline::support::reads_as_float(value), read_at_run_time("ratio", value)) << "float '" << value << "'";
  }
}

TEST(StaticText, ItRunsItsPassesInOrder) {
  using P = Passes::Pipeline<"InferType,seq(FoldConstant,Simplify),Cleanup">;
  PassContext ctx;
  const Trace out = P{}(Trace{}, ctx);
  EXPECT_EQ(out.ran, (std::vector<std::string>{"InferType", "FoldConstant", "Simplify", "Simplify", "DeadCode"}));
}

}  // namespace
