// Work on several threads, with the errors of one.
//
// `thread_count(ctx)` is how many threads a run under a context uses: the
// `threads` config key, 0 for one per hardware thread. `parallel_for(count,
// threads, visit)` calls `visit(i)` for every index on up to that many
// threads and, if some calls throw, rethrows the exception of the lowest
// index: the error a loop on one thread would have stopped at. Function
// passes run on it, and so do the reference IR's parser and verifier and
// its InferType and DeadCodeElimination.
module;
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <thread>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
export module passline:parallel;
import :context;
import :config;

export namespace passline {

/// The threads of this machine, at least 1.
inline std::size_t hardware_threads() {
  static const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  return threads;
}

/// The threads a run under `ctx` uses: its `threads` key, 0 (the default)
/// for one per hardware thread.
inline std::size_t thread_count(const PassContext& ctx) {
  const std::int64_t threads = ctx.config.get(config::threads);
  return threads > 0 ? static_cast<std::size_t>(threads) : hardware_threads();
}

/// Calls `visit(i)` for each `i` in [0, count) on up to `threads` threads
/// (on the caller's alone for 1), in no set order. If calls throw, the
/// exception of the lowest index is rethrown once all calls are over; calls
/// of higher indices than one that threw may be skipped, as they could not
/// change which error that is.
template <class Visit>
void parallel_for(std::size_t count, std::size_t threads, Visit&& visit) {
  if (threads <= 1 || count < 2) {
    for (std::size_t i = 0; i < count; ++i) visit(i);
    return;
  }
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> first_failed{count};
  // TBB orders the tasks' work after what the caller did before, and the
  // caller's after the tasks', inside a library sanitizers do not see: these
  // two atomics state the same order where ThreadSanitizer can check it.
  std::atomic<bool> published{false};
  std::atomic<std::size_t> finished{0};
  published.store(true, std::memory_order_release);
  auto body = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count), [&](const tbb::blocked_range<std::size_t>& range) {
      (void)published.load(std::memory_order_acquire);
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (i > first_failed.load(std::memory_order_relaxed)) break;
        try {
          visit(i);
        } catch (...) {
          errors[i] = std::current_exception();
          std::size_t seen = first_failed.load(std::memory_order_relaxed);
          while (i < seen && !first_failed.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
          }
        }
      }
      finished.fetch_add(range.size(), std::memory_order_release);
    });
  };
  if (threads == hardware_threads()) {
    body();  // the default arena: as many threads, and no arena to set up
  } else {
    // More threads than the machine has are what was asked for: TBB's
    // limit is raised to them for the loop, rather than TBB ignoring the
    // request with a warning on stderr (which would make stderr depend on
    // the number of threads).
    std::optional<tbb::global_control> limit;
    if (threads > hardware_threads()) limit.emplace(tbb::global_control::max_allowed_parallelism, threads);
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute(body);
  }
  (void)finished.load(std::memory_order_acquire);
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace passline
