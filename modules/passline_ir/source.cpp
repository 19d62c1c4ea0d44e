// The watch over mapped files (source.cppm): a SIGBUS handler that turns the
// pages a truncation took away into zeros, so that the parser reports the
// truncation instead of the program dying of it. A program installs it
// (map_input_files); a library does not own the signals.
module;
#include <array>
#include <atomic>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <sys/mman.h>
#include <unistd.h>
module passline.ir;

namespace passline::ir::detail {

namespace {

struct Watched {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> faulted{false};
  std::atomic<bool> taken{false};
};

std::array<Watched, 64> watched;
std::atomic<bool> watching{false};  // installed: files may be mapped
std::uintptr_t page_size = 4096;
struct sigaction previous {};

extern "C" void on_bus_error(int signal, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Watched& w : watched) {
    if (at >= w.begin.load() && at < w.end.load()) {
      // Zeros where the file's page was: the read goes on, and finds the flag.
      void* page = reinterpret_cast<void*>(at & ~(page_size - 1));
      if (::mmap(page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
      w.faulted.store(true);
      return;
    }
  }
  // Not a watched file: what would have happened without the watch.
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  } else {
    ::sigaction(SIGBUS, &previous, nullptr);  // the fault comes again, and ends the program
  }
}

void install() {
  page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction action {};
  action.sa_sigaction = on_bus_error;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &previous);
  watching.store(true);
}

}  // namespace

bool mappings_watched() { return watching.load(); }

int watch_mapping(const void* begin, std::size_t size) {
  for (std::size_t i = 0; i < watched.size(); ++i) {
    bool expected = false;
    if (!watched[i].taken.compare_exchange_strong(expected, true)) continue;
    watched[i].faulted.store(false);
    watched[i].begin.store(reinterpret_cast<std::uintptr_t>(begin));
    watched[i].end.store(reinterpret_cast<std::uintptr_t>(begin) + size);
    return static_cast<int>(i);
  }
  return -1;
}

void unwatch_mapping(int slot) {
  if (slot < 0) return;
  Watched& w = watched[static_cast<std::size_t>(slot)];
  w.end.store(0);
  w.begin.store(0);
  w.taken.store(false);
}

bool mapping_faulted(int slot) { return slot >= 0 && watched[static_cast<std::size_t>(slot)].faulted.load(); }

}  // namespace passline::ir::detail

namespace passline::ir {

void map_input_files() {
  static std::once_flag installed;
  std::call_once(installed, detail::install);
}

}  // namespace passline::ir
