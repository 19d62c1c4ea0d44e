// Fuzz target: pipeline text. Whatever the bytes, parsing either fails with
// a PipelineError (a syntax error, an unknown pass or option) or gives a
// pipeline whose canonical text parses back to itself.
#include <cstddef>
#include <cstdint>
#include <string>

import passline;
import passline.ir;
import passline.pipelines;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto& registry = passline::pipelines::registry();
  std::string printed;
  try {
    printed = passline::parse_pipeline(text, registry).text();
  } catch (const passline::PipelineError&) {
    return 0;
  }
  const std::string again = passline::parse_pipeline(printed, registry).text();  // throws, so fails, if it does not read back
  if (again != printed) __builtin_trap();
  return 0;
}
