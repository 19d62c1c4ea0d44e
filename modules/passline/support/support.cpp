// The implementation of module passline.support (support.cppm): a part per
// concern, compiled as one unit.
module;
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cxxabi.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <range/v3/algorithm/sort.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/transform.hpp>
module passline.support;

#include "message.inc"
#include "suggest.inc"
#include "shell_words.inc"
#include "diff.inc"
#include "output_file.inc"
#include "library.inc"
