// Unified diffs of two texts, for `--print-changed=diff`.
//
// The diff is libgit2's (the Myers diff of git, in process): the same hunks as
// `diff -u`, without temporary files or a child process. Only this
// declaration is part of the module interface; the implementation unit
// (diff.cpp) is the one place that includes libgit2.
module;
#include <string>
#include <string_view>
export module passline:diff;

export namespace passline {

/// The unified diff from `before` to `after`, as `diff -u` writes it: a
/// `--- before_label` / `+++ after_label` header, then hunks with `context`
/// unchanged lines around each change; a hunk header names the nearest line
/// above it that begins with a letter (a `def`), as git's do. Empty when the
/// texts are equal.
std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, int context = 3);

}  // namespace passline
