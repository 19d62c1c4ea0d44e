// Malformed IR: every file under tests/ir/malformed holds one mistake and, on
// its first line, the message and position it must produce:
//   // expect: LINE:COL: MESSAGE
// Parsing or verifying it must throw exactly that IRError, and nothing else.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
import passline.ir;

namespace {

namespace ir = passline::ir;

std::vector<std::filesystem::path> cases() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(PASSLINE_MALFORMED_DIR)) {
    if (entry.path().extension() == ".ir") files.push_back(entry.path());
  }
  std::ranges::sort(files);
  return files;
}

class Malformed : public testing::TestWithParam<std::filesystem::path> {};

TEST_P(Malformed, GivesItsMessageAtItsPosition) {
  std::ifstream in(GetParam());
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  const std::string prefix = "// expect: ";
  ASSERT_TRUE(content.starts_with(prefix)) << "first line must be '// expect: LINE:COL: MESSAGE'";
  const std::string expected = content.substr(prefix.size(), content.find('\n') - prefix.size());
  try {
    ir::verify(ir::parse(content, GetParam().filename().string()));
    FAIL() << "no error";
  } catch (const ir::IRError& e) {
    const std::string actual =
        std::to_string(e.position().line) + ":" + std::to_string(e.position().column) + ": " + e.message();
    EXPECT_EQ(actual, expected);
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with(GetParam().filename().string() + ":" + actual.substr(0, actual.find(": ")) + ": error: "))
        << what;
    EXPECT_NE(what.find("\n"), std::string::npos) << "no caret line: " << what;
    EXPECT_EQ(what.back(), '^');
  }
}

INSTANTIATE_TEST_SUITE_P(Files, Malformed, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<std::filesystem::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(Malformed, ThereAreThirtyOrMore) { EXPECT_GE(cases().size(), 30u); }

}  // namespace
