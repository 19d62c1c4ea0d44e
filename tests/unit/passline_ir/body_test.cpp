// Per-node tables: their contents, and the 2 MiB pages asked for a large one.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
import passline.ir;

namespace {

namespace ir = passline::ir;

/// The VmFlags of the mapping of this process that holds `address`, or ""
/// where /proc/self/smaps cannot tell.
std::string vm_flags_at(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
      inside = begin <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool transparent_huge_pages_available() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(enabled, modes) && modes.find("[never]") == std::string::npos;
}

TEST(NodeTable, HoldsSizeEntriesOfTheFill) {
  const std::vector<std::uint32_t> table = ir::detail::node_table(std::size_t{1000}, std::uint32_t{7});
  ASSERT_EQ(table.size(), 1000u);
  for (const std::uint32_t entry : table) EXPECT_EQ(entry, 7u);
}

TEST(NodeTable, AsksForHugePagesForALargeTable) {
  if (!transparent_huge_pages_available()) GTEST_SKIP() << "transparent huge pages are off here";
  const std::vector<std::uint8_t> large = ir::detail::node_table(std::size_t{16} << 20, std::uint8_t{0});
  const std::string flags = vm_flags_at(large.data() + (std::size_t{8} << 20));
  if (flags.empty()) GTEST_SKIP() << "/proc/self/smaps does not tell";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;  // hg: MADV_HUGEPAGE
}

TEST(NodeTable, GrowToKeepsAskingAsTheTableGrows) {
  if (!transparent_huge_pages_available()) GTEST_SKIP() << "transparent huge pages are off here";
  std::vector<std::uint8_t> table;
  for (std::size_t size = 1; size <= (std::size_t{16} << 20); size *= 2) ir::detail::grow_to(table, size, std::uint8_t{1});
  ASSERT_EQ(table.size(), std::size_t{16} << 20);
  EXPECT_EQ(table.back(), 1);
  const std::string flags = vm_flags_at(table.data() + (std::size_t{8} << 20));
  if (flags.empty()) GTEST_SKIP() << "/proc/self/smaps does not tell";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

}  // namespace
