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
//! Programs in other languages serve and call with types given at run time
//! ([`RawServer`], [`RawClient`]: bodies as bytes); a Rust program shares a service with
//! them by giving its types their names ([`Server::with_type_names`]).
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

mod raw;

pub use raw::{Call, RawClient, RawServer};

use crate::error::OpenError;
use crate::queue::{CommandType, QueueError};
use crate::shm::pod::{read_bytes, write_bytes, Pod};
use crate::Node;
use std::marker::PhantomData;
use std::time::Duration;

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
    /// The server found serves other request or response types (`envelope<REQUEST ->
    /// RESPONSE>`, by name, size and alignment). Open the client with the server's types.
    #[error("the server of this service takes {existing}, not {requested}; give the client the server's request and response types")]
    TypeMismatch {
        /// The server's request envelope type.
        existing: String,
        /// This client's.
        requested: String,
    },
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

/// The command types of `Req` and `Resp`, under the names given (`None`: Rust's).
fn command_types<Req: Pod, Resp: Pod>(names: Option<(&str, &str)>) -> Result<(CommandType, CommandType), OpenError> {
    Ok((CommandType::of::<Req>(names.map(|n| n.0))?, CommandType::of::<Resp>(names.map(|n| n.1))?))
}

/// Answers the requests of one service.
#[derive(Debug)]
pub struct Server<Req: Pod, Resp: Pod> {
    raw: RawServer,
    _types: PhantomData<fn(Req) -> Resp>,
}

impl<Req: Pod, Resp: Pod> Server<Req, Resp> {
    /// Serves `service` (one server at a time); `capacity` requests can wait.
    pub fn new(node: &Node, service: &str, capacity: u32) -> Result<Self, OpenError> {
        Self::open(node, service, capacity, None)
    }

    /// As [`Server::new`], for clients in other languages: the request and response types
    /// are named as they name them (their sizes and alignments are `Req`'s and `Resp`'s).
    pub fn with_type_names(
        node: &Node,
        service: &str,
        capacity: u32,
        request: &str,
        response: &str,
    ) -> Result<Self, OpenError> {
        Self::open(node, service, capacity, Some((request, response)))
    }

    fn open(node: &Node, service: &str, capacity: u32, names: Option<(&str, &str)>) -> Result<Self, OpenError> {
        let (request, response) = command_types::<Req, Resp>(names)?;
        Ok(Server { raw: RawServer::new(node, service, capacity, &request, &response)?, _types: PhantomData })
    }

    /// Waits up to `timeout` (`None`: forever) for requests, then answers every request
    /// that is ready with `handler`. Returns how many it answered (0 on timeout).
    pub fn serve_once(
        &mut self,
        timeout: Option<Duration>,
        mut handler: impl FnMut(&Req) -> Resp,
    ) -> Result<usize, QueueError> {
        self.raw.serve_once(timeout, |request, response| {
            write_bytes(response, &handler(&read_bytes::<Req>(request)));
        })
    }

    /// Forgets clients that are gone (and removes their response queues); returns how many
    /// are still connected. `serve_once` does this lazily for the clients it answers.
    pub fn sweep_clients(&mut self) -> usize {
        self.raw.sweep_clients()
    }

    /// Responses dropped because their client was gone or did not read.
    pub fn dropped(&self) -> u64 {
        self.raw.dropped()
    }
}

impl<Req: Pod, Resp: Pod> AsRef<RawServer> for Server<Req, Resp> {
    fn as_ref(&self) -> &RawServer {
        &self.raw
    }
}

/// Calls one service. It follows the service across server restarts: when the server it
/// knew is gone, a call looks for the request queue of a new one by name.
#[derive(Debug)]
pub struct Client<Req: Pod, Resp: Pod> {
    raw: RawClient,
    _types: PhantomData<fn(Req) -> Resp>,
}

impl<Req: Pod, Resp: Pod> Client<Req, Resp> {
    /// A client of `service`, with room for `capacity` responses in flight.
    pub fn new(node: &Node, service: &str, capacity: u32) -> Result<Self, OpenError> {
        Self::open(node, service, capacity, None)
    }

    /// As [`Client::new`], for a server in another language: the request and response
    /// types are named as it names them (see [`Server::with_type_names`]).
    pub fn with_type_names(
        node: &Node,
        service: &str,
        capacity: u32,
        request: &str,
        response: &str,
    ) -> Result<Self, OpenError> {
        Self::open(node, service, capacity, Some((request, response)))
    }

    fn open(node: &Node, service: &str, capacity: u32, names: Option<(&str, &str)>) -> Result<Self, OpenError> {
        let (request, response) = command_types::<Req, Resp>(names)?;
        Ok(Client { raw: RawClient::new(node, service, capacity, &request, &response)?, _types: PhantomData })
    }

    /// Sends `request` and waits at most `timeout` for its response. Fails with
    /// [`CallError::ServerGone`] when no server lives (checked before sending and while
    /// waiting), [`CallError::Timeout`] otherwise.
    pub fn call(&mut self, request: Req, timeout: Duration) -> Result<Resp, CallError> {
        let mut body = vec![0u8; std::mem::size_of::<Req>()];
        write_bytes(&mut body, &request);
        let mut response = vec![0u8; std::mem::size_of::<Resp>()];
        self.raw.call(&body, &mut response, timeout)?;
        Ok(read_bytes(&response))
    }

    /// This client's id (the server's responses are addressed to it).
    pub fn id(&self) -> u64 {
        self.raw.id()
    }
}
