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
using passline::Inserted;
using passline::testing::Preserving;
using passline::testing::Step;
using passline::testing::Trace;

using Names = std::vector<std::string>;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : Step<"Inline", 2> {};
struct Simplify : Step<"Simplify", 1> {};

// Missing requirements are inserted before their user.
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, FoldConstant>,
                             Sequential<Inserted<InferType>, FoldConstant>>);

// The user's own passes keep their order; the insertion goes right before the user.
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, Inline, FoldConstant, Simplify>,
                             Sequential<Inline, Inserted<InferType>, FoldConstant, Simplify>>);

// A requirement that an earlier pass of the pipeline meets, and that every pass
// since preserves, is left alone.
struct KeepsTypes : Preserving<Step<"KeepsTypes", 2>, "InferType"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, InferType, KeepsTypes, FoldConstant>,
                             Sequential<InferType, KeepsTypes, FoldConstant>>);

// A pass in between that does not preserve it: the required pass runs again.
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, InferType, Inline, FoldConstant>,
                             Sequential<InferType, Inline, Inserted<InferType>, FoldConstant>>);

// Transitive: C requires B, B requires A.
struct A : Step<"A"> {};
struct B : Step<"B", 0, "A"> {};
struct C : Step<"C", 0, "B"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<C, B, A>, C>, Sequential<Inserted<A>, Inserted<B>, C>>);

// Diamond: D requires B and E, both of which require A; A comes once, first,
// when B and E change nothing (analyses, verifiers: they preserve all).
struct Bv : Preserving<Step<"Bv", 0, "A">, "*"> {};
struct Ev : Preserving<Step<"Ev", 0, "A">, "*"> {};
struct D : Step<"D", 0, "Bv", "Ev"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A, Bv, Ev>, D>, Sequential<Inserted<A>, Inserted<Bv>, Inserted<Ev>, D>>);

// Two requirements of one user, where the second keeps the first's work: in
// the order listed. Listed the other way round, the second breaks the first,
// so a second round runs the first again.
struct E : Step<"E", 0, "A"> {};
struct Bk : Preserving<Step<"Bk">, "E"> {};
struct Dk : Step<"Dk", 0, "E", "Bk"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A, Bk, E>, Dk>, Sequential<Inserted<A>, Inserted<E>, Inserted<Bk>, Dk>>);
struct Dr : Step<"Dr", 0, "Bk", "E"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A, Bk, E>, Dr>, Sequential<Inserted<Bk>, Inserted<A>, Inserted<E>, Inserted<Bk>, Dr>>);

// Two users of one requirement: inserted before the first user, and again
// before the second when a pass in between does not preserve it.
struct F : Step<"F", 0, "A"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A>, Ev, Inline, F>, Sequential<Inserted<A>, Ev, Inline, Inserted<A>, F>>);
struct KeepsA : Preserving<Step<"KeepsA">, "A"> {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<A>, Ev, KeepsA, F>, Sequential<Inserted<A>, Ev, KeepsA, F>>);

// A requirement met by a pass listed later in the pipeline itself is inserted
// before its user too (the user's own pass stays where it is).
static_assert(std::is_same_v<ResolvedSequential<Catalog<>, FoldConstant, InferType>,
                             Sequential<Inserted<InferType>, FoldConstant, InferType>>);

// Catalogs and pipelines may hold pipelines: they are flattened.
static_assert(std::is_same_v<ResolvedSequential<Catalog<Sequential<A, InferType>>, Sequential<B, FoldConstant>>,
                             Sequential<Inserted<A>, B, Inserted<InferType>, FoldConstant>>);

TEST(ResolvedSequential, RunsInsertedPassesInDependencyOrder) {
  PassContext ctx;
  using Pipeline = ResolvedSequential<Catalog<A, Bv, Ev, InferType>, D, FoldConstant>;
  EXPECT_EQ(Pipeline{}(Trace{}, ctx).ran, (Names{"A", "Bv", "Ev", "D", "InferType", "FoldConstant"}));
}

TEST(ResolvedSequential, AnInsertedPassRunsOnlyWhenItsUserRuns) {
  using Pipeline = ResolvedSequential<Catalog<InferType>, Simplify, FoldConstant>;
  PassContext o1{.opt_level = 1};  // FoldConstant (level 2) does not run, nor does what it needs
  EXPECT_EQ(Pipeline{}(Trace{}, o1).ran, (Names{"Simplify"}));
  PassContext o2{.opt_level = 2};
  EXPECT_EQ(Pipeline{}(Trace{}, o2).ran, (Names{"Simplify", "InferType", "FoldConstant"}));
}

}  // namespace

namespace {
// A type that is not a pass passes through resolution untouched, so that the
// resolved Sequential reports it (not_a_pass) with the IR where it runs.
struct NotAPass {};
static_assert(std::is_same_v<ResolvedSequential<Catalog<InferType>, NotAPass, FoldConstant>,
                             Sequential<NotAPass, Inserted<InferType>, FoldConstant>>);
}  // namespace
