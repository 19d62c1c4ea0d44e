// Source: a mapped input file that is truncated while it is read.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <unistd.h>
import passline;
import passline.support;
import passline.ir;
import passline.testing;

namespace {

namespace ir = passline::ir;

TEST(Source, AFileTruncatedWhileMappedReadsAsZerosAndSaysSo) {
  ir::map_input_files();
  const passline::testing::TemporaryDirectory dir;
  const std::string path = (dir / "input.ir").string();
  const std::string text(1 << 16, 'x');
  std::ofstream(path, std::ios::binary) << text;
  const auto source = ir::Source::open(path, "input.ir");
  ASSERT_EQ(source->text().substr(0, 4), "xxxx");
  source->check_intact();  // nothing happened yet

  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  std::size_t zeros = 0;
  for (char c : source->text()) zeros += c == '\0';  // without the watch: SIGBUS here
  EXPECT_EQ(zeros, text.size());
  try {
    source->check_intact();
    FAIL() << "the truncation went unnoticed";
  } catch (const passline::support::FileError& error) {
    EXPECT_STREQ(error.what(), "cannot read 'input.ir': it was truncated while it was read");
  }
}

TEST(SourceDeathTest, ALibraryThatNeverAsksToMapFilesInstallsNoSignalHandler) {
  // In a process of its own (the test binary run again for this test alone):
  // parse_file reads the file, and SIGBUS keeps the action it had before
  // (the default, or a sanitizer's own handler under a sanitizer build).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const passline::testing::TemporaryDirectory dir;
  const std::string path = (dir / "input.ir").string();
  std::ofstream(path, std::ios::binary) << "def @f() -> i64 {\n  1\n}\n";
  EXPECT_EXIT(
      {
        struct sigaction before {};
        ::sigaction(SIGBUS, nullptr, &before);
        (void)ir::parse_file(path, "input.ir");
        struct sigaction after {};
        ::sigaction(SIGBUS, nullptr, &after);
        const bool same = (before.sa_flags & SA_SIGINFO) == (after.sa_flags & SA_SIGINFO) &&
                          ((after.sa_flags & SA_SIGINFO) ? before.sa_sigaction == after.sa_sigaction
                                                         : before.sa_handler == after.sa_handler);
        std::exit(same ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Source, AFileLeftAloneIsIntactToTheEnd) {
  const passline::testing::TemporaryDirectory dir;
  const std::string path = (dir / "input.ir").string();
  std::ofstream(path, std::ios::binary) << "def @f() -> i64 {\n  1\n}\n";
  EXPECT_EQ(ir::print(ir::parse_file(path, "input.ir")), "def @f() -> i64 {\n  1\n}\n");
}

TEST(Source, AByteOrderMarkIsSkipped) {
  EXPECT_EQ(ir::print(ir::parse("\xEF\xBB\xBF" "def @f() -> i64 {\n  1\n}\n")), "def @f() -> i64 {\n  1\n}\n");
}

}  // namespace
