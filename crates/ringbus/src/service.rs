//! Request/response services over command queues.
//!
//! A [`Server`] consumes one MPSC request queue, `<service>/requests`; every [`Client`]
//! owns an SPSC response queue, `<service>/responses/<client id>`, which the server
//! produces into. A request carries a correlation id and its client's id; the client
//! matches responses by id and drops late answers to calls that timed out.
//!
//! Failure, typed and bounded: a call checks that the server (the request queue's
//! consumer, an OS lock) is alive before pushing and every [`LIVENESS_CHECK`] while it
//! waits, so a dead server makes pending and later calls fail with
//! [`CallError::ServerGone`] instead of hanging. A client that dies leaves nothing on the
//! server: the server keeps an open response queue per client only while that client (its
//! consumer lock) lives, and removes a dead client's queue file when it notices.
//!
//! ```
//! # let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm")?;
//! # let node = ringbus::Node::with_root("doc", dir.path())?;
//! use ringbus::service::{Client, Server};
//! use std::time::Duration;
//! let mut server = Server::<u64, u64>::new(&node, "square", 16)?;
//! let mut client = Client::<u64, u64>::new(&node, "square", 16)?; // another process, say
//! std::thread::scope(|s| {
//!     s.spawn(|| server.serve_once(Some(Duration::from_secs(5)), |x| x * x));
//!     assert_eq!(client.call(7, Duration::from_secs(5)), Ok(49));
//! });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::OpenError;
use crate::queue::{Consumer, Producer, PushError, QueueError};
use crate::shm::pod::Pod;
use crate::Node;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How often a waiting call looks whether the server is still alive.
pub const LIVENESS_CHECK: Duration = Duration::from_millis(50);

pub use crate::shm::queue::Envelope;

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// No response came within the timeout, though the server lives. The request may
    /// still be served; its late response is dropped. Call again, perhaps with a longer
    /// timeout.
    #[error("no response within the timeout (the server is alive but slow or overloaded)")]
    Timeout,
    /// No server consumes the request queue (none was started, or it exited or was
    /// killed), checked before the push and every [`LIVENESS_CHECK`] while waiting. Start
    /// the server and call again; the client finds a new one by itself.
    #[error("the server of this service is gone (its process exited or was killed); start it and call again")]
    ServerGone,
    /// The request or response queue is unusable: see [`QueueError`].
    #[error(transparent)]
    Queue(#[from] QueueError),
}

fn requests_name(service: &str) -> String {
    format!("{service}/requests")
}

fn responses_name(service: &str, client: u64) -> String {
    format!("{service}/responses/{client:016x}")
}

/// Answers the requests of one service.
#[derive(Debug)]
pub struct Server<Req: Pod, Resp: Pod> {
    node: Node,
    service: String,
    requests: Consumer<Envelope<Req>>,
    clients: HashMap<u64, Producer<Envelope<Resp>>>,
    dropped: u64,
}

impl<Req: Pod, Resp: Pod> Server<Req, Resp> {
    /// Serves `service` (one server at a time); `capacity` requests can wait.
    pub fn new(node: &Node, service: &str, capacity: u32) -> Result<Self, OpenError> {
        let requests = node.queue::<Envelope<Req>>(&requests_name(service)).capacity(capacity).mpsc().consumer()?;
        Ok(Server { node: node.clone(), service: service.into(), requests, clients: HashMap::new(), dropped: 0 })
    }

    /// Waits at most `timeout` for requests, answers every one waiting with `handler`, and
    /// returns how many it answered (0 on timeout).
    pub fn serve_once(
        &mut self,
        timeout: Option<Duration>,
        mut handler: impl FnMut(&Req) -> Resp,
    ) -> Result<usize, QueueError> {
        if !self.requests.wait(timeout) {
            return Ok(0);
        }
        let mut answered = 0;
        while let Some(request) = self.requests.pop()? {
            let response = Envelope { id: request.id, client: request.client, body: handler(&request.body) };
            self.respond(response)?;
            answered += 1;
        }
        Ok(answered)
    }

