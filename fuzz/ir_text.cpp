// Fuzz target: IR text. Whatever the bytes, parsing either fails with an
// IRError or gives a module; a module that verifies prints text that parses
// back to the same module (fingerprint) and prints the same text again.
#include <cstddef>
#include <cstdint>
#include <string>

import passline;
import passline.ir;

namespace ir = passline::ir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ir::Module module;
  try {
    module = ir::parse(text, "fuzz.ir");
    ir::verify(module);
  } catch (const ir::IRError&) {
    return 0;  // malformed: the one error type expected
  }
  const std::string printed = ir::print(module);
  const ir::Module back = ir::parse(printed, "printed.ir");  // throws, so fails, if the text does not read back
  ir::verify(back);
  if (ir::fingerprint(back) != ir::fingerprint(module)) __builtin_trap();
  if (ir::print(back) != printed) __builtin_trap();
  return 0;
}
