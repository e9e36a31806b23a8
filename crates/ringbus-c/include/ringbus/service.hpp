// ringbus::Service<Req, Resp> and ringbus::Client<Req, Resp>: request/response calls
// between processes, over command queues. A client follows its service across restarts.
#ifndef RINGBUS_SERVICE_HPP
#define RINGBUS_SERVICE_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#include "../ringbus.h"
#include "error.hpp"
#include "handle.hpp"
#include "node.hpp"
#include "payload.hpp"
#include "queue.hpp"
#include "result.hpp"
#include "timeout.hpp"

namespace ringbus {

namespace detail {

/// The request and response types of a service, named and sized for the C API (the names
/// live as long as this object).
template <class Req, class Resp>
class ServiceTypes {
    static_assert(check_command<Req>() && check_command<Resp>());

public:
    explicit ServiceTypes(std::uint32_t capacity) : request_(type_name<Req>()), response_(type_name<Resp>()) {
        raw_.request_type_name = request_.c_str();
        raw_.request_size = sizeof(Req);
        raw_.request_align = alignof(Req);
        raw_.response_type_name = response_.c_str();
        raw_.response_size = sizeof(Resp);
        raw_.response_align = alignof(Resp);
        raw_.capacity = capacity;
    }
    ServiceTypes(const ServiceTypes&) = delete;
    ServiceTypes& operator=(const ServiceTypes&) = delete;

    const rb_service_options* raw() const noexcept { return &raw_; }

private:
    std::string request_, response_;
    rb_service_options raw_{};
};

/// Carries a C++ handler through rb_service_serve_once's C callback. An exception thrown by
/// the handler stops at answer() (it must not unwind through the C library's frames): the
/// first one is kept to be rethrown once rb_service_serve_once has returned, and the
/// request it was answering gets the zeroed response the C API prepared.
template <class Req, class Resp, class Handler>
struct Answering {
    Handler& handler;
    std::exception_ptr failure;

    static void answer(void* context, const void* request, void* response) noexcept {
        Answering& self = *static_cast<Answering*>(context);
        try {
            Req copy{};  // the ring's bytes copied out: the handler gets an aligned, private Req
            std::memcpy(&copy, request, sizeof(Req));
            const Resp answer = self.handler(static_cast<const Req&>(copy));
            std::memcpy(response, &answer, sizeof(Resp));
        } catch (...) {
            if (!self.failure) self.failure = std::current_exception();
        }
    }
};

}  // namespace detail

/// Serves the service `name`: one server at a time (another throws RB_ERR_TOO_MANY while
/// this one lives); `capacity` requests can wait (a power of two, 2 to 2^24). The request
/// and response types are `payload_name<Req>` and `payload_name<Resp>`, with their sizes
/// and alignments, and every client must give the same. Destroying it takes the service
/// away: calls then fail with RB_ERR_SERVER_GONE until another server opens. Used by one
/// thread at a time.
template <class Req, class Resp>
class Service {
public:
    /// An empty service (a moved-from one is empty too).
    Service() = default;

    /// Opens the service; throws ringbus::Error (RB_ERR_TOO_MANY, RB_ERR_MISMATCH: clients
    /// or an earlier server use other types).
    Service(const Node& node, const std::string& name, std::uint32_t capacity = 64) {
        detail::ServiceTypes<Req, Resp> types(capacity);
        rb_service* service = nullptr;
        detail::check(rb_service_open(node.native_handle(), name.c_str(), types.raw(), &service));
        service_.reset(service);
    }

    explicit operator bool() const noexcept { return service_ != nullptr; }

    /// Waits at most `timeout` (ringbus::forever: no limit) for requests, then answers every
    /// request that is ready with `handler`, any callable `Resp(const Req&)`: how many it
    /// answered (0 after a timeout). If the handler throws, that request is answered with a
    /// zeroed Resp, the others of the round are answered as usual, and serve_once then
    /// rethrows the first exception. Throws ringbus::Error on a failure.
    template <class Rep, class Period, class Handler>
    std::size_t serve_once(std::chrono::duration<Rep, Period> timeout, Handler&& handler) {
        static_assert(std::is_invocable_r_v<Resp, Handler&, const Req&>,
                      "ringbus: a service handler is a callable Resp(const Req&)");
        using Answering = detail::Answering<Req, Resp, std::remove_reference_t<Handler>>;
        Answering answering{handler, nullptr};
        std::size_t answered = 0;
        rb_status status = rb_service_serve_once(service_.get(), detail::timeout_ns(timeout), &Answering::answer,
                                                 &answering, &answered);
        if (answering.failure) std::rethrow_exception(answering.failure);
        detail::check(status);
        return answered;
    }

    /// Responses dropped because their client was gone or did not read.
    std::uint64_t dropped() const noexcept { return rb_service_dropped(service_.get()); }

    /// The C handle (still owned by this Service).
    rb_service* native_handle() const noexcept { return service_.get(); }

private:
    detail::Owned<rb_service, rb_service_close> service_;
};

/// Calls the service `name`, with room for `capacity` responses in flight. Opening needs
/// no server, but the types must be the service's (RB_ERR_MISMATCH otherwise). It follows
/// the service to a new server when the one it knew is gone. Used by one thread at a time.
template <class Req, class Resp>
class Client {
public:
    /// An empty client (a moved-from one is empty too).
    Client() = default;

    /// Opens a client; throws ringbus::Error (e.g. RB_ERR_MISMATCH).
    Client(const Node& node, const std::string& name, std::uint32_t capacity = 64) : name_(name) {
        detail::ServiceTypes<Req, Resp> types(capacity);
        rb_client* client = nullptr;
        detail::check(rb_client_open(node.native_handle(), name.c_str(), types.raw(), &client));
        client_.reset(client);
    }

    explicit operator bool() const noexcept { return client_ != nullptr; }

    /// Sends `request` and waits at most `timeout` (ringbus::forever: no limit) for its
    /// response. Throws ringbus::Error: RB_TIMEOUT when the server lives but did not answer
    /// in time (its late answer is dropped), RB_ERR_SERVER_GONE when no server serves the
    /// service (none started, or it exited or was killed: start one and call again).
    template <class Rep, class Period>
    Resp call(const Req& request, std::chrono::duration<Rep, Period> timeout) {
        Result<Resp> response = try_call(request, timeout);
        if (response.status() == RB_TIMEOUT)
            throw Error(RB_TIMEOUT, "the server of '" + name_ +
                                        "' did not answer in time; it lives, and its late answer will be dropped: "
                                        "call again, or with a longer timeout");
        return std::move(response).value();
    }

    /// call() without exceptions: the response, or RB_TIMEOUT, or a failure (e.g.
    /// RB_ERR_SERVER_GONE).
    template <class Rep, class Period>
    Result<Resp> try_call(const Req& request, std::chrono::duration<Rep, Period> timeout) {
        Resp response{};
        rb_status status = rb_client_call(client_.get(), &request, &response, detail::timeout_ns(timeout));
        if (status != RB_OK) return Result<Resp>::none(status);
        return response;
    }

    /// The C handle (still owned by this Client).
    rb_client* native_handle() const noexcept { return client_.get(); }

private:
    std::string name_;
    detail::Owned<rb_client, rb_client_close> client_;
};

}  // namespace ringbus

#endif  // RINGBUS_SERVICE_HPP
