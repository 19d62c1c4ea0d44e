// Files written whole or not at all, without changing what their target is.
//
// Every file passline writes (a driver's output, a trace, a dump, a
// reproducer) goes through OutputFile, because the obvious way to write a
// file whole (a temporary file renamed over the target) is wrong for every
// target that is not a plain file: renamed over `/dev/null` it replaces the
// device with a file; over a symbolic link, the link with a file; over a FIFO,
// the pipe a reader waits on. So OutputFile looks at the target first: a
// regular file or a new path gets a temporary file of its own (`mkstemp`,
// beside it, with the old file's mode) renamed into place on `commit`; a
// symbolic link is followed to what it names; anything else (a device, a
// FIFO, standard output) is written in place, since it cannot be taken back.
// A file the program names itself (a dump entry) is `replacing`: whatever
// is at its path (a link planted there, a FIFO) is replaced, never followed
// or written through. A failed write is always a FileError naming the target.
//
// A temporary file is named `.TARGET.passline-PID-XXXXXX`, after the process
// that writes it. A process killed before it could remove its temporary
// (SIGKILL) leaves it; the next write into that directory removes the
// temporaries of processes that are gone.
module;
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
export module passline:output_file;
import :error;

export namespace passline {

/// A file could not be read or written; `what()` names it and says why.
class FileError : public PipelineError {
 public:
  using PipelineError::PipelineError;
};

/// A file written whole: `write` it piece by piece, then `commit`. Until the
/// commit, a regular target keeps its old content; an OutputFile destroyed
/// without a commit leaves no trace of itself. `"-"` is standard output.
class OutputFile {
 public:
  /// Looks at `target` and makes the temporary file if it needs one, so a
  /// path that cannot be written fails here, before any work is done.
  /// Throws FileError.
  explicit OutputFile(const std::filesystem::path& target);
  /// A file whose name the program chose: whatever is at `target` (a
  /// symbolic link, a FIFO, a file) is replaced on `commit`, never followed
  /// or written through; a directory there is an error. Throws FileError.
  static OutputFile replacing(const std::filesystem::path& target);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Removes the temporary file of an uncommitted write.
  ~OutputFile();

  /// Appends `text`. Throws FileError.
  void write(std::string_view text);
  /// Makes what was written the target's content. Throws FileError.
  void commit();

  /// The target as messages name it: its path in quotes, or "standard output".
  const std::string& name() const { return name_; }

  /// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the
  /// temporary files of writes in progress, then end the process as the
  /// signal would have. For programs: a library does not own the signals.
  static void remove_temporaries_on_signals();

 private:
  struct Replacing {};
  OutputFile(const std::filesystem::path& target, Replacing);
  void make_temporary(bool exists, const struct stat* info);
  void open_in_place();
  [[noreturn]] void fail(std::string_view what, int error) const;

  std::string name_;
  std::filesystem::path path_;       // what is written: the target, symbolic links followed
  std::filesystem::path temporary_;  // the file renamed over path_, for a regular target
  int fd_ = -1;
  int slot_ = -1;                    // where the signal handlers find temporary_
  bool in_place_ = false;            // a device, a FIFO, standard output
  bool wrote_ = false;
  bool committed_ = false;
};

/// Writes `text` to `target` whole, as OutputFile does. Throws FileError.
void write_file(const std::filesystem::path& target, std::string_view text);

}  // namespace passline

// Internal to the library.
namespace passline {

/// Writes `text` to `target` whole, replacing whatever is there
/// (OutputFile::replacing). Throws FileError.
void replace_file(const std::filesystem::path& target, std::string_view text);

}  // namespace passline
