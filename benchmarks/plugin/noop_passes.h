// The passes of the plugin benchmark, compiled into the program and into the
// plugin alike (plugin_dispatch.cpp, noop_plugin.cpp): 100 no-op passes
// over a one-integer IR, Noop000 to Noop099. Included after `import passline;`.
#pragma once
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace bench {

/// The IR: one integer, the same type in the program and the plugin.
struct Value {
  int value = 0;
};

constexpr std::size_t plugin_pass_count = 100;

template <std::size_t I>
constexpr std::array<char, 7> noop_name{'N', 'o', 'o', 'p', static_cast<char>('0' + I / 100),
                                        static_cast<char>('0' + I / 10 % 10), static_cast<char>('0' + I % 10)};

/// A pass that does nothing the optimizer can see through.
template <std::size_t I>
struct Noop {
  static constexpr passline::PassInfo info{.name = std::string_view(noop_name<I>.data(), noop_name<I>.size()),
                                           .opt_level = 1};
  Value operator()(Value ir, passline::PassContext&) const {
    asm volatile("" : "+r"(ir.value));
    return ir;
  }
};

template <std::size_t... I>
void register_noops(passline::Registry<Value>& registry, std::index_sequence<I...>) {
  (registry.add<Noop<I>>(), ...);
}

inline void register_noops(passline::Registry<Value>& registry) {
  register_noops(registry, std::make_index_sequence<plugin_pass_count>{});
}

}  // namespace bench
