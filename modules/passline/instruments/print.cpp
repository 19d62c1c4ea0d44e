// PrintIR, PrintChanged and DumpDir (instruments.cppm): the IR as text, around
// passes, when it changed, or in a file per pass.
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
namespace {

/// `// *** IR Dump After InferType (required by FoldConstant) ***`, as LLVM
/// words it (with the IR's comment syntax).
std::string dump_header(std::string_view when, const PassInfo& info, const PassPlace& place,
                        std::string_view note = {}) {
  const std::string why =
      place.required_by.empty() ? std::string() : fmt::format(" (required by {})", place.required_by);
  return fmt::format("// *** IR Dump {} {}{}{} ***\n", when, support::printable(info.name, 200), support::printable(why, 200), note);
}

/// Writes a dump, its header and then the IR ending in a newline, in pieces:
/// a large IR's text is not copied again to join it to its header.
void write_dump(const Output& out, std::string_view header, std::string_view text) {
  out(header);
  out(text);
  if (!text.empty() && text.back() != '\n') out("\n");
}

bool listed(const std::vector<std::string>& list, std::string_view name) {
  return std::ranges::find(list, name) != list.end();
}

}  // namespace

void PrintIR::before_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  if (wanted(options_.before, options_.before_all, info, place)) print("Before", info, ir, place);
}

void PrintIR::after_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  if (wanted(options_.after, options_.after_all, info, place)) print("After", info, ir, place);
}

void PrintIR::after_failed_pass(const PassInfo& info, IRView ir, const PassPlace& place, std::exception_ptr) {
  // The IR the pass was given: the run keeps the caller's IR as it was.
  if (options_.after_failure && !place.pipeline) write_dump(out_, dump_header("After", info, place, " Failed"), ir.print());
}

bool PrintIR::wanted(const std::vector<std::string>& list, bool all, const PassInfo& info, const PassPlace& place) {
  return listed(list, info.name) || (all && !place.pipeline);
}

void PrintIR::print(std::string_view when, const PassInfo& info, IRView ir, const PassPlace& place) {
  write_dump(out_, dump_header(when, info, place), ir.print());
}

void PrintChanged::before_pass(const PassInfo&, IRView ir, const PassPlace&) {
  if (started_) return;
  started_ = true;
  if (mode_ == Mode::quiet && ir.fingerprintable()) {  // nothing to show, nor to compare by text
    fingerprint_ = ir.fingerprint();
    return;
  }
  print(ir);
  fingerprint_ = ir.fingerprint();  // after the print, which may have computed it
  if (mode_ != Mode::quiet) write_dump(out_, "// *** IR Dump At Start ***\n", text_);
  if (keeps_text()) std::swap(last_text_, text_);
}

void PrintChanged::after_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  if (place.pipeline) return;
  if (!ir.printable() && !ir.fingerprintable()) {  // nothing to compare by: never "no change"
    if (mode_ != Mode::quiet) {
      out_(dump_header("After", info, place,
                               " (cannot tell whether it changed: the IR has neither a printer nor a fingerprint)"));
    }
    return;
  }
  // Unchanged functions keep their fingerprints, so an unchanged IR's is at
  // hand. Another IR is printed first, to show if it changed (or to compare
  // by text, without a fingerprint), and a print may fingerprint it too.
  std::optional<std::uint64_t> fingerprint = ir.cached_fingerprint();
  const bool printed = !fingerprint;
  if (printed) {
    print(ir);
    fingerprint = ir.fingerprint();
  }
  const bool same = fingerprint && fingerprint_ ? *fingerprint == *fingerprint_ : text_ == last_text_;
  if (same) {
    if (mode_ != Mode::quiet) out_(dump_header("After", info, place, " omitted because no change"));
    return;
  }
  if (!printed) print(ir);
  const std::string label = std::string(info.name);
  if (mode_ == Mode::diff) {
    out_(dump_header("After", info, place) + support::unified_diff(last_text_, text_, last_, label));
  } else {
    write_dump(out_, dump_header("After", info, place), text_);
  }
  fingerprint_ = fingerprint;
  last_ = label;
  if (keeps_text()) std::swap(last_text_, text_);
}

void PrintChanged::print(IRView ir) {
  ir.print(text_);
  text_ = detail::with_newline(std::move(text_));
}

void DumpDir::enter_context() {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) throw support::FileError(fmt::format("cannot make the dump directory '{}': {}", dir_.string(), error.message()));
  step_ = 0;
  wrote_input_ = false;
}

void DumpDir::before_pass(const PassInfo&, IRView ir, const PassPlace& place) {
  if (place.pipeline || wrote_input_) return;
  wrote_input_ = true;
  write("000-input", ir);
}

void DumpDir::after_pass(const PassInfo& info, IRView ir, const PassPlace& place) {
  if (place.pipeline) return;
  write(fmt::format("{:03}-{}", ++step_, info.name), ir);
}

void DumpDir::write(std::string stem, IRView ir) const {
  for (char& c : stem) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!kept) c = '_';
  }
  support::replace_file(dir_ / (stem + extension_), detail::with_newline(ir.print()));
}

}  // namespace passline
