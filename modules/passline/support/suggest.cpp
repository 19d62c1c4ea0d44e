// did_you_mean (support.cppm): suggestions for names that are not found.
//
// Registries of passes, options and config keys all answer an unknown name the
// same way, with the closest known names by edit distance, so the rule lives here.
module;
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>
#include <fmt/format.h>
#include <range/v3/algorithm/sort.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/transform.hpp>
module passline.support;

namespace passline::support {
namespace {

/// Levenshtein distance, case-insensitive: names differ by case as often as by typo.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// True when `name` begins `known`: a name cut short.
bool is_prefix_of(std::string_view name, std::string_view known) {
  return name.size() >= 3 && known.size() > name.size() && edit_distance(name, known.substr(0, name.size())) == 0;
}

/// The known names close enough to `name` to be what was meant, closest first:
/// a few typos away, or `name` cut short.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string_view>& known) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  struct Candidate {
    std::size_t distance;
    std::string_view name;
  };
  auto candidates = known
                    | ranges::views::transform([&](std::string_view k) {
                      return Candidate{is_prefix_of(name, k) ? limit : edit_distance(name, k), k};
                    })
                    | ranges::views::filter([&](const Candidate& c) { return c.distance <= limit; })
                    | ranges::to<std::vector>();
  ranges::sort(candidates, [](const Candidate& x, const Candidate& y) {
    return x.distance != y.distance ? x.distance < y.distance : x.name < y.name;
  });
  return candidates | ranges::views::take(3)
         | ranges::views::transform([](const Candidate& c) { return std::string(c.name); })
         | ranges::to<std::vector>();
}

}  // namespace
}  // namespace passline::support

namespace passline::support {

/// For messages about an unknown name: " (did you mean 'A'?)", " (did you mean 'A' or 'B'?)",
/// or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string_view>& known) {
  const std::vector<std::string> close = closest_names(name, known);
  if (close.empty()) return {};
  std::string text = " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    if (i > 0) text += i + 1 == close.size() ? " or " : ", ";
    text += fmt::format("'{}'", close[i]);
  }
  return text + "?)";
}

}  // namespace passline::support

