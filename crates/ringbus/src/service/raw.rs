//! Services whose request and response types are given at run time (a name, a size, an
//! alignment each), moved as bytes: the machinery every service runs on. The typed
//! [`Server`](super::Server) and [`Client`](super::Client) are this with Rust types, so a
//! service is shared by programs in any language that give the same types.
//!
//! On the queues, a request or response travels in an envelope — the call's correlation
//! id (`u64`), the client's id (`u64`), then the body at the next multiple of its
//! alignment, the whole padded to a multiple of `max(8, alignment)`: the layout of
//! `#[repr(C)]` [`Envelope<T>`](super::Envelope), and of the same struct in C. A response
//! envelope's command type is named `envelope<RESPONSE>`; a request envelope's
//! `envelope<REQUEST -> RESPONSE>`, so that a client expecting another response type is
//! refused by the request queue (when it opens, or at its first call if the server comes
//! later) instead of waiting for answers the server cannot send it.

use super::{requests_name, responses_name, CallError, LIVENESS_CHECK};
use crate::error::OpenError;
use crate::queue::bytes::one_command;
use crate::queue::{CommandType, Consumer, Producer, PushError, QueueError, RawCommand};
use crate::Node;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Where an envelope's fields are, for a body of one command type.
#[derive(Debug, Clone)]
struct Envelope {
    /// The envelope's own command type (`envelope<BODY>`).
    command: CommandType,
    body_offset: usize,
    body_size: usize,
}

impl Envelope {
    /// The envelope of `body`, its command type named `envelope<NAME>`.
    fn of(body: &CommandType, name: &str) -> Result<Envelope, OpenError> {
        let align = body.align().max(8);
        let body_offset = 16usize.next_multiple_of(body.align());
        let size = (body_offset + body.size()).next_multiple_of(align);
        let command = CommandType::new(&format!("envelope<{name}>"), size, align)?;
        Ok(Envelope { command, body_offset, body_size: body.size() })
    }

    /// The request and response envelopes of a service.
    fn pair(request: &CommandType, response: &CommandType) -> Result<(Envelope, Envelope), OpenError> {
        let call = format!("{} -> {}", request.name(), response.name());
        Ok((Envelope::of(request, &call)?, Envelope::of(response, response.name())?))
    }

    fn bytes(&self) -> Vec<u8> {
        vec![0; self.command.size()]
    }

    /// Writes the call's correlation id and client id.
    fn address(&self, bytes: &mut [u8], id: u64, client: u64) {
        bytes[0..8].copy_from_slice(&id.to_ne_bytes());
        bytes[8..16].copy_from_slice(&client.to_ne_bytes());
    }

    fn id(&self, bytes: &[u8]) -> u64 {
        u64::from_ne_bytes(bytes[0..8].try_into().expect("8 bytes"))
    }

    fn client(&self, bytes: &[u8]) -> u64 {
        u64::from_ne_bytes(bytes[8..16].try_into().expect("8 bytes"))
    }

    fn body<'b>(&self, bytes: &'b [u8]) -> &'b [u8] {
        &bytes[self.body_offset..self.body_offset + self.body_size]
    }

    fn body_mut<'b>(&self, bytes: &'b mut [u8]) -> &'b mut [u8] {
        &mut bytes[self.body_offset..self.body_offset + self.body_size]
    }
}

/// Answers the requests of one service, with bodies as bytes.
#[derive(Debug)]
pub struct RawServer {
    node: Node,
    service: String,
    request: Envelope,
    response: Envelope,
    requests: Consumer<RawCommand>,
    clients: HashMap<u64, Producer<RawCommand>>,
    dropped: u64,
}

impl RawServer {
    /// Serves `service` (one server at a time) for requests of type `request` and
    /// responses of type `response`; `capacity` requests can wait.
    pub fn new(
        node: &Node,
        service: &str,
        capacity: u32,
        request: &CommandType,
        response: &CommandType,
    ) -> Result<RawServer, OpenError> {
        let (request, response) = Envelope::pair(request, response)?;
        let requests =
            node.raw_queue(&requests_name(service), request.command.clone()).capacity(capacity).mpsc().consumer()?;
        let (node, service) = (node.clone(), service.to_string());
        Ok(RawServer { node, service, request, response, requests, clients: HashMap::new(), dropped: 0 })
    }

