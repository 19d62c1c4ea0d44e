// The implementation of module passline.instruments (instruments.cppm): a
// part per instrument, compiled as one unit.
module;
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <boost/json.hpp>
module passline.instruments;

#include "print.inc"
#include "timing.inc"
#include "trace.inc"
#include "checks.inc"
#include "pass_graph.inc"
#include "report.inc"
