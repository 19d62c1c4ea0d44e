// The passline library: one import for the whole public API.
//
//   import passline;              // passes, pipelines, context, registry, analyses
//   import passline.instruments;  // the standard instruments
//
// One interface unit: the standard library, fmt, Hana and range-v3 are parsed
// once, here, for the whole module, and a project that imports passline
// compiles this unit and passline.support's, not one per concept. Each
// concept keeps its own small file (*.inc), in folders by layer (see
// CMakeLists.txt), included below in the order they build on each other.
// Read alone, each part includes the headers and the parts it uses, and the
// test parts.passline compiles it so, layer by layer (tests/parts). The
// parts that export nothing (requirements, analysis, checks, invoke, node,
// run) are internal.
module;
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/map.hpp>
#include <range/v3/view/transform.hpp>
#include <boost/hana.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <fmt/ranges.h>
#include <boost/core/type_name.hpp>
#include <range/v3/algorithm/find_if.hpp>
#include <range/v3/algorithm/sort.hpp>
#include <range/v3/algorithm/any_of.hpp>
#include <range/v3/algorithm/find.hpp>
export module passline;
import passline.support;

// The parts below are in the module: each skips what it includes when read
// alone, and exports what it exports.
#define PASSLINE_MODULE_UNIT
#define PASSLINE_EXPORT export

// core
#include "core/pass_info.inc"
#include "core/ir_traits.inc"
#include "core/ir_view.inc"
#include "core/value.inc"
#include "core/error.inc"
#include "core/config.inc"
#include "core/options.inc"
#include "core/instrument.inc"
#include "core/reporting.inc"
#include "core/analysis_manager.inc"
#include "core/context.inc"
#include "core/concepts.inc"
// rules
#include "rules/diagnostics.inc"
#include "rules/requirements.inc"
#include "rules/analysis.inc"
#include "rules/checks.inc"
// pipeline
#include "pipeline/invoke.inc"
#include "pipeline/node.inc"
#include "pipeline/plan.inc"
#include "pipeline/run.inc"
#include "pipeline/text_format.inc"
#include "pipeline/pass.inc"
#include "pipeline/slot.inc"
#include "pipeline/sequential.inc"
#include "pipeline/fixed_point.inc"
#include "pipeline/compiled.inc"
#include "pipeline/resolution.inc"
#include "pipeline/pipeline_grammar.inc"
#include "pipeline/static_text.inc"
// text
#include "text/registry.inc"
#include "text/pipeline_text.inc"
#include "text/plugin.inc"
