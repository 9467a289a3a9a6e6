// Independent steps of the default, and evaluate_each's evaluations, on the
// cores the process may use.
//
// Every task writes only its own result slot and takes its randomness from
// its own seed, so the mapping is the same for any number of threads: the
// thread count changes the time, never the result (tests/mapper checks 1
// against 2 and 4). Scotch and METIS keep some state per process (Scotch's
// global random generator, which its graph-built targets use), so each of
// them is called from one thread at a time (default_starts.cpp runs all its
// Scotch calls in one lane).
#pragma once

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace rankmap::detail {

// The cores in the process's CPU affinity mask (what a batch system's cpuset
// grants, what `taskset` sets), at least 1.
inline int available_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Calls task(i) for every i in [0, n) on up to `threads` threads, the
// caller's among them, and returns when all have run. Indices are handed
// out in order. If tasks throw, the others still run, and the exception of
// the lowest index is rethrown here once all have stopped (the same for any
// number of threads).
template <class Task>
void parallel_for(size_t n, int threads, Task&& task) {
  if (n == 0) return;
  const size_t workers = std::min(n, static_cast<size_t>(std::max(1, threads)));
  std::atomic<size_t> next{0};
  std::mutex failed_mutex;
  size_t failed_at = n;
  std::exception_ptr failure;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        task(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failed_mutex);
        if (i < failed_at) {
          failed_at = i;
          failure = std::current_exception();
        }
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running finish the work
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace rankmap::detail
