// Types of the reference IR: i64, f64, bool, tuples and function types.
//
// Types are interned in one process-wide table and named by a 32-bit id, so a
// node carries its type in four bytes and two types are equal iff their ids
// are. The primitive types have fixed ids; composite ones are added under a
// lock the first time they are built and never removed.
module;
#include <algorithm>
#include <cstdint>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
export module passline.ir:types;

export namespace passline::ir {

enum class TypeKind : std::uint8_t { unknown, i64, f64, boolean, tuple, function };

/// An interned type. `Type{}` is "not known yet" (before InferType).
struct Type {
  std::uint32_t id = 0;
  friend bool operator==(Type, Type) = default;
  inline bool known() const { return id != 0; }
};

namespace types {
inline constexpr Type unknown{0};
inline constexpr Type i64{1};
inline constexpr Type f64{2};
inline constexpr Type boolean{3};
}  // namespace types

/// The process-wide table of types.
class TypeTable {
 public:
  static TypeTable& global() {
    static TypeTable table;
    return table;
  }

  TypeKind kind(Type t) const {
    std::shared_lock lock(mutex_);
    return entries_[t.id].kind;
  }
  /// Elements of a tuple; parameters of a function type.
  std::vector<Type> elements(Type t) const {
    std::shared_lock lock(mutex_);
    return entries_[t.id].elements;
  }
  /// The result of a function type.
  Type result(Type t) const {
    std::shared_lock lock(mutex_);
    return entries_[t.id].result;
  }
  /// How deep a type nests: 0 for a primitive, 1 for `(i64,)` or `fn() -> i64`.
  std::uint32_t depth(Type t) const {
    std::shared_lock lock(mutex_);
    return entries_[t.id].depth;
  }

  Type tuple(std::span<const Type> elements) { return intern(TypeKind::tuple, elements, types::unknown); }
  Type function(std::span<const Type> params, Type result) { return intern(TypeKind::function, params, result); }

  /// The type as the text format writes it: `i64`, `(i64, bool)`, `fn(i64) -> i64`.
  std::string print(Type t) const {
    switch (kind(t)) {
      case TypeKind::unknown: return "?";
      case TypeKind::i64: return "i64";
      case TypeKind::f64: return "f64";
      case TypeKind::boolean: return "bool";
      case TypeKind::tuple: {
        const std::vector<Type> parts = elements(t);
        return "(" + print_list(parts) + (parts.size() == 1 ? ",)" : ")");
      }
      case TypeKind::function: return "fn(" + print_list(elements(t)) + ") -> " + print(result(t));
    }
    return "?";
  }

 private:
  std::string print_list(const std::vector<Type>& list) const {
    std::string text;
    for (std::size_t i = 0; i < list.size(); ++i) text += (i ? ", " : "") + print(list[i]);
    return text;
  }

  struct Entry {
    TypeKind kind;
    std::vector<Type> elements;
    Type result;
    std::uint32_t depth = 0;
  };

  TypeTable() {
    entries_.push_back({TypeKind::unknown, {}, {}});
    entries_.push_back({TypeKind::i64, {}, {}});
    entries_.push_back({TypeKind::f64, {}, {}});
    entries_.push_back({TypeKind::boolean, {}, {}});
  }

  static std::string key(TypeKind kind, std::span<const Type> elements, Type result) {
    std::string k = fmt::format("{}:{}", static_cast<int>(kind), result.id);
    for (Type e : elements) k += fmt::format(",{}", e.id);
    return k;
  }

  Type intern(TypeKind kind, std::span<const Type> elements, Type result) {
    std::string k = key(kind, elements, result);
    {
      std::shared_lock lock(mutex_);
      if (auto it = index_.find(k); it != index_.end()) return it->second;
    }
    std::unique_lock lock(mutex_);
    if (auto it = index_.find(k); it != index_.end()) return it->second;
    Type t{static_cast<std::uint32_t>(entries_.size())};
    std::uint32_t depth = entries_[result.id].depth;
    for (Type e : elements) depth = std::max(depth, entries_[e.id].depth);
    entries_.push_back({kind, std::vector<Type>(elements.begin(), elements.end()), result, depth + 1});
    index_.emplace(std::move(k), t);
    return t;
  }

  mutable std::shared_mutex mutex_;
  std::deque<Entry> entries_;
  std::unordered_map<std::string, Type> index_;
};

}  // namespace passline::ir