    /// Pushes a response to its client, if the client still lives and reads; a response
    /// to a gone or stuck client is dropped (counted in [`Server::dropped`]).
    fn respond(&mut self, response: Envelope<Resp>) -> Result<(), QueueError> {
        let client = response.client;
        if !self.clients.contains_key(&client) {
            let name = responses_name(&self.service, client);
            match self.node.queue::<Envelope<Resp>>(&name).existing_producer() {
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
        match producer.push(response) {
            Ok(()) => Ok(()),
            Err(PushError::Full(_)) => {
                self.dropped += 1;
                Ok(())
            }
            Err(PushError::Queue(e)) => {
                self.clients.remove(&client);
                Err(e)
            }
        }
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

impl<Req: Pod, Resp: Pod> Drop for Server<Req, Resp> {
    fn drop(&mut self) {
        self.requests.unlink();
    }
}

/// Calls one service. It follows the service across server restarts: when the server it
/// knew is gone, a call looks for the request queue of a new one by name.
#[derive(Debug)]
pub struct Client<Req: Pod, Resp: Pod> {
    node: Node,
    service: String,
    id: u64,
    next: u64,
    requests: Producer<Envelope<Req>>,
    responses: Consumer<Envelope<Resp>>,
}

impl<Req: Pod, Resp: Pod> Client<Req, Resp> {
    /// A client of `service`, with room for `capacity` responses in flight.
    pub fn new(node: &Node, service: &str, capacity: u32) -> Result<Self, OpenError> {
        let id = crate::sys::random::u64().map_err(crate::error::io_err("draw a client id in", node.root_path()))?;
        let requests = node.queue::<Envelope<Req>>(&requests_name(service)).mpsc().producer()?;
        let responses = node.queue::<Envelope<Resp>>(&responses_name(service, id)).capacity(capacity).consumer()?;
        Ok(Client { node: node.clone(), service: service.into(), id, next: 0, requests, responses })
    }

    /// Whether a server is alive: the one this client knew, or a new one that recreated
    /// the request queue after the old one left (whose queue this client then uses).
    fn server_alive(&mut self) -> bool {
        if self.requests.consumer_alive() {
            return true;
        }
        let reopened = self.node.queue::<Envelope<Req>>(&requests_name(&self.service)).mpsc().existing_producer();
        match reopened {
            Ok(Some(requests)) if requests.consumer_alive() => {
                self.requests = requests;
                true
            }
            // No server, or a queue that cannot be opened: the server is what is missing.
            _ => false,
        }
    }

    /// Sends `request` and waits at most `timeout` for its response.
    pub fn call(&mut self, request: Req, timeout: Duration) -> Result<Resp, CallError> {
        let deadline = Instant::now() + timeout;
        self.next += 1;
        let envelope = Envelope { id: self.next, client: self.id, body: request };
        loop {
            if !self.server_alive() {
                return Err(CallError::ServerGone);
            }
            let slice = deadline.saturating_duration_since(Instant::now()).min(LIVENESS_CHECK);
            match self.requests.push_timeout(envelope, Some(slice)) {
                Ok(()) => break,
                Err(PushError::Full(_)) if Instant::now() >= deadline => return Err(CallError::Timeout),
                Err(PushError::Full(_)) => {}
                Err(PushError::Queue(e)) => return Err(e.into()),
            }
        }
        loop {
            while let Some(response) = self.responses.pop()? {
                if response.id == envelope.id {
                    return Ok(response.body);
                }
                // A late answer to an earlier call that timed out: dropped.
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(CallError::Timeout);
            }
            if !self.responses.wait(Some(left.min(LIVENESS_CHECK))) && !self.requests.consumer_alive() {
                // The request went to the server that left; a new one never saw it.
                return Err(CallError::ServerGone);
            }
        }
    }

    /// This client's id (the server's responses are addressed to it).
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl<Req: Pod, Resp: Pod> Drop for Client<Req, Resp> {
    fn drop(&mut self) {
        self.responses.unlink();
    }
}
