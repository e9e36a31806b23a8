//! A running router: its endpoints, the housekeeping thread that advances the clock, and
//! what the control interface asks of it (list, add, remove). The endpoint list is behind
//! a mutex — the control plane's, never touched by a forwarding thread.

use crate::config::{EndpointConfig, EndpointKind};
use crate::counters::CounterSnapshot;
use crate::endpoint::{self, Endpoint, EndpointState, HealthCounters};
use crate::router::Router;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the clock word advances.
const TICK: Duration = Duration::from_millis(10);

/// One endpoint, as `ctl list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointStatus {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: EndpointKind,
    pub address: String,
    /// The bound address, for servers and UDP sockets.
    pub local: Option<String>,
    /// Whether it is connected (`tcp-out`), and why not.
    #[serde(default)]
    pub state: EndpointState,
    /// What it refused or lost before any link saw it.
    #[serde(default, flatten)]
    pub counters: HealthCounters,
}

/// One link, as `ctl list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkStatus {
    pub id: u64,
    pub endpoint: String,
    pub peer: String,
    #[serde(flatten)]
    pub counters: CounterSnapshot,
}

/// The whole router, as `ctl list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub name: String,
    pub pid: u32,
    /// Targeted frames whose target was heard on no other link.
    pub unroutable: u64,
    /// Datagrams refused by all endpoints since the router started: from senders beyond a
    /// `udp-in` endpoint's peer limit (`MAX_UDP_PEERS`), or strangers to a `udp-out` one.
    #[serde(default)]
    pub refused_datagrams: u64,
    pub endpoints: Vec<EndpointStatus>,
    pub links: Vec<LinkStatus>,
}

/// `remove` named an endpoint the router does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no endpoint named {name:?}; the endpoints are: {}", names.join(", "))]
pub struct NoSuchEndpoint {
    pub name: String,
    pub names: Vec<String>,
}

#[derive(Debug)]
pub struct Runtime {
    pub router: Arc<Router>,
    pub name: String,
    endpoints: Mutex<Vec<Endpoint>>,
    stop: Arc<AtomicBool>,
}

impl Runtime {
    /// A router with no endpoint yet, its clock running.
    pub fn new(name: &str, expiry_ms: u64) -> std::io::Result<Arc<Runtime>> {
        let router = Arc::new(Router::new(expiry_ms));
        let stop = Arc::new(AtomicBool::new(false));
        let (clock, stopped) = (router.clone(), stop.clone());
        endpoint::spawn("route clock".into(), move || {
            while !stopped.load(Ordering::Relaxed) {
                clock.clock.tick();
                std::thread::sleep(TICK);
            }
        })?;
        router.clock.tick();
        Ok(Arc::new(Runtime { router, name: name.to_string(), endpoints: Mutex::new(Vec::new()), stop }))
    }

    fn endpoints(&self) -> std::sync::MutexGuard<'_, Vec<Endpoint>> {
        self.endpoints.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts an endpoint; its bound address if it has one.
    pub fn add(&self, config: EndpointConfig) -> Result<Option<std::net::SocketAddr>, String> {
        let mut endpoints = self.endpoints();
        if endpoints.iter().any(|e| e.config.name == config.name) {
            return Err(format!(
                "an endpoint named {:?} exists already; remove it first or pick another name",
                config.name
            ));
        }
        let name = config.name.clone();
        let started = endpoint::start(&self.router, config).map_err(|e| format!("endpoint {name:?}: {e}"))?;
        let local = started.local;
        endpoints.push(started);
        Ok(local)
    }

    /// Stops an endpoint and removes its links; how many links it had.
    pub fn remove(&self, name: &str) -> Result<usize, NoSuchEndpoint> {
        let mut endpoints = self.endpoints();
        let Some(i) = endpoints.iter().position(|e| e.config.name == name) else {
            let names = endpoints.iter().map(|e| e.config.name.clone()).collect();
            return Err(NoSuchEndpoint { name: name.to_string(), names });
        };
        Ok(endpoints.remove(i).stop())
    }

    pub fn status(&self) -> Status {
        let endpoints = self.endpoints().iter().map(endpoint_status).collect();
        let links = self.router.links();
        let links = links.iter().map(|l| LinkStatus {
            id: l.id,
            endpoint: l.endpoint.clone(),
            peer: l.peer.clone(),
            counters: l.counters.snapshot(),
        });
        Status {
            name: self.name.clone(),
            pid: std::process::id(),
            unroutable: self.router.unroutable(),
            refused_datagrams: self.router.refused_datagrams(),
            endpoints,
            links: links.collect(),
        }
    }

    /// Stops every endpoint and the clock.
    pub fn shutdown(&self) {
        let endpoints = std::mem::take(&mut *self.endpoints());
        for endpoint in endpoints {
            endpoint.stop();
        }
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn endpoint_status(e: &Endpoint) -> EndpointStatus {
    EndpointStatus {
        name: e.config.name.clone(),
        kind: e.config.kind,
        address: e.config.address.clone(),
        local: e.local.map(|a| a.to_string()),
        state: e.health().state(),
        counters: e.health().counters(),
    }
}
