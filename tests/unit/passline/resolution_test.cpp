#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>
import passline;
import passline.testing;

namespace {

using passline::Catalog;
using passline::PassContext;
using passline::ResolvedSequential;
using passline::Sequential;
using passline::testing::Step;
using passline::testing::Trace;

using Names = std::vector<std::string>;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : Step<"Inline", 2> {};
struct Simplify : Step<"Simplify", 1> {};

// Missing requirements are inserted before their user.
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, FoldConstant>,
                             Sequential<InferType, FoldConstant>>);

// The user's own passes keep their order; the insertion goes right before the user.
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, Inline, FoldConstant, Simplify>,
                             Sequential<Inline, InferType, FoldConstant, Simplify>>);

// A requirement that an earlier pass of the pipeline meets is left alone.
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, InferType, Inline, FoldConstant>,
                             Sequential<InferType, Inline, FoldConstant>>);

// Transitive: C requires B, B requires A.
struct A : Step<"A"> {};
struct B : Step<"B", 0, "A"> {};
struct C : Step<"C", 0, "B"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<C, B, A>, C>, Sequential<A, B, C>>);

// Diamond: D requires B and E, both of which require A; A comes once, first.
struct E : Step<"E", 0, "A"> {};
struct D : Step<"D", 0, "B", "E"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A, B, E>, D>, Sequential<A, B, E, D>>);

// Two users of one requirement: it is inserted once, before the first user.
struct F : Step<"F", 0, "A"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A>, E, Inline, F>,
                             Sequential<A, E, Inline, F>>);

// A requirement met by a pass listed later in the pipeline itself is inserted
// before its user too (the user's own pass stays where it is).
static_assert(std::is_same_v<ResolvedSequential<Catalog<>, FoldConstant, InferType>,
                             Sequential<InferType, FoldConstant, InferType>>);

// Catalogs and pipelines may hold pipelines: they are flattened.
static_assert(std::is_same_v<ResolvedSequential<Catalog<Sequential<A, InferType>>, Sequential<B, FoldConstant>>,
                             Sequential<A, B, InferType, FoldConstant>>);

TEST(ResolvedSequential, RunsInsertedPassesInDependencyOrder) {
  PassContext ctx;
  using Pipeline = ResolvedSequential<Catalog<A, B, E, InferType>, D, FoldConstant>;
  EXPECT_EQ(Pipeline{}(Trace{}, ctx).ran, (Names{"A", "B", "E", "D", "InferType", "FoldConstant"}));
}

}  // namespace

namespace {
// A type that is not a pass passes through resolution untouched, so that the
// resolved Sequential reports it (not_a_pass) with the IR where it runs.
struct NotAPass {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, NotAPass, FoldConstant>,
                             Sequential<NotAPass, InferType, FoldConstant>>);
}  // namespace
