// The exception type of passline's run-time errors.
//
// One type, with a one-line message that names the passes involved, so that a
// driver can print it as it is and exit.
module;
#include <stdexcept>
#include <string>
export module passline:error;

export namespace passline {

/// A pipeline cannot run as configured; `what()` is one line naming the passes.
class PipelineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace passline