    /// Waits up to `timeout` (`None`: forever) for requests, then answers the requests that
    /// are ready — at most the request queue's capacity, so a steady stream of calls cannot
    /// keep it from returning — with `handler(request body, response body)`, the response
    /// body zeroed, of the response type's size. Returns how many it answered (0 on timeout).
    pub fn serve_once(
        &mut self,
        timeout: Option<Duration>,
        mut handler: impl FnMut(&[u8], &mut [u8]),
    ) -> Result<usize, QueueError> {
        if !self.requests.wait(timeout) {
            return Ok(0);
        }
        let (mut request, mut response) = (self.request.bytes(), self.response.bytes());
        let (mut answered, round) = (0, self.requests.capacity() as usize);
        while answered < round && self.requests.pop_bytes(&mut request)? {
            let (id, client) = (self.request.id(&request), self.request.client(&request));
            let body = self.response.body_mut(&mut response);
            body.fill(0);
            handler(self.request.body(&request), body);
            self.response.address(&mut response, id, client);
            self.respond(client, &response)?;
            answered += 1;
        }
        Ok(answered)
    }

    /// Sends a response to its client, if that client is still there to read it.
    fn respond(&mut self, client: u64, response: &[u8]) -> Result<(), QueueError> {
        if !self.clients.contains_key(&client) {
            let name = responses_name(&self.service, client);
            match self.node.raw_queue(&name, self.response.command.clone()).existing_producer() {
                Ok(Some(producer)) => {
                    self.clients.insert(client, producer);
                }
                // Gone already, or not a queue we can answer on: nothing to keep.
                Ok(None) | Err(_) => {
                    self.dropped += 1;
                    return Ok(());
                }
            }
        }
        let producer = self.clients.get_mut(&client).expect("inserted above");
        if !producer.consumer_alive() {
            producer.unlink();
            self.clients.remove(&client);
            self.dropped += 1;
            return Ok(());
        }
        match producer.push_bytes(response) {
            Ok(()) => Ok(()),
            Err(PushError::Full(())) => {
                self.dropped += 1;
                Ok(())
            }
            Err(PushError::Queue(e)) => {
                self.clients.remove(&client);
                Err(e)
            }
        }
    }

    /// The request queue, for a wait set to attach
    /// ([`WaitSet::attach_server`](crate::WaitSet::attach_server)).
    pub(crate) fn requests(&self) -> &Consumer<RawCommand> {
        &self.requests
    }

    /// Forgets clients that are gone (and removes their response queues); returns how many
    /// are still connected. `serve_once` does this lazily for the clients it answers.
    pub fn sweep_clients(&mut self) -> usize {
        self.clients.retain(|_, p| {
            let alive = p.consumer_alive();
            if !alive {
                p.unlink();
            }
            alive
        });
        self.clients.len()
    }

    /// Responses dropped because their client was gone or did not read.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.requests.unlink();
    }
}

/// A request sent by [`RawClient::send`], whose answer [`RawClient::receive`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    id: u64,
}

/// Calls one service, with bodies as bytes. It follows the service across server
/// restarts: when the server it knew is gone, a call looks for the request queue of a new
/// one by name.
#[derive(Debug)]
pub struct RawClient {
    node: Node,
    service: String,
    id: u64,
    next: u64,
    request: Envelope,
    response: Envelope,
    /// The request queue of the server last found alive; `None` before the first. A client
    /// never creates the request queue: that is the server's, with its capacity.
    requests: Option<Producer<RawCommand>>,
    responses: Consumer<RawCommand>,
}

impl RawClient {
    /// A client of `service` sending requests of type `request` and taking responses of
    /// type `response`, with room for `capacity` responses in flight.
    pub fn new(
        node: &Node,
        service: &str,
        capacity: u32,
        request: &CommandType,
        response: &CommandType,
    ) -> Result<RawClient, OpenError> {
        let (request, response) = Envelope::pair(request, response)?;
        let id = crate::sys::random::u64().map_err(crate::error::io_err("draw a client id in", node.root_path()))?;
        // An existing request queue of other types is refused now, not at the first call.
        let requests = node.raw_queue(&requests_name(service), request.command.clone()).mpsc().existing_producer()?;
        let responses =
            node.raw_queue(&responses_name(service, id), response.command.clone()).capacity(capacity).consumer()?;
        let (node, service) = (node.clone(), service.to_string());
        Ok(RawClient { node, service, id, next: 0, request, response, requests, responses })
    }

