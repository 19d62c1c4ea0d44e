// passline.reduce's functions that are not templates (reduce.cppm).
module;

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

module passline.reduce;

namespace passline::reduce {

TemporaryDirectory::TemporaryDirectory(std::string_view prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(fmt::format("cannot make a temporary directory: {}", std::strerror(errno)));
  }
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path this_program() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error(fmt::format("cannot find this program to run it: {}", error.message()));
  return self;
}

// -- Pipeline text -------------------------------------------------------------

namespace {

/// Reads elements from `text` at `at` until a `)` closing the level or the end.
std::vector<Step> read_steps(std::string_view text, std::size_t& at, int depth) {
  std::vector<Step> steps;
  std::string current;
  int braces = 0;
  char quote = 0;
  auto finish = [&] {
    std::string trimmed = current;
    trimmed.erase(0, std::min(trimmed.find_first_not_of(" \t\n"), trimmed.size()));
    trimmed.erase(trimmed.find_last_not_of(" \t\n") + 1);
    if (!trimmed.empty()) steps.push_back(Step{.text = std::move(trimmed), .nested = false, .inner = {}});
    current.clear();
  };
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (quote) {
      current += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (braces > 0) {
      current += c;
      if (c == '"' || c == '\'') quote = c;
      if (c == '{') ++braces;
      if (c == '}') --braces;
      continue;
    }
    if (c == '{') {
      ++braces;
      current += c;
    } else if (c == ',') {
      finish();
    } else if (c == '(' && depth < 64) {
      std::string head = current;
      head.erase(0, std::min(head.find_first_not_of(" \t\n"), head.size()));
      head.erase(head.find_last_not_of(" \t\n") + 1);
      current.clear();
      ++at;
      Step nested{.text = std::move(head), .nested = true, .inner = read_steps(text, at, depth + 1)};
      steps.push_back(std::move(nested));
      // `at` is at the `)` (or the end): what follows up to `,` is nothing.
    } else if (c == ')' && depth > 0) {
      finish();
      return steps;
    } else {
      current += c;
    }
  }
  finish();
  return steps;
}

void collect(const std::vector<Step>& steps, std::vector<std::string>& out) {
  for (const Step& step : steps) {
    if (step.nested) {
      collect(step.inner, out);
    } else {
      out.push_back(step.text);
    }
  }
}

/// The text of `steps` with the passes `keep` keeps from `index` on; false
/// in `any` if none is kept.
std::string join(const std::vector<Step>& steps, const std::vector<bool>& keep, std::size_t& index, bool& any) {
  std::string text;
  for (const Step& step : steps) {
    std::string part;
    if (step.nested) {
      bool inner_any = false;
      std::string inner = join(step.inner, keep, index, inner_any);
      if (!inner_any) continue;
      part = step.text + "(" + inner + ")";
    } else {
      if (!keep[index++]) continue;
      part = step.text;
    }
    any = true;
    if (!text.empty()) text += ',';
    text += part;
  }
  return text;
}

}  // namespace

std::vector<Step> split_pipeline(std::string_view text) {
  std::size_t at = 0;
  std::vector<Step> steps = read_steps(text, at, 0);
  if (at < text.size()) return {Step{.text = std::string(text), .nested = false, .inner = {}}};  // a `)` with no `(`
  return steps;
}

std::size_t pass_count(const std::vector<Step>& steps) { return pass_texts(steps).size(); }

std::vector<std::string> pass_texts(const std::vector<Step>& steps) {
  std::vector<std::string> out;
  collect(steps, out);
  return out;
}

std::string join_pipeline(const std::vector<Step>& steps, const std::vector<bool>& keep) {
  if (keep.size() != pass_count(steps)) throw std::invalid_argument("join_pipeline: one flag per pass");
  std::size_t index = 0;
  bool any = false;
  return join(steps, keep, index, any);
}

// -- Delta debugging -----------------------------------------------------------

std::vector<bool> delta(std::vector<bool> keep, const std::function<bool(const std::vector<bool>&)>& still_fails,
                        const std::function<bool()>& stop, Order order) {
  auto kept = [&] {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) at.push_back(i);
    }
    return at;
  };
  std::size_t chunk = std::max<std::size_t>(1, (kept().size() + 1) / 2);
  for (;;) {
    bool removed = false;
    const std::vector<std::size_t> items = kept();
    const std::size_t chunks = (items.size() + chunk - 1) / chunk;
    for (std::size_t k = 0; k < chunks && !stop(); ++k) {
      const std::size_t begin = (order == Order::first_to_last ? k : chunks - 1 - k) * chunk;
      std::vector<bool> candidate = keep;
      for (std::size_t i = begin; i < std::min(items.size(), begin + chunk); ++i) candidate[items[i]] = false;
      if (still_fails(candidate)) {
        keep = std::move(candidate);
        removed = true;
      }
    }
    if (stop()) break;
    if (chunk > 1) {
      chunk = (chunk + 1) / 2;
      continue;
    }
    if (!removed) break;  // one at a time, and nothing went: done
  }
  return keep;
}

// -- Child processes -----------------------------------------------------------

