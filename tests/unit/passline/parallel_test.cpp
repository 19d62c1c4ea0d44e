// Function passes on several threads: the same result as on one, errors
// chosen as on one, and workers that see the caller's current context.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>
import passline;
import passline.support;
import passline.testing;

namespace {

using passline::Pass;
using passline::PassContext;
using passline::PassInfo;
using passline::testing::Function;
using passline::testing::FunctionStep;
using passline::testing::Program;

Program program(int functions) {
  Program p;
  for (int i = 0; i < functions; ++i) p.functions.push_back({.name = "f" + std::to_string(i), .skip = i % 7 == 3});
  return p;
}

PassContext with_threads(std::int64_t threads) {
  PassContext ctx;
  ctx.config.set(passline::config::threads, threads);
  return ctx;
}

TEST(Parallel, SameOutputAsOneThread) {
  const Pass<Program> pipeline = passline::sequential<Program>(
      {FunctionStep<"A">{}, FunctionStep<"B">{},
       passline::function_pass<Program>(PassInfo{.name = "Rename"}, [](Function fn, const Program&, PassContext&) {
         fn.name += "'";
         return fn;
       })});
  PassContext one = with_threads(1);
  PassContext four = with_threads(4);
  const Program sequential = pipeline(program(200), one);
  const Program parallel = pipeline(program(200), four);
  EXPECT_EQ(parallel, sequential);
  EXPECT_EQ(sequential.functions[0].ran, (std::vector<std::string>{"A@0", "B@0"}));
  EXPECT_TRUE(sequential.functions[3].ran.empty());  // skips optimization
}

TEST(Parallel, WorkersSeeTheCallersCurrentContext) {
  PassContext ctx = with_threads(4);
  ctx.opt_level = 3;
  std::atomic<int> mismatches = 0;
  std::atomic<int> calls = 0;
  const Pass<Program> check =
      passline::function_pass<Program>(PassInfo{.name = "Check"}, [&](Function fn, const Program&, PassContext&) {
        ++calls;
        if (&PassContext::current() != &ctx) ++mismatches;
        return fn;
      });
  auto scope = ctx.enter();
  (void)check(program(300), ctx);
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Parallel, FirstFailingFunctionIsTheOneReported) {
  const Pass<Program> fail =
      passline::function_pass<Program>(PassInfo{.name = "Fail"}, [](Function fn, const Program&, PassContext&) {
        if (fn.name == "f11" || fn.name == "f151") throw std::runtime_error("failed on " + fn.name);
        return fn;
      });
  for (std::int64_t threads : {1, 4}) {
    PassContext ctx = with_threads(threads);
    try {
      (void)fail(program(200), ctx);
      FAIL();
    } catch (const passline::PassError& error) {
      EXPECT_STREQ(error.what(), "pass 'Fail' failed: failed on f11");
    }
  }
}

// Functions that finish in the reverse of their order: what they report
// reaches the diagnostics, and their handler, in function order all the same,
// as on one thread; a failing function's reports come too.
TEST(Parallel, DiagnosticsArriveInFunctionOrderOnAnyNumberOfThreads) {
  for (const std::string fail_on : {"", "f17"}) {
    std::vector<std::string> expected;
    for (std::int64_t threads : {1, 4}) {
      const Pass<Program> warn = passline::function_pass<Program>(
          PassInfo{.name = "Warn"}, [&](Function fn, const Program&, PassContext& ctx) {
            const int index = std::stoi(fn.name.substr(1));
            std::this_thread::sleep_for(std::chrono::microseconds(20 * (24 - index)));
            ctx.diagnostics->warning(fn.name, "first");
            ctx.diagnostics->warning(fn.name, "second");
            if (fn.name == fail_on) throw std::runtime_error("failed on " + fn.name);
            return fn;
          });
      PassContext ctx = with_threads(threads);
      std::vector<std::string> handled;
      ctx.diagnostics->set_handler(
          [&](const passline::Diagnostic& d) { handled.push_back(d.location + ": " + d.message); });
      try {
        (void)warn(program(24), ctx);
      } catch (const passline::PassError&) {
        EXPECT_FALSE(fail_on.empty());
      }
      std::vector<std::string> entries;
      for (const auto& d : ctx.diagnostics->entries()) entries.push_back(d.location + ": " + d.message);
      EXPECT_EQ(handled, entries);
      if (threads == 1) {
        expected = entries;
        EXPECT_EQ(entries.front(), "f0: first");
        EXPECT_EQ(entries[1], "f0: second");
      } else {
        EXPECT_EQ(entries, expected) << threads << " threads" << (fail_on.empty() ? "" : ", failing");
      }
    }
  }
}

/// A function pass that gets ready first: what its calls see of the
/// preparation, and where and when it began and ended.
struct Prepared {
  struct Log {
    std::atomic<int> prepared = 0;
    std::atomic<int> finished = 0;
    std::atomic<int> calls_unprepared = 0;  // a call before prepare, or after its result died
    std::thread::id prepared_on;
    std::thread::id finished_on;
    std::atomic<bool> ready = false;
  };
  struct Ready {
    Log* log;
    explicit Ready(Log* log) : log(log) {}
    Ready(const Ready&) = delete;
    Ready& operator=(const Ready&) = delete;
    ~Ready() {
      log->ready = false;
      ++log->finished;
      log->finished_on = std::this_thread::get_id();
    }
  };
  std::shared_ptr<Log> log = std::make_shared<Log>();
  std::string fail_on;

