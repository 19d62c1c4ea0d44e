// The implementation of module passline.ir (ir.cppm): where the source text
// lives, the parser and the printer, a part each (impl/*.inc), compiled as one
// unit, and the pass manager's types for this IR, instantiated here once.
module;
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>
#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>
#include <fmt/format.h>
#include <tbb/concurrent_queue.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
module passline.ir;
import passline.support;

#include "impl/source.inc"
#include "impl/parse.inc"
#include "impl/print.inc"

template class passline::Registry<passline::ir::Module>;
template class passline::Pass<passline::ir::Module>;