namespace {

std::atomic<bool> interrupt_flag{false};
char stop_path[4096] = {};

extern "C" void on_interrupt(int) {
  interrupt_flag.store(true);
  if (stop_path[0] != 0) {
    const int fd = ::open(stop_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);  // async-signal-safe
    if (fd >= 0) ::close(fd);
  }
}

int pidfd_open(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

}  // namespace

void catch_interrupts(const std::string& stop_file) {
  if (stop_file.size() < sizeof stop_path) std::memcpy(stop_path, stop_file.c_str(), stop_file.size() + 1);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() { return interrupt_flag.load(); }

std::string Exit::describe() const {
  switch (kind) {
    case Kind::exited: return fmt::format("exit code {}", code);
    case Kind::signaled: return fmt::format("a crash by {}", signal_name(signal));
    case Kind::timed_out: return fmt::format("no end after {:.3g} s", seconds);
    case Kind::interrupted: return "interrupted";
  }
  return "?";
}

Exit run_child(const std::vector<std::string>& argv, double limit_seconds, const std::filesystem::path& out_file) {
  constexpr std::size_t max_err = 1 << 20;
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const std::string out_path = out_file.string();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    struct rlimit no_core {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGINT, &dfl, nullptr);
    ::sigaction(SIGTERM, &dfl, nullptr);
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) ::_exit(127);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  Exit exit;
  const int pidfd = pidfd_open(pid);
  bool done = false, killed = false;
  int status = 0;
  auto kill_group = [&](Exit::Kind why) {
    if (!killed) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      killed = true;
      exit.kind = why;
    }
  };
  bool err_open = true;
  while (!done) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!killed && elapsed > limit_seconds) kill_group(Exit::Kind::timed_out);
    if (!killed && interrupted()) kill_group(Exit::Kind::interrupted);
    pollfd fds[2] = {{err_open ? err_pipe[0] : -1, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int wait_ms = killed ? 50 : static_cast<int>(std::clamp((limit_seconds - elapsed) * 1000, 1.0, 100.0));
    const int ready = ::poll(fds, 2, pidfd >= 0 ? wait_ms : std::min(wait_ms, 5));
    if (ready < 0 && errno != EINTR) break;
    if (err_open && (fds[0].revents & (POLLIN | POLLHUP))) {
      char buffer[1 << 14];
      const ::ssize_t n = ::read(err_pipe[0], buffer, sizeof buffer);
      if (n > 0) {
        if (exit.err.size() < max_err) exit.err.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        err_open = false;
      }
    }
    // The child may have left a process behind that holds the pipe: its
    // end is the end.
    const pid_t waited = ::waitpid(pid, &status, WNOHANG);
    if (waited == pid) done = true;
  }
  // What the child wrote last.
  for (;;) {
    char buffer[1 << 14];
    const int flags = ::fcntl(err_pipe[0], F_GETFL);
    ::fcntl(err_pipe[0], F_SETFL, flags | O_NONBLOCK);
    const ::ssize_t n = ::read(err_pipe[0], buffer, sizeof buffer);
    if (n <= 0) break;
    if (exit.err.size() < max_err) exit.err.append(buffer, static_cast<std::size_t>(n));
  }
  if (killed) ::kill(-pid, SIGKILL);  // anything of its group still there
  ::close(err_pipe[0]);
  if (pidfd >= 0) ::close(pidfd);
  exit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!killed) {
    if (WIFSIGNALED(status)) {
      exit.kind = Exit::Kind::signaled;
      exit.signal = WTERMSIG(status);
    } else {
      exit.kind = Exit::Kind::exited;
      exit.code = WEXITSTATUS(status);
    }
  }
  return exit;
}

// -- The reducer ---------------------------------------------------------------

Steps steps_named(const std::vector<std::string>& names) {
  if (names.empty()) return Steps{};
  for (const std::string& name : names) {
    if (std::ranges::find(step_names, name) == step_names.end()) {
      throw std::invalid_argument(fmt::format("steps are of '{}', not '{}'", fmt::join(step_names, "', '"), name));
    }
  }
  auto asked = [&](std::string_view step) { return std::ranges::find(names, step) != names.end(); };
  return Steps{.pipeline = asked("pipeline"), .functions = asked("functions"), .inside = asked("inside")};
}

// -- Progress ------------------------------------------------------------------

Progress::Progress(std::string tool, bool quiet)
    : tool_(std::move(tool)), quiet_(quiet), terminal_(::isatty(STDERR_FILENO) == 1) {}

void Progress::step(const Record& r, bool done) {
  if (quiet_ || (!done && !terminal_)) return;
  const std::string line = fmt::format("{}: reduce: {:<18} {:>3} passes, {:>7} operations, {:>5} runs, {:7.1f} s",
                                       tool_, r.step, r.passes, r.size, r.runs, r.seconds);
  if (terminal_) {
    fmt::print(stderr, "\r\033[K{}{}", line, done ? "\n" : "");
  } else {
    fmt::print(stderr, "{}\n", line);
  }
  open_ = terminal_ && !done;
  std::fflush(stderr);
}

void Progress::end() {
  if (open_) fmt::print(stderr, "\n");
  open_ = false;
}

}  // namespace passline::reduce
