// VerifyEach, OptBisect and Reproducer (instruments.cppm): instruments that
// stop, skip or record a run.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
module passline.instruments;

namespace passline {

void VerifyEach::after_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  if (place.pipeline) return;
  try {
    verify_(ir);
  } catch (const std::exception& error) {
    throw VerificationError(std::string(info.name), error.what());
  }
}

bool OptBisect::should_run(const PassInfo& info, IRView, const PassPlace& place) {
  if (place.pipeline || !info.optional) return true;
  ++count_;
  const bool runs = limit_ < 0 || count_ <= limit_;
  out_(fmt::format("BISECT: {} pass ({}) {}\n", runs ? "running" : "NOT running", count_, info.name));
  return runs;
}

std::string Reproducer::first_line(std::string_view comment, std::string_view tool, const PassInfo& info,
                                   const PassPlace& place, std::string_view settings) {
  // The pass as pipeline text, with its options, as one shell word.
  const std::string pass = support::shell_word("--passes=" + pass_text(info.name, place.options));
  return fmt::format("{} {} {}{}{}\n", comment, marker_of(tool), pass, settings.empty() ? "" : " ", settings);
}

void Reproducer::enter_context() {
  written_ = false;
  error_.clear();
  output_ = std::make_unique<support::OutputFile>(file_);
}

void Reproducer::after_failed_pass(const PassInfo& info, IRView ir, const PassPlace& place, std::exception_ptr) {
  if (place.pipeline || written_ || !error_.empty()) return;  // the innermost pass that failed, once
  try {
    if (!output_) output_ = std::make_unique<support::OutputFile>(file_);
    output_->write(first_line(comment_, tool_, info, place, settings_));
    output_->write(detail::with_newline(ir.print()));
    output_->commit();
    written_ = true;
  } catch (const support::FileError& error) {
    error_ = error.what();
  }
}

}  // namespace passline
