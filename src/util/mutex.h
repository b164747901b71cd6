// Mutex, MutexLock, ReaderMutexLock and CondVar: the engine's locking primitives.
//
// They are Mutex and CondVar with their thread-safety annotations (ABSL_GUARDED_BY
// and friends work on them as on abseil's), except in ThreadSanitizer builds, where they are
// std::mutex and std::condition_variable. The reason: Debian's abseil is not built with TSan,
// so TSan cannot see Mutex's lock and unlock and reports every guarded access as a race.
// The std types are intercepted by TSan's runtime, so races are found and only real ones are
// reported. Reader locks are exclusive in TSan builds (correct, just less concurrent).
//
// Thread-safety: they are the synchronisation; the usual rules of a mutex apply.
#ifndef SHALE_UTIL_MUTEX_H_
#define SHALE_UTIL_MUTEX_H_

#include "absl/base/thread_annotations.h"

#if defined(__SANITIZE_THREAD__)
#define SHALE_STD_MUTEX 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHALE_STD_MUTEX 1
#endif
#endif

#ifdef SHALE_STD_MUTEX
#include <condition_variable>
#include <mutex>
#else
#include "absl/synchronization/mutex.h"
#endif

namespace shale {

class CondVar;

// Turns off absl::Mutex's deadlock detector in release builds (it is on when the abseil
// library itself was built without NDEBUG, as Debian's is, and then costs a lock-order graph
// update on every Lock). Debug and sanitizer builds keep it.
void ConfigureMutexDebugging();

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() {
    static const bool configured = (ConfigureMutexDebugging(), true);
    (void)configured;
  }
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

#ifdef SHALE_STD_MUTEX
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Takes the lock if it is free; true if it did.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}
#else
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.Lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.Unlock(); }
  // Takes the lock if it is free; true if it did.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.TryLock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.ReaderLock(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.ReaderUnlock(); }
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() { mu_.AssertHeld(); }
#endif

 private:
  friend class CondVar;
#ifdef SHALE_STD_MUTEX
  std::mutex mu_;
#else
  absl::Mutex mu_;
#endif
};

// Holds a Mutex for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Holds a Mutex shared for its scope.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(Mutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable used with a Mutex. Wait may wake spuriously: wait in a loop.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

#ifdef SHALE_STD_MUTEX
  // Releases *mu, waits for a signal, takes *mu again. REQUIRES: *mu held.
  void Wait(Mutex* mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
#else
  void Wait(Mutex* mu) { cv_.Wait(&mu->mu_); }
  void Signal() { cv_.Signal(); }
  void SignalAll() { cv_.SignalAll(); }

 private:
  absl::CondVar cv_;
#endif
};

}  // namespace shale

#endif  // SHALE_UTIL_MUTEX_H_
