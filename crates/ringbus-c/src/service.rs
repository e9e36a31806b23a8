//! `rb_service` and `rb_client`: request/response between processes over two queues, with
//! request and response types given at open time (a name, a size, an alignment each) and
//! checked by every opener — a Rust program joins with its own types under the same names
//! (`Server::with_type_names`, `Client::with_type_names`).

use crate::call::{free, guard, handle, out, shared, text, timeout, Failure};
use crate::node::rb_node;
use crate::rb_status;
use ringbus::service::{CallError, RawClient, RawServer};
use ringbus::CommandType;
use std::ffi::{c_char, c_void};
use std::time::Duration;

/// Serves one service: answers requests with a handler. One thread at a time.
pub struct rb_service(RawServer);

/// Calls one service; follows it across server restarts. One thread at a time.
pub struct rb_client(RawClient);

/// A service's request and response types, and its queue sizes. Zero-initialize it
/// (`rb_service_options o = {0};`) and give both types: a name (1 to 256 bytes, the same in
/// every program of the service, e.g. "arm.plan_request"), a size (1 to 65520 bytes) and an
/// alignment (a power of two up to 4096; 0 means 1). `capacity` (a power of two, 2 to
/// 2^24; 0: 64): for a service, the requests that can wait; for a client, its responses
/// in flight.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct rb_service_options {
    /// The request type's name (NUL-terminated).
    pub request_type_name: *const c_char,
    /// `sizeof` the request struct.
    pub request_size: usize,
    /// `_Alignof` the request struct (0 means 1).
    pub request_align: usize,
    /// The response type's name (NUL-terminated).
    pub response_type_name: *const c_char,
    /// `sizeof` the response struct.
    pub response_size: usize,
    /// `_Alignof` the response struct (0 means 1).
    pub response_align: usize,
    /// Requests that can wait (service), responses in flight (client); 0: 64.
    pub capacity: u32,
}

/// Answers one request: reads `request` (the request type's size) and writes the answer
/// into `response` (the response type's size, zeroed). `context` is what was given to
/// `rb_service_serve_once`. It must return normally (no `longjmp` out of it).
pub type rb_service_handler =
    Option<unsafe extern "C" fn(context: *mut c_void, request: *const c_void, response: *mut c_void)>;

/// What "no limit" waits: 136 years.
const NO_LIMIT: Duration = Duration::from_secs(u32::MAX as u64);

/// Capacity when the options give 0.
const DEFAULT_CAPACITY: u32 = 64;

/// The types and capacity `options` describe.
///
/// # Safety
/// `options` is NULL or valid, its type names NULL or NUL-terminated.
unsafe fn types(options: *const rb_service_options) -> Result<(CommandType, CommandType, u32), Failure> {
    // SAFETY: the caller's contract.
    let o = unsafe { options.as_ref() }.ok_or_else(|| Failure::invalid("options is NULL"))?;
    // SAFETY: the caller's contract.
    let request_name = unsafe { text(o.request_type_name, "options.request_type_name") }?;
    // SAFETY: the caller's contract.
    let response_name = unsafe { text(o.response_type_name, "options.response_type_name") }?;
    let request = CommandType::new(request_name, o.request_size, o.request_align.max(1))?;
    let response = CommandType::new(response_name, o.response_size, o.response_align.max(1))?;
    let capacity = if o.capacity == 0 { DEFAULT_CAPACITY } else { o.capacity };
    Ok((request, response, capacity))
}

impl From<CallError> for Failure {
    fn from(e: CallError) -> Failure {
        match e {
            CallError::Queue(e) => Failure::from(e),
            CallError::ServerGone => Failure { status: rb_status::RB_ERR_SERVER_GONE, message: e.to_string() },
            CallError::Timeout => Failure { status: rb_status::RB_TIMEOUT, message: e.to_string() },
            CallError::TypeMismatch { .. } => Failure { status: rb_status::RB_ERR_MISMATCH, message: e.to_string() },
        }
    }
}

/// The opening steps both roles share: check the out-pointer, borrow the node, read the
/// name and the options, open, hand the handle over.
///
/// # Safety
/// `node` is NULL or a live node; `name` NULL or NUL-terminated; `options` as in `types`;
/// `out_handle` NULL or writable.
unsafe fn open_role<T>(
    node: *const rb_node,
    name: *const c_char,
    options: *const rb_service_options,
    out_handle: *mut *mut T,
    out_name: &str,
    open: impl FnOnce(&ringbus::Node, &str, u32, &CommandType, &CommandType) -> Result<T, Failure>,
) -> rb_status {
    guard(|| {
        // SAFETY: forwarded from the caller's contract.
        let slot = unsafe { out(out_handle, out_name) }?;
        // SAFETY: forwarded from the caller's contract.
        let node = unsafe { shared(node, "node") }?;
        // SAFETY: forwarded from the caller's contract.
        let name = unsafe { text(name, "name") }?;
        // SAFETY: forwarded from the caller's contract.
        let (request, response, capacity) = unsafe { types(options) }?;
        *slot = Box::into_raw(Box::new(open(&node.0, name, capacity, &request, &response)?));
        Ok(rb_status::RB_OK)
    })
}

