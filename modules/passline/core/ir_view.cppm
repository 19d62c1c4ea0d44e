// IRView: a read-only, type-erased reference to an IR, for instruments.
//
// Instruments are not templates: one instrument watches pipelines over any IR.
// They see the IR through this view, which prints and fingerprints it through
// its IRTraits and hands the typed value back to whoever knows the type.
module;
#include <cstdint>
#include <optional>
#include <string>
#include <typeinfo>
export module passline:ir_view;
import :ir_traits;

export namespace passline {

class IRView {
 public:
  template <class IR>
  explicit IRView(const IR& ir) : ir_(&ir), ops_(&ops_for<IR>) {}
  /// No IR: prints as a placeholder, has no fingerprint, is no IR type.
  IRView() = default;
  bool empty() const { return ir_ == nullptr; }

  /// Whether the IR's traits can print it.
  bool printable() const { return ops_->print != nullptr; }
  /// The IR as text, or a placeholder naming that it has no printer.
  std::string print() const {
    if (!ir_) return "<no IR>";
    return ops_->print ? ops_->print(ir_) : std::string("<IR without a printer>");
  }
  /// Whether the IR's traits can fingerprint it.
  bool fingerprintable() const { return ir_ && ops_->fingerprint != nullptr; }
  /// The IR as text in `out`, which it replaces: an instrument that prints
  /// again and again can keep one string, and its room.
  void print(std::string& out) const {
    if (ir_ && ops_->print_into) {
      ops_->print_into(ir_, out);
    } else {
      out = print();
    }
  }
  /// The IR's structural fingerprint, when its traits define one.
  std::optional<std::uint64_t> fingerprint() const {
    if (!ir_ || !ops_->fingerprint) return std::nullopt;
    return ops_->fingerprint(ir_);
  }
  /// The fingerprint when it is at hand: for an IR whose traits can tell
  /// (IRTraits::cached_fingerprint), only if computed already, say by a
  /// print; for any other, computed now. Null also when there is none.
  std::optional<std::uint64_t> cached_fingerprint() const {
    if (!ir_ || !ops_->fingerprint) return std::nullopt;
    if (!ops_->cached_fingerprint) return ops_->fingerprint(ir_);
    return ops_->cached_fingerprint(ir_);
  }
  /// The IR itself, when it is an `IR`; otherwise null.
  template <class IR>
  const IR* get() const {
    return ir_ && *ops_->type == typeid(IR) ? static_cast<const IR*>(ir_) : nullptr;
  }

 private:
  struct Ops {
    const std::type_info* type;
    std::string (*print)(const void*);
    void (*print_into)(const void*, std::string&);
    std::uint64_t (*fingerprint)(const void*);
    std::optional<std::uint64_t> (*cached_fingerprint)(const void*);
  };

  template <class IR>
  static constexpr Ops ops_for{
      .type = &typeid(IR),
      .print = [] {
        if constexpr (Printable<IR>) {
          return +[](const void* ir) { return std::string(IRTraits<IR>::print(*static_cast<const IR*>(ir))); };
        } else {
          return static_cast<std::string (*)(const void*)>(nullptr);
        }
      }(),
      .print_into = [] {
        if constexpr (PrintsInto<IR>) {
          return +[](const void* ir, std::string& out) { IRTraits<IR>::print_into(*static_cast<const IR*>(ir), out); };
        } else {
          return static_cast<void (*)(const void*, std::string&)>(nullptr);
        }
      }(),
      .fingerprint = [] {
        if constexpr (Fingerprintable<IR>) {
          return +[](const void* ir) {
            return static_cast<std::uint64_t>(IRTraits<IR>::fingerprint(*static_cast<const IR*>(ir)));
          };
        } else {
          return static_cast<std::uint64_t (*)(const void*)>(nullptr);
        }
      }(),
      .cached_fingerprint = [] {
        if constexpr (CachesFingerprint<IR>) {
          return +[](const void* ir) -> std::optional<std::uint64_t> {
            return IRTraits<IR>::cached_fingerprint(*static_cast<const IR*>(ir));
          };
        } else {
          return static_cast<std::optional<std::uint64_t> (*)(const void*)>(nullptr);
        }
      }(),
  };

  const void* ir_ = nullptr;
  const Ops* ops_ = nullptr;
};

}  // namespace passline