  Ready prepare(const Program&, PassContext&) const {
    ++log->prepared;
    log->prepared_on = std::this_thread::get_id();
    log->ready = true;
    return Ready{log.get()};
  }
  Function operator()(Function fn, const Program&, PassContext&) const {
    if (!log->ready) ++log->calls_unprepared;
    if (fn.name == fail_on) throw std::runtime_error("failed on " + fn.name);
    fn.ran.emplace_back("Prepared");
    return fn;
  }
};

TEST(Parallel, APreparedPassGetsReadyOnceOnTheCallingThreadBeforeAnyFunction) {
  for (std::int64_t threads : {1, 4}) {
    for (const std::string fail_on : {"", "f151"}) {
      const Prepared pass{.fail_on = fail_on};
      const Pass<Program> erased = passline::function_pass<Program>(PassInfo{.name = "Prepared"}, pass);
      PassContext ctx = with_threads(threads);
      try {
        const Program out = erased(program(200), ctx);
        EXPECT_EQ(out.functions[0].ran, (std::vector<std::string>{"Prepared"}));
        EXPECT_TRUE(fail_on.empty());
      } catch (const passline::PassError& error) {
        EXPECT_STREQ(error.what(), "pass 'Prepared' failed: failed on f151");
      }
      EXPECT_EQ(pass.log->prepared.load(), 1) << threads << " threads";
      EXPECT_EQ(pass.log->finished.load(), 1) << threads << " threads";
      EXPECT_EQ(pass.log->calls_unprepared.load(), 0) << threads << " threads";
      EXPECT_EQ(pass.log->prepared_on, std::this_thread::get_id());
      EXPECT_EQ(pass.log->finished_on, std::this_thread::get_id());
    }
  }
}

/// A function pass whose calls are handed what its `prepare` made: each
/// call counts itself there, on whatever thread it runs.
struct HandedPrepared {
  struct Counts {
    std::atomic<int> calls = 0;
  };
  std::shared_ptr<std::atomic<int>> prepared = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::shared_ptr<Counts>> last = std::make_shared<std::shared_ptr<Counts>>();

  std::shared_ptr<Counts> prepare(const Program&, PassContext&) const {
    ++*prepared;
    *last = std::make_shared<Counts>();
    return *last;
  }
  Function operator()(Function fn, const Program&, PassContext&, std::shared_ptr<Counts>& counts) const {
    ++counts->calls;
    fn.ran.emplace_back("1");
    return fn;
  }
};

TEST(Parallel, APreparedPassesCallsAreHandedWhatItsPrepareMadeOnEveryThread) {
  for (std::int64_t threads : {1, 4}) {
    const HandedPrepared pass;
    const Pass<Program> erased = passline::function_pass<Program>(PassInfo{.name = "HandedPrepared"}, pass);
    PassContext ctx = with_threads(threads);
    const Program out = erased(program(200), ctx);
    EXPECT_EQ(*pass.prepared, 1) << threads << " threads";
    for (const Function& fn : out.functions) {
      EXPECT_EQ(fn.ran, fn.skip ? std::vector<std::string>{} : std::vector<std::string>{"1"}) << fn.name;
    }
    EXPECT_EQ((*pass.last)->calls.load(), 171);  // the 200 functions but those that skip optimization
    // A second run gets a preparation of its own.
    (void)erased(program(3), ctx);
    EXPECT_EQ(*pass.prepared, 2) << threads << " threads";
  }
}

}  // namespace