/// Serves the service `name` (one server at a time: another open fails with
/// `RB_ERR_TOO_MANY` while it lives). On success `*out_service` is the service, to be
/// closed with `rb_service_close` (which takes its request queue away: clients' calls
/// then fail with `RB_ERR_SERVER_GONE` until a new server opens); on failure it is NULL.
///
/// # Safety
/// `node` is a live node; `name` a NUL-terminated string; `options` valid, with
/// NUL-terminated type names; `out_service` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_service_open(
    node: *const rb_node,
    name: *const c_char,
    options: *const rb_service_options,
    out_service: *mut *mut rb_service,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        open_role(node, name, options, out_service, "out_service", |node, name, capacity, request, response| {
            Ok(rb_service(RawServer::new(node, name, capacity, request, response)?))
        })
    }
}

/// Waits at most `timeout_ns` nanoseconds (negative: no limit) for requests, then answers
/// every request that is ready with `handler(context, request, response)`; `*out_answered`
/// says how many (0 after a timeout). A response whose client is gone is dropped.
///
/// # Safety
/// `service` is a live service; `handler` a function that reads `request_size` bytes at
/// `request`, writes at most `response_size` bytes at `response` and returns normally;
/// `out_answered` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rb_service_serve_once(
    service: *mut rb_service,
    timeout_ns: i64,
    handler: rb_service_handler,
    context: *mut c_void,
    out_answered: *mut usize,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let service = unsafe { handle(service, "service") }?;
        let handler = handler.ok_or_else(|| Failure::invalid("handler is NULL"))?;
        let answered = service.0.serve_once(timeout(timeout_ns), |request, response| {
            // SAFETY: the caller promises a handler that reads the request's size and writes
            // at most the response's; both buffers are exactly those sizes.
            unsafe { handler(context, request.as_ptr().cast(), response.as_mut_ptr().cast()) }
        })?;
        // SAFETY: the caller's contract (NULL: the count is not wanted).
        if let Some(out) = unsafe { out_answered.as_mut() } {
            *out = answered;
        }
        Ok(rb_status::RB_OK)
    })
}

/// Responses dropped because their client was gone or did not read (NULL: 0).
///
/// # Safety
/// `service` is NULL or a live service.
#[no_mangle]
pub unsafe extern "C" fn rb_service_dropped(service: *const rb_service) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { service.as_ref() }.map_or(0, |s| s.0.dropped())
}

/// Stops serving (NULL: nothing): the request queue is removed, so calls fail with
/// `RB_ERR_SERVER_GONE` until another server opens.
///
/// # Safety
/// `service` is NULL or a service from `rb_service_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_service_close(service: *mut rb_service) {
    // SAFETY: the caller gives back a pointer from rb_service_open, once.
    unsafe { free(service) }
}

/// Opens a client of the service `name`. Opening needs no server (a call without one fails
/// with `RB_ERR_SERVER_GONE`), but the types must be the service's. On success
/// `*out_client` is the client, to be closed with `rb_client_close`; on failure it is NULL.
///
/// # Safety
/// As `rb_service_open`, with `out_client` writable.
#[no_mangle]
pub unsafe extern "C" fn rb_client_open(
    node: *const rb_node,
    name: *const c_char,
    options: *const rb_service_options,
    out_client: *mut *mut rb_client,
) -> rb_status {
    // SAFETY: the caller's contract.
    unsafe {
        open_role(node, name, options, out_client, "out_client", |node, name, capacity, request, response| {
            Ok(rb_client(RawClient::new(node, name, capacity, request, response)?))
        })
    }
}

/// Sends `request` (`request_size` bytes) and waits at most `timeout_ns` nanoseconds (a
/// negative value: no limit) for the answer, written into `response` (`response_size`
/// bytes): `RB_OK`; `RB_TIMEOUT` (the server lives but did not answer in time; a late
/// answer is dropped); `RB_ERR_SERVER_GONE` (no server: none was started, or it exited
/// or was killed; checked before sending and while waiting — start one and call again);
/// or `RB_ERR_MISMATCH` (the server found serves other request or response types).
///
/// # Safety
/// `client` is a live client; `request` readable for `request_size` bytes; `response`
/// writable for `response_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn rb_client_call(
    client: *mut rb_client,
    request: *const c_void,
    response: *mut c_void,
    timeout_ns: i64,
) -> rb_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let client = unsafe { handle(client, "client") }?;
        let (request_size, response_size) = client.0.body_sizes();
        if request.is_null() || response.is_null() {
            return Err(Failure::invalid(if request.is_null() { "request is NULL" } else { "response is NULL" }));
        }
        // SAFETY: non-NULL, and the caller promises `request_size` readable bytes.
        let request = unsafe { std::slice::from_raw_parts(request.cast::<u8>(), request_size) };
        // SAFETY: non-NULL, and the caller promises `response_size` writable bytes.
        let response = unsafe { std::slice::from_raw_parts_mut(response.cast::<u8>(), response_size) };
        let limit = timeout(timeout_ns).unwrap_or(NO_LIMIT);
        match client.0.call(request, response, limit) {
            Ok(()) => Ok(rb_status::RB_OK),
            Err(CallError::Timeout) => Ok(rb_status::RB_TIMEOUT),
            Err(e) => Err(e.into()),
        }
    })
}

/// Closes the client (NULL: nothing); its response queue goes with it.
///
/// # Safety
/// `client` is NULL or a client from `rb_client_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn rb_client_close(client: *mut rb_client) {
    // SAFETY: the caller gives back a pointer from rb_client_open, once.
    unsafe { free(client) }
}
