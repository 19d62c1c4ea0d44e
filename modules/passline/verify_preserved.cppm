// VerifyPreserved: checks what passes claim to preserve, as LLVM's standard
// instrumentations check the analyses a pass says it preserved.
//
// A pass that names an analysis or a pass in `PassInfo::preserves` promises
// that what it names stays true after it changed the IR, and the run trusts
// the promise: it keeps the analysis's results and does not run the pass
// again for a later pass that requires it. A broken promise hands later
// passes a stale result, silently. So after each pass that changed the IR
// (by fingerprint), this instrument computes afresh every analysis result the
// run kept and compares it with the kept one (results that have `==`), and
// runs again, on a copy and under a context of its own, every pass that held
// before and that the pass claims to preserve (found in a registry): it must
// leave the IR as it is. A difference stops the run with a VerificationError
// naming the pass, what it claimed, and the function. It costs a fresh
// analysis or pass run per claim, so it is a debugging aid, like VerifyEach.
module;
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>
export module passline:verify_preserved;
import :instrument;
import :ir_view;
import :ir_traits;
import :pass_info;
import :context;
import :error;
import :registry;
import :message;

export namespace passline {

/// `--verify-preserved`: after each pass that changed the IR, checks the
/// analyses and passes it claims to preserve (`PassInfo::preserves`) against
/// a fresh computation; a claim that does not hold is a VerificationError
/// naming the pass. Analyses are those of the run's context; passes are
/// checked when `passes` (the registry they are found in) is given.
template <class IR>
class VerifyPreserved final : public Instrument {
 public:
  explicit VerifyPreserved(const Registry<IR>* passes = nullptr) : passes_(passes) {}

  void enter_context() override { holding_.clear(); }

  void before_pass(const PassInfo&, IRView ir, const PassPlace& place) override {
    if (!place.pipeline) before_ = ir.fingerprint();
  }

  void after_pass(const PassInfo& info, IRView view, const PassPlace& place) override {
    if (place.pipeline) return;
    const IR* ir = view.get<IR>();
    if (!ir) return;
    const std::optional<std::uint64_t> after = view.fingerprint();
    if (!before_ || !after || *before_ != *after) {
      check_analyses(info, *ir);
      check_passes(info, *ir);
      std::erase_if(holding_, [&](const std::string& name) { return !info.keeps(name); });
    }
    holding_.insert(std::string(info.name));
  }

 private:
  void check_analyses(const PassInfo& info, const IR& ir) const {
    for (const auto& stale : PassContext::current().analyses<IR>().stale(ir)) {
      throw VerificationError(
          std::string(info.name),
          fmt::format("it claims to preserve the analysis '{}', but its result{} is not what '{}' computes now",
                      stale.analysis, stale.function.empty() ? "" : " for '" + printable(stale.function, 80) + "'",
                      stale.analysis));
    }
  }

  void check_passes(const PassInfo& info, const IR& ir) const {
    if (!passes_) return;
    if constexpr (Fingerprintable<IR>) {
      for (const std::string& name : holding_) {
        if (!info.keeps(name) || !passes_->contains(name)) continue;
        PassContext own;  // no instruments, every level: the check is no part of the run
        own.opt_level = max_opt_level;
        const IR again = passes_->create(name)(IR(ir), own);
        if (IRTraits<IR>::fingerprint(again) != IRTraits<IR>::fingerprint(ir)) {
          throw VerificationError(std::string(info.name),
                                  fmt::format("it claims to preserve '{}', but '{}' run again changes the IR", name, name));
        }
      }
    }
  }

  static constexpr int max_opt_level = 1 << 20;
  const Registry<IR>* passes_;
  std::set<std::string> holding_;  // the passes that ran and hold, by the claims of those after them
  std::optional<std::uint64_t> before_;
};

}  // namespace passline
