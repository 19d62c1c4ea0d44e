// Names that end in a counter (`%0`, `%v12`, `%tmp3`), found by the counter.
//
// Printers of every IR number the values they write, so the names of a large
// function are mostly a prefix and a counter, bound in counting order and
// read a few lines after (or, for a value kept long, in the same slow order
// as they were bound). A hash of the spelling scatters those names over a
// table as large as the function, which past some 10^5 names is in no cache:
// one memory miss a name. Here the counters of a prefix come in blocks of 16
// consecutive ones, one cache line each, in the order the blocks were made,
// so a look-up touches the lines its neighbours touched, and a function
// costs the same per name at 10^6 names as at 10^4. Other names (no counter,
// or a counter written with a leading zero, which would be a different name)
// stay with the parser's table of spellings.
module;
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
export module passline.ir:names;

export namespace passline::ir::detail {

/// A name split into a prefix and the number its trailing digits write.
struct CountedName {
  std::string_view prefix;
  std::uint32_t counter;
};

/// `name` as a prefix and a counter, if it ends in 1 to 9 digits that do
/// not start with a 0 (unless the 0 is alone): the names for which the
/// counter and the prefix say the whole spelling.
constexpr std::optional<CountedName> counted(std::string_view name) {
  std::size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  const std::size_t digits = name.size() - start;
  if (digits == 0 || digits > 9 || (name[start] == '0' && digits > 1)) return std::nullopt;
  std::uint32_t counter = 0;
  for (char c : name.substr(start)) counter = counter * 10 + static_cast<std::uint32_t>(c - '0');
  return CountedName{name.substr(0, start), counter};
}

/// Counted names -> numbers. A name costs at most one block (64 bytes), so
/// scattered counters cost memory in proportion to the names, not to the
/// counters.
class CountedNames {
 public:
  static constexpr std::uint32_t none = 0xffffffffu;

  /// The number of `name`, or `none`.
  std::uint32_t find(CountedName name) {
    const std::uint32_t prefix = prefix_of(name.prefix);
    if (prefix == none) return none;
    const std::uint32_t block = block_of(key(prefix, name.counter));
    return block == none ? none : blocks_[block][name.counter % block_size];
  }

  /// The number of `name`, to read or set (`none` until set). The reference
  /// holds until the next call.
  std::uint32_t& at(CountedName name) {
    std::uint32_t prefix = prefix_of(name.prefix);
    if (prefix == none) {
      prefix = static_cast<std::uint32_t>(prefixes_.size());
      prefixes_.emplace(std::string(name.prefix), prefix);
      remember_prefix(name.prefix, prefix);
    }
    const std::uint64_t k = key(prefix, name.counter);
    std::uint32_t block = block_of(k);
    if (block == none) {
      block = static_cast<std::uint32_t>(blocks_.size());
      blocks_.emplace_back();
      blocks_.back().fill(none);
      block_index_.emplace(k, block);
      last_key_ = k;
      last_block_ = block;
    }
    return blocks_[block][name.counter % block_size];
  }

  /// Forgets every name, keeping the room: the next function's table.
  void clear() {
    prefixes_.clear();
    block_index_.clear();
    blocks_.clear();
    last_prefix_id_ = none;
    last_key_ = no_key;
  }

  /// Forgets every name and hands the room back.
  void release() {
    *this = CountedNames();
  }

 private:
  static constexpr std::uint32_t block_size = 16;  // 64 bytes: a cache line
  static constexpr std::uint64_t no_key = ~std::uint64_t{0};
  static std::uint64_t key(std::uint32_t prefix, std::uint32_t counter) {
    return std::uint64_t{prefix} << 32 | counter / block_size;
  }

  /// Most names of a function share one prefix: the last one met is
  /// compared before the table of prefixes is asked.
  std::uint32_t prefix_of(std::string_view prefix) {
    if (last_prefix_id_ != none && prefix == last_prefix_) return last_prefix_id_;
    const auto it = prefixes_.find(prefix);
    if (it == prefixes_.end()) return none;
    remember_prefix(prefix, it->second);
    return it->second;
  }
  void remember_prefix(std::string_view prefix, std::uint32_t id) {
    last_prefix_.assign(prefix);
    last_prefix_id_ = id;
  }

  /// Reading and binding go forward, so the block last found is asked first.
  std::uint32_t block_of(std::uint64_t k) {
    if (k == last_key_) return last_block_;
    const auto it = block_index_.find(k);
    if (it == block_index_.end()) return none;
    last_key_ = k;
    last_block_ = it->second;
    return it->second;
  }

  struct PrefixHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct SamePrefix {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  // Few of each (a name of 10^6 costs 1/16 of an entry in the second), so
  // the standard maps: partitions that hold a table of Boost.Unordered
  // cannot be imported by one that holds another (clang 19).
  std::unordered_map<std::string, std::uint32_t, PrefixHash, SamePrefix> prefixes_;
  std::unordered_map<std::uint64_t, std::uint32_t> block_index_;  // (prefix, counter / 16) -> block
  std::vector<std::array<std::uint32_t, block_size>> blocks_;            // in the order made
  std::string last_prefix_;
  std::uint32_t last_prefix_id_ = none;
  std::uint64_t last_key_ = no_key;
  std::uint32_t last_block_ = none;
};

}  // namespace passline::ir::detail