// passline::parallel_for, which function passes, the reference IR's parser
// and verifier run on.
TEST(ParallelFor, VisitsEveryIndexOnceOnAnyNumberOfThreads) {
  for (std::size_t threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> visits(1000);
    passline::support::parallel_for(visits.size(), threads, [&](std::size_t i) { visits[i].fetch_add(1); });
    for (std::size_t i = 0; i < visits.size(); ++i) EXPECT_EQ(visits[i].load(), 1) << i << " on " << threads;
  }
}

TEST(ParallelFor, RethrowsTheErrorOfTheLowestIndexAsOneThreadWould) {
  for (std::size_t threads : {1, 2, 4}) {
    for (int round = 0; round < 20; ++round) {
      try {
        passline::support::parallel_for(500, threads, [&](std::size_t i) {
          if (i % 97 == 41) throw std::runtime_error("index " + std::to_string(i));
        });
        ADD_FAILURE() << "nothing thrown on " << threads;
      } catch (const std::runtime_error& error) {
        EXPECT_STREQ(error.what(), "index 41") << "on " << threads;
      }
    }
  }
}

TEST(ParallelFor, OneThreadStopsAtTheFirstError) {
  std::vector<std::size_t> visited;
  EXPECT_THROW(passline::support::parallel_for(10, 1, [&](std::size_t i) {
                 visited.push_back(i);
                 if (i == 3) throw std::logic_error("stop");
               }),
               std::logic_error);
  EXPECT_EQ(visited, (std::vector<std::size_t>{0, 1, 2, 3}));
}

TEST(ParallelFor, RunsOnAsManyThreadsAsAsked) {
  // Two calls meet at a barrier: both pass it only if they run at once (a
  // call waits 10 s at most, so that a failure is not a hang).
  std::atomic<int> arrived{0};
  std::atomic<int> met{0};
  passline::support::parallel_for(2, 2, [&](std::size_t) {
    arrived.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (arrived.load() == 2) met.fetch_add(1);
  });
  EXPECT_EQ(met.load(), 2);
}

TEST(ParallelFor, AContextsThreadsAreItsThreadsKey) {
  EXPECT_EQ(with_threads(3).threads(), 3u);
  EXPECT_EQ(with_threads(0).threads(), passline::support::hardware_threads());
  EXPECT_EQ(PassContext{}.threads(), passline::support::hardware_threads());
}

namespace {

/// An instrument whose hook on the sixth function (`#5`: test functions have no names for instruments) throws, on whichever thread runs it.
struct ThrowsOnFunctions final : passline::Instrument {
  bool wants_functions() const override { return true; }
  void before_function(const PassInfo&, std::string_view function) override {
    if (function == "#5") throw std::out_of_range("no f5 here");
  }
};

// An instrument's exception is the instrument's, not the pass's: it arrives
// as itself from a worker thread as from the caller's, in a plain run, in a
// nested one and in the compiled form run as a pass; the compiled form called
// alone, the chain of calls, tells no instrument.
TEST(Parallel, AnInstrumentsExceptionFromAWorkerArrivesAsItself) {
  using Static = passline::Sequential<FunctionStep<"A">, FunctionStep<"B">>;
  using Compiled = passline::Compiled<0, Static>;
  for (std::int64_t threads : {1, 4}) {
    PassContext ctx = with_threads(threads);
    ctx.instruments = {std::make_shared<ThrowsOnFunctions>()};
    const Pass<Program> runtime = passline::sequential<Program>({FunctionStep<"A">{}, FunctionStep<"B">{}});
    EXPECT_THROW((void)runtime(program(20), ctx), std::out_of_range) << threads;
    EXPECT_THROW((void)Static{}(program(20), ctx), std::out_of_range) << threads;
    EXPECT_THROW((void)Pass<Program>(Compiled{})(program(20), ctx), std::out_of_range) << threads;
    EXPECT_NO_THROW((void)Compiled{}(program(20), ctx)) << threads;
    const Pass<Program> nested = passline::fixed_point(Pass<Program>(Static{}), 3);
    EXPECT_THROW((void)passline::sequential<Program>({nested})(program(20), ctx), std::out_of_range) << threads;
  }
}

}  // namespace
