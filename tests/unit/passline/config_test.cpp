// Typed config: keys registered with type, default and description; unknown
// keys and wrong types are errors where the value is set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
import passline;

namespace {

using Config = decltype(passline::PassContext::config);  // reached as PassContext::config
using passline::ConfigError;
using passline::Value;

const auto unroll_factor = passline::register_config<std::int64_t>("test.unroll-factor", 4, "loop unroll factor");
const auto fast_math = passline::register_config<bool>("test.fast-math", false, "allow reassociation");

TEST(Config, UnsetKeysReadAsTheirDefaults) {
  Config config;
  EXPECT_EQ(config.get(unroll_factor), 4);
  EXPECT_FALSE(config.get(fast_math));
  EXPECT_EQ(config.get(passline::config::threads), 0);
}

TEST(Config, TypedKeysSetAndGet) {
  Config config;
  config.set(unroll_factor, std::int64_t{8});
  config.set("test.fast-math", Value(true));
  EXPECT_EQ(config.get(unroll_factor), 8);
  EXPECT_TRUE(config.get(fast_math));
}

TEST(Config, TextIsReadAsTheKeysType) {
  Config config;
  config.set_text("test.unroll-factor", "16");
  config.set_text("threads", "2");
  EXPECT_EQ(config.get(unroll_factor), 16);
  EXPECT_EQ(config.get(passline::config::threads), 2);
  try {
    config.set_text("test.unroll-factor", "many");
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "config key 'test.unroll-factor' takes an int, not 'many'");
  }
}

TEST(Config, UnknownKeyListsCloseCandidates) {
  Config config;
  try {
    config.set("thread", Value(std::int64_t{2}));
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "unknown config key 'thread' (did you mean 'threads'?)");
  }
}

TEST(Config, WrongTypeIsAnError) {
  Config config;
  try {
    config.set("threads", Value(std::string("two")));
    FAIL();
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "config key 'threads' takes an int, not a string");
  }
  EXPECT_EQ(config.find("threads"), nullptr);
}

TEST(Config, KeysAreListedWithTypeDefaultAndDescription) {
  const auto keys = passline::ConfigKeys::global().list();
  auto it = std::ranges::find(keys, std::string("test.unroll-factor"), [](const auto& key) { return key.name; });
  ASSERT_NE(it, keys.end());
  EXPECT_EQ(it->type_name(), "int");
  EXPECT_EQ(it->default_value, Value(std::int64_t{4}));
  EXPECT_EQ(it->description, "loop unroll factor");
}

TEST(Config, RegisteringAKeyTwiceIsAnError) {
  EXPECT_THROW(passline::register_config<bool>("test.fast-math", true, "again"), ConfigError);
}

}  // namespace
