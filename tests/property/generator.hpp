// Random well-typed programs in the reference IR's text format.
#pragma once

#include <cstdint>
#include <string>

namespace passline::testing {

/// A program of a few globals and an exported `@main(%a: i64, %b: f64, %c: bool)`,
/// well typed, terminating (no recursion), with constants to fold, repeated
/// expressions, dead lets, closures, tuples and operations that may trap.
std::string random_program(std::uint64_t seed);

}  // namespace passline::testing
