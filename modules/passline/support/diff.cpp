// unified_diff (support.cppm), on libgit2's git_diff_buffers.
module;
#include <git2.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
module passline.support;

namespace passline::support {

namespace {

struct Collected {
  std::string text;
  std::string_view before_label;
  std::string_view after_label;
};

int on_hunk(const git_diff_delta*, const git_diff_hunk* hunk, void* payload) {
  auto& out = *static_cast<Collected*>(payload);
  if (out.text.empty()) out.text = fmt::format("--- {}\n+++ {}\n", out.before_label, out.after_label);
  out.text.append(hunk->header, hunk->header_len);
  return 0;
}

int on_line(const git_diff_delta*, const git_diff_hunk*, const git_diff_line* line, void* payload) {
  auto& out = *static_cast<Collected*>(payload);
  switch (line->origin) {
    case GIT_DIFF_LINE_CONTEXT:
    case GIT_DIFF_LINE_ADDITION:
    case GIT_DIFF_LINE_DELETION: out.text += line->origin; break;
    default: break;  // "\ No newline at end of file" comes whole in the content
  }
  out.text.append(line->content, line->content_len);
  return 0;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, int context) {
  static const int initialized = git_libgit2_init();  // once per process; libgit2 counts it
  if (initialized < 0) throw std::runtime_error("cannot initialize libgit2");
  git_diff_options options{};
  git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION);
  options.context_lines = static_cast<std::uint32_t>(context < 0 ? 0 : context);
  options.flags = GIT_DIFF_FORCE_TEXT;
  Collected out{.text = {}, .before_label = before_label, .after_label = after_label};
  const int error = git_diff_buffers(before.data(), before.size(), nullptr, after.data(), after.size(), nullptr, &options,
                                     nullptr, nullptr, on_hunk, on_line, &out);
  if (error < 0) {
    const git_error* last = git_error_last();
    throw std::runtime_error(fmt::format("cannot diff the IR: {}", last && last->message ? last->message : "libgit2 failed"));
  }
  return out.text;
}

}  // namespace passline::support
