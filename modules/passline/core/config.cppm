// Typed configuration for passes: keys declared once, values checked on entry.
//
// A key is registered with its type, default and description (like TVM's
// TVM_REGISTER_PASS_CONFIG_OPTION), so `--list-config` and error messages read
// the same declaration. Setting an unknown key or a value of the wrong type is
// an error at the point of setting, not a surprise deep inside a pass.
module;
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/map.hpp>
#include <range/v3/view/transform.hpp>
export module passline:config;
import :value;
import :error;
import passline.support;

export namespace passline {

/// A registered config key: the one declaration of its name, type, default and use.
struct ConfigKeyInfo {
  std::string name;
  Value default_value;
  std::string description;
  /// For an integer key: the values it takes, both ends included.
  std::optional<std::pair<std::int64_t, std::int64_t>> range = std::nullopt;
  std::string_view type_name() const { return value_type_name(default_value); }

  /// Throws ConfigError unless `value` is of the key's type and in its range.
  void check(const Value& value) const {
    if (value.index() != default_value.index()) {
      throw ConfigError(fmt::format("config key '{}' takes {}, not {}", name,
                                    a_value_type(default_value.index()), a_value_type(value.index())));
    }
    const auto* number = std::get_if<std::int64_t>(&value);
    if (range && number && (*number < range->first || *number > range->second)) {
      throw ConfigError(fmt::format("config key '{}' takes an integer from {} to {}, not {}", name,
                                    range->first, range->second, *number));
    }
  }
};

/// A typed handle on a registered key: `ctx.config.get(key)` needs no type check.
template <ValueType T>
struct ConfigKey {
  std::string_view name;
};

/// The process-wide table of config keys.
class ConfigKeys {
 public:
  static ConfigKeys& global() {
    static ConfigKeys keys;
    return keys;
  }

  /// Registers a key; a name registered twice is an error.
  template <ValueType T>
  ConfigKey<T> add(std::string_view name, T default_value, std::string_view description) {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = keys_.try_emplace(
        std::string(name), ConfigKeyInfo{std::string(name), Value(std::move(default_value)), std::string(description)});
    if (!inserted) throw ConfigError(fmt::format("config key '{}' is registered twice", name));
    return ConfigKey<T>{it->first};
  }

  /// The key called `name`; an unknown name is an error listing close candidates.
  const ConfigKeyInfo& at(std::string_view name) const {
    std::lock_guard lock(mutex_);
    if (auto it = keys_.find(name); it != keys_.end()) return it->second;
    auto names = keys_ | ranges::views::keys
                 | ranges::views::transform([](const std::string& k) { return std::string_view(k); })
                 | ranges::to<std::vector>();
    throw ConfigError(fmt::format("unknown config key '{}'{}", name, support::did_you_mean(name, names)));
  }

  /// Every key, sorted by name.
  std::vector<ConfigKeyInfo> list() const {
    std::lock_guard lock(mutex_);
    return keys_ | ranges::views::values | ranges::to<std::vector>();
  }

 private:
  ConfigKeys();
  mutable std::mutex mutex_;
  std::map<std::string, ConfigKeyInfo, std::less<>> keys_;
};

/// Registers a config key in the process-wide table.
template <ValueType T>
ConfigKey<T> register_config(std::string_view name, T default_value, std::string_view description) {
  return ConfigKeys::global().add<T>(name, std::move(default_value), description);
}

/// The most threads a context may ask for: more than any machine has
/// cores, few enough for a thread pool to make.
inline constexpr std::int64_t max_threads = 1024;

/// Built-in keys.
namespace config {
/// Threads for function passes, 0 to max_threads; 0 means one per hardware thread.
inline constexpr ConfigKey<std::int64_t> threads{"threads"};
}  // namespace config

/// The config values of a PassContext. Keys not set read as their defaults.
class Config {
 public:
  template <ValueType T>
  void set(ConfigKey<T> key, T value) {
    set(key.name, Value(std::move(value)));
  }

  /// Sets a key by name; the key must be registered and the value of its type.
  void set(std::string_view name, Value value) {
    const ConfigKeyInfo& key = ConfigKeys::global().at(name);
    key.check(value);
    store(key.name, std::move(value));
  }

  /// Sets a key from text, as in `--config KEY=VALUE`, read as the key's type.
  void set_text(std::string_view name, std::string_view text) {
    const ConfigKeyInfo& key = ConfigKeys::global().at(name);
    std::optional<Value> value = parse_value(key.default_value.index(), text);
    if (!value) {
      throw ConfigError(fmt::format("config key '{}' takes {}, not '{}'", name,
                                    a_value_type(key.default_value.index()),
                                    support::printable(text)));
    }
    key.check(*value);
    store(key.name, std::move(*value));
  }

  /// The value of a key, or its default.
  template <ValueType T>
  T get(ConfigKey<T> key) const {
    if (const Value* value = find(key.name)) return std::get<T>(*value);
    return std::get<T>(ConfigKeys::global().at(key.name).default_value);
  }

  /// The value set for `name`, or null when it reads as its default.
  const Value* find(std::string_view name) const {
    auto it = std::ranges::find(values_, name, &Entry::first);
    return it == values_.end() ? nullptr : &it->second;
  }

  /// The keys set explicitly, in the order they were first set.
  const auto& values() const { return values_; }

 private:
  using Entry = std::pair<std::string, Value>;
  void store(std::string_view name, Value value) {
    auto it = std::ranges::find(values_, name, &Entry::first);
    if (it != values_.end()) {
      it->second = std::move(value);
    } else {
      values_.emplace_back(std::string(name), std::move(value));
    }
  }
  std::vector<Entry> values_;
};

}  // namespace passline

namespace passline {

ConfigKeys::ConfigKeys() {
  keys_.try_emplace("threads", ConfigKeyInfo{"threads", Value(std::int64_t{0}),
                                             "threads for function passes, and for parsing, verifying and printing in passline-opt (0: one per hardware thread)",
                                             std::pair<std::int64_t, std::int64_t>{0, max_threads}});
}

}  // namespace passline
