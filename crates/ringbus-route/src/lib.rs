//! A MAVLink router for ringbus: frames in from UDP, TCP and ringbus topics, routed by
//! their target, out with their original bytes — and a per-frame path that takes no lock.
//!
//! Layers: [`crc`] and [`dialect`] (what the dialect says of each message id: CRC_EXTRA,
//! target offsets, derived once from the `mavlink` crate) → [`frame`] (v1/v2 framing,
//! resynchronisation) → [`seen`], [`filter`], [`counters`], [`link`] (one live connection)
//! → [`table`] (the lock-free link list, and the mutex baseline) → [`router`] (the rule).
//! [`endpoint`], [`config`] (with [`address`]) and [`control`] run it: sockets and topics (UDP in batches:
//! [`outbox`]), the configuration file, and the control socket that `ringbus route ctl`
//! talks to.
//!
//! No `unsafe` code: lock-freedom comes from `arc-swap`, reclamation from `Arc`.
#![forbid(unsafe_code)]

pub mod address;
pub mod clock;
pub mod config;
pub mod control;
pub mod counters;
pub mod crc;
pub mod dialect;
pub mod endpoint;
pub mod filter;
pub mod frame;
pub mod link;
pub mod outbox;
pub mod router;
pub mod runtime;
pub mod seen;
pub mod table;

pub use config::{Config, EndpointConfig, EndpointKind};
pub use frame::{Frame, Framer};
pub use link::{Link, Sink};
pub use router::Router;
