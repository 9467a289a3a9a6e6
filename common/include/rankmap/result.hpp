// The one error convention of rankmap: functions that can fail on user input
// return Result<T>; the message is complete and printable ("file:line: what").
// Only a program's main decides to print it and exit (status 2 for bad input).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace rankmap {

struct Error {
  std::string message;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

// "where: message", where is "file:line" or "file" or empty.
inline Error located_error(const std::string& where, const std::string& message) {
  return Error{where.empty() ? message : where + ": " + message};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}    // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For operations that produce nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace rankmap
