// The exception types of passline's run-time errors.
//
// Each has a one-line message that names what is involved, so that a driver
// can print it as it is and exit. The subtypes let a caller tell a bad name or
// bad text from a pass that failed while running.
module;
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
export module passline:error;
import passline.support;

export namespace passline {

/// A pipeline cannot run as configured; `what()` is one line naming the passes.
class PipelineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A config key that is not registered, or a value of the wrong type.
class ConfigError : public PipelineError {
 public:
  using PipelineError::PipelineError;
};

/// A pass name or option that a registry does not know, or a name registered twice.
class RegistryError : public PipelineError {
 public:
  using PipelineError::PipelineError;
};

/// A pipeline that cannot run as asked: a required pass that is not
/// registered, that the context disables, or that requires its user in turn.
/// Raised before the pass that needs it runs; it names the passes.
class RequirementError : public PipelineError {
 public:
  using PipelineError::PipelineError;
};

/// Malformed pipeline text. `what()` is `<pipeline>:1:COL: error: ...`; `caret()`
/// is the text with a caret line under the offending part.
class PipelineSyntaxError : public PipelineError {
 public:
  PipelineSyntaxError(std::string message, std::string text, std::size_t column, std::size_t width)
      : PipelineError(message), text_(std::move(text)), column_(column), width_(width) {}
  /// 1-based column of the offending text.
  std::size_t column() const { return column_; }
  /// The pipeline text (a window of it, if long) and, under it, `^~~~`
  /// marking the offending part.
  std::string caret() const { return support::caret_lines(text_, column_, width_); }

 private:
  std::string text_;
  std::size_t column_;
  std::size_t width_;
};

/// A pass threw while running. The message names the pass and the pipeline
/// path to it; the original exception is nested (`std::rethrow_if_nested`).
class PassError : public PipelineError {
 public:
  PassError(std::string message, std::string pass, std::string path)
      : PipelineError(std::move(message)), pass_(std::move(pass)), path_(std::move(path)) {}
  /// The pass that failed.
  const std::string& pass() const { return pass_; }
  /// The pipelines enclosing it and the pass itself, outermost first: `O2/seq/Inline`.
  const std::string& path() const { return path_; }

 private:
  std::string pass_;
  std::string path_;
};

}  // namespace passline
