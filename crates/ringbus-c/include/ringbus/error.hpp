// ringbus::Error: a failed call of the C API as a C++ exception, and the checks that throw it.
#ifndef RINGBUS_ERROR_HPP
#define RINGBUS_ERROR_HPP

#include <stdexcept>
#include <string>

#include "../ringbus.h"

namespace ringbus {

/// A failure: the C API's status (one of the negative `rb_status` values, e.g.
/// `RB_ERR_MISMATCH`) and its message, which says what went wrong and what to do.
class Error : public std::runtime_error {
public:
    Error(rb_status status, const std::string& message) : std::runtime_error(message), status_(status) {}

    /// The `rb_status` of the call that failed.
    rb_status status() const noexcept { return status_; }

private:
    rb_status status_;
};

/// The name of a status as the header spells it ("RB_ERR_MISMATCH"), for logs and tests.
inline const char* status_name(rb_status status) noexcept {
    switch (status) {
    case RB_OK: return "RB_OK";
    case RB_EMPTY: return "RB_EMPTY";
    case RB_TIMEOUT: return "RB_TIMEOUT";
    case RB_ERR_INVALID_ARGUMENT: return "RB_ERR_INVALID_ARGUMENT";
    case RB_ERR_IO: return "RB_ERR_IO";
    case RB_ERR_ROOT_UNUSABLE: return "RB_ERR_ROOT_UNUSABLE";
    case RB_ERR_NO_SPACE: return "RB_ERR_NO_SPACE";
    case RB_ERR_INVALID_NAME: return "RB_ERR_INVALID_NAME";
    case RB_ERR_INVALID_CONFIG: return "RB_ERR_INVALID_CONFIG";
    case RB_ERR_MISMATCH: return "RB_ERR_MISMATCH";
    case RB_ERR_FOREIGN: return "RB_ERR_FOREIGN";
    case RB_ERR_VERSION_MISMATCH: return "RB_ERR_VERSION_MISMATCH";
    case RB_ERR_CORRUPTED: return "RB_ERR_CORRUPTED";
    case RB_ERR_TOO_MANY: return "RB_ERR_TOO_MANY";
    case RB_ERR_TOO_LARGE: return "RB_ERR_TOO_LARGE";
    case RB_ERR_POOL_EXHAUSTED: return "RB_ERR_POOL_EXHAUSTED";
    case RB_ERR_HELD_LIMIT: return "RB_ERR_HELD_LIMIT";
    case RB_ERR_POLLING_ONLY: return "RB_ERR_POLLING_ONLY";
    case RB_ERR_SEMAPHORE_FULL: return "RB_ERR_SEMAPHORE_FULL";
    case RB_ERR_POOL_BUDGET: return "RB_ERR_POOL_BUDGET";
    case RB_ERR_FULL: return "RB_ERR_FULL";
    case RB_ERR_LOCK_TIMED_OUT: return "RB_ERR_LOCK_TIMED_OUT";
    case RB_ERR_SERVER_GONE: return "RB_ERR_SERVER_GONE";
    case RB_ERR_PANIC: return "RB_ERR_PANIC";
    }
    return "an rb_status this header does not know (a newer libringbus_c.so?)";
}

namespace detail {

/// The Error of the call that just failed on this thread (`rb_last_error()` holds its message).
inline Error last_error(rb_status status) { return Error(status, rb_last_error()); }

/// `status` if it is not a failure (RB_OK, RB_EMPTY, RB_TIMEOUT); else throws its Error.
inline rb_status check(rb_status status) {
    if (status < 0) throw last_error(status);
    return status;
}

}  // namespace detail
}  // namespace ringbus

#endif  // RINGBUS_ERROR_HPP