    /// The request queue of a live server: the one this client knew, or that of a new one
    /// (started after the old one left, or after this client), found by name. A server
    /// of other types is [`CallError::TypeMismatch`].
    fn live_server(&mut self) -> Result<Option<&mut Producer<RawCommand>>, CallError> {
        if !self.requests.as_ref().is_some_and(|r| r.consumer_alive()) {
            let name = requests_name(&self.service);
            match self.node.raw_queue(&name, self.request.command.clone()).mpsc().existing_producer() {
                Ok(Some(requests)) if requests.consumer_alive() => self.requests = Some(requests),
                Err(OpenError::TypeMismatch { existing, requested, .. }) => {
                    return Err(CallError::TypeMismatch { existing, requested })
                }
                // No server, or a queue that cannot be opened: the server is what is missing.
                _ => return Ok(None),
            }
        }
        Ok(self.requests.as_mut())
    }

    /// Sends `request` (a body of the request type's size) and waits at most `timeout`
    /// for its response, written into `response` (the response type's size). Fails with
    /// [`CallError::ServerGone`] when no server lives, [`CallError::Timeout`] otherwise.
    /// [`send`](RawClient::send) then [`receive`](RawClient::receive) is the same call cut
    /// in two, for callers that wait in slices (and look at something else between them).
    pub fn call(&mut self, request: &[u8], response: &mut [u8], timeout: Duration) -> Result<(), CallError> {
        let deadline = Instant::now() + timeout;
        let call = self.send(request, timeout)?;
        match self.receive(call, response, deadline.saturating_duration_since(Instant::now()))? {
            true => Ok(()),
            false => Err(CallError::Timeout),
        }
    }

    /// Sends `request` (a body of the request type's size), waiting at most `timeout` for
    /// room in the request queue; [`receive`](RawClient::receive) then waits for the
    /// answer. One call at a time: the answer to an earlier call still unanswered is
    /// dropped when it comes. Fails with [`CallError::ServerGone`] when no server lives,
    /// [`CallError::Timeout`] when the queue stayed full (nothing was sent: send again).
    pub fn send(&mut self, request: &[u8], timeout: Duration) -> Result<Call, CallError> {
        one_command(request.len(), self.request.body_size)?;
        let deadline = Instant::now() + timeout;
        let mut envelope = self.request.bytes();
        self.request.address(&mut envelope, self.next + 1, self.id);
        self.request.body_mut(&mut envelope).copy_from_slice(request);
        loop {
            let slice = deadline.saturating_duration_since(Instant::now()).min(LIVENESS_CHECK);
            let Some(requests) = self.live_server()? else {
                return Err(CallError::ServerGone);
            };
            match requests.push_bytes_timeout(&envelope, Some(slice)) {
                Ok(()) => break,
                Err(PushError::Full(())) if Instant::now() >= deadline => return Err(CallError::Timeout),
                Err(PushError::Full(())) => {}
                Err(PushError::Queue(e)) => return Err(e.into()),
            }
        }
        self.next += 1;
        Ok(Call { id: self.next })
    }

    /// Waits at most `timeout` for the answer to `call` (the last one sent) and writes it
    /// into `response` (the response type's size): `Ok(true)`. `Ok(false)` when `timeout`
    /// passed first — receive again, the answer may still come. Fails with
    /// [`CallError::ServerGone`] when the server that took the request is gone.
    pub fn receive(&mut self, call: Call, response: &mut [u8], timeout: Duration) -> Result<bool, CallError> {
        one_command(response.len(), self.response.body_size)?;
        let deadline = Instant::now() + timeout;
        let mut answer = self.response.bytes();
        loop {
            while self.responses.pop_bytes(&mut answer)? {
                if self.response.id(&answer) == call.id {
                    response.copy_from_slice(self.response.body(&answer));
                    return Ok(true);
                }
                // A late answer to an earlier call that timed out: dropped.
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let server_alive = || self.requests.as_ref().is_some_and(|r| r.consumer_alive());
            if !self.responses.wait(Some(left.min(LIVENESS_CHECK))) && !server_alive() {
                // The request went to the server that left; a new one never saw it.
                return Err(CallError::ServerGone);
            }
        }
    }

    /// This client's id (the server's responses are addressed to it).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Bytes of a request body and of a response body.
    pub fn body_sizes(&self) -> (usize, usize) {
        (self.request.body_size, self.response.body_size)
    }
}

impl AsRef<RawServer> for RawServer {
    fn as_ref(&self) -> &RawServer {
        self
    }
}

impl Drop for RawClient {
    fn drop(&mut self) {
        self.responses.unlink();
    }
}
