//! `ringbus route`: runs a MAVLink router (the `ringbus-route` crate) with the endpoints of
//! a configuration file and of `--endpoint` flags, answering `ringbus route ctl` on its
//! control socket until Ctrl-C or SIGTERM.

use super::output::{counted, print_json, printable, Failure, JsonFlag, Table};
use anyhow::{Context, Result};
use ringbus_route::config::{Config, EndpointConfig};
use ringbus_route::control::{self, ControlError, Reply, Request};
use ringbus_route::router::DEFAULT_EXPIRY_MS;
use ringbus_route::runtime::{Runtime, Status};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub const LONG_ABOUT: &str = "\
Routes MAVLink frames between UDP, TCP and ringbus-topic endpoints. Frames are read whole
(v1 and v2, checksums checked with the dialect's CRC_EXTRA, garbage skipped) and forwarded
byte for byte — signed frames pass intact. Each link learns which (system, component) it
heard; a frame with a target goes only to links where its target was heard within
--expiry-ms (component 0: any component of the system), a frame without one everywhere,
never back out of the link it came in. Filters per endpoint (config file) allow or block
by message id, source system and source component, in and out. Frames received together
(one recvmmsg) and bound for the same UDP peer leave packed in shared datagrams of at most
1472 bytes, whole frames in order; nothing waits to be packed.

Endpoints, as NAME=TYPE:ADDRESS:
  udp-in:HOST:PORT    UDP server; every peer that sends to it is served (a link each, up
                      to 64 at once; a peer silent for peer_expiry_ms, default
                      --expiry-ms, is dropped; when full, a new peer replaces one silent
                      for 2 s or more, else its datagrams are refused and counted)
  udp-out:HOST:PORT   UDP to one address; replies from it are routed too
  tcp-in:HOST:PORT    TCP server; every connection is a link
  tcp-out:HOST:PORT   TCP client, reconnecting with backoff (100 ms to 5 s)
  shm:TOPIC           a ringbus topic, one frame per message, published and taken

`ringbus route ctl list` shows each endpoint's state (a tcp-out that is not connected says
why) and what it lost before any link saw it: datagrams refused, dropped by the kernel
at a full socket buffer (raise rcvbuf in the file), peers expired or evicted. Events
(connections, failures, peers) are logged on standard error. Exit codes: 0 stopped,
1 error (e.g. a port in use), 2 bad usage or configuration, 3 (ctl) no such router or
endpoint.

The control socket (--control, default $RINGBUS_ROUTE_DIR, $XDG_RUNTIME_DIR/ringbus-route
or /tmp/ringbus-route-UID, file NAME.sock) takes `ringbus route ctl list|add|remove`;
`ringbus top` shows every router's links from there. Its directory must be yours alone:
a real directory (not a symbolic link), owned by you, writable by nobody else. The router
creates it with mode 0700 if missing; the router, `route ctl` and `top` refuse one that
fails this (remove it, or point RINGBUS_ROUTE_DIR elsewhere).";

const AFTER_HELP: &str = "\
Examples:
  ringbus route --endpoint gcs=udp-in:0.0.0.0:14550 --endpoint fc=tcp-out:127.0.0.1:5760
  ringbus route --config router.toml --name main
  ringbus route ctl list                           # links with frames/bytes in and out, filtered, dropped
  ringbus route ctl add radio=udp-out:192.168.1.20:14550
  ringbus route ctl remove radio
  ringbus route ctl --name main list --json";

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, after_help = AFTER_HELP)]
pub struct RouteArgs {
    #[command(subcommand)]
    ctl: Option<RouteCommand>,

    /// A TOML configuration file (format in the guide: docs/src/reference/router.md). Example: --config router.toml
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// An endpoint, NAME=TYPE:ADDRESS; repeat for more. Example: --endpoint gcs=udp-in:0.0.0.0:14550
    #[arg(long = "endpoint", short = 'e', value_name = "SPEC", value_parser = EndpointConfig::parse_spec)]
    endpoints: Vec<EndpointConfig>,

    #[command(flatten)]
    socket: SocketArgs,

    /// How long a learned route lasts unless heard again [default: 10000, or the file's]. Example: --expiry-ms 5000
    #[arg(long, value_name = "MS", value_parser = super::numbers::expiry_ms)]
    expiry_ms: Option<u64>,
}

#[derive(Debug, Clone, clap::Args)]
struct SocketArgs {
    /// The router's name: its control socket is NAME.sock [default: the file's, else "default"]. Example: --name main
    #[arg(long, value_name = "NAME")]
    name: Option<String>,

    /// The control socket's path, instead of the default directory; its directory must be
    /// yours alone, like the default one. Example: --control ~/.ringbus/main.sock
    #[arg(long, value_name = "PATH")]
    control: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum RouteCommand {
    /// Talk to a running router: list its links, add or remove an endpoint.
    Ctl(CtlArgs),
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus route ctl list\n  \
    ringbus route ctl list --json\n  \
    ringbus route ctl add gcs2=udp-in:0.0.0.0:14551\n  \
    ringbus route ctl remove gcs2\n\n\
    A router that does not answer `list` within 5 s, or `add` and `remove` within 15 s, is\n\
    reported as not answering (exit 3). The socket's directory must be yours alone (see\n\
    `ringbus route --help`); another is refused.")]
struct CtlArgs {
    #[command(flatten)]
    socket: SocketArgs,
    #[command(subcommand)]
    op: CtlOp,
}

#[derive(Debug, clap::Subcommand)]
enum CtlOp {
    /// Endpoints and links with their counters.
    List(JsonFlag),
    /// Start an endpoint, NAME=TYPE:ADDRESS; prints its bound address if it has one.
    Add { spec: String },
    /// Stop an endpoint; when this returns, none of its links is sent anything any more.
    Remove { name: String },
}

impl SocketArgs {
    fn path(&self, file_name: Option<&str>) -> PathBuf {
        let name = self.name.as_deref().or(file_name).unwrap_or("default");
        self.control.clone().unwrap_or_else(|| control::default_path(name))
    }
}

impl RouteArgs {
    pub fn run(self) -> Result<()> {
        match self.ctl {
            Some(RouteCommand::Ctl(ctl)) => ctl.run(),
            None => self.serve(),
        }
    }

    fn serve(self) -> Result<()> {
        let file = match &self.config {
            Some(path) => Config::load(path).map_err(Failure::Usage)?,
            None => Config::default(),
        };
        let mut endpoints = file.endpoints.clone();
        endpoints.extend(self.endpoints.iter().cloned());
        if endpoints.is_empty() {
            let why = match &self.config {
                Some(path) => format!(
                    "{} has no [[endpoint]] table; add one (name, type, address — see `ringbus route --help`) \
                     or give --endpoint NAME=TYPE:ADDRESS",
                    path.display()
                ),
                None => "no endpoint: give --endpoint NAME=TYPE:ADDRESS or --config FILE".into(),
            };
            return Err(Failure::Usage(why).into());
        }
        let name = self.socket.name.clone().or(file.router.name.clone()).unwrap_or_else(|| "default".into());
        let path =
            self.socket.control.clone().or(file.router.control.clone()).unwrap_or_else(|| control::default_path(&name));
        let expiry_ms = self.expiry_ms.or(file.router.expiry_ms).unwrap_or(DEFAULT_EXPIRY_MS);
        // Before any endpoint starts: a directory others can write into stops the router.
        let listener = control::bind(&path)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("cannot install the Ctrl-C handler")?;
        let runtime = Runtime::new(&name, expiry_ms).context("cannot start the router's clock thread")?;
        for endpoint in endpoints {
            let (name, kind) = (endpoint.name.clone(), endpoint.kind);
            let local = runtime.add(endpoint).map_err(|e| {
                let _ = std::fs::remove_file(&path); // bound above, never served
                anyhow::Error::msg(e)
            })?;
            let at = local.map(|a| format!(" on {a}")).unwrap_or_default();
            eprintln!("ringbus route: endpoint {name} ({kind}){at}");
        }
        let control = control::serve(listener, path.clone(), runtime.clone(), stop.clone())
            .with_context(|| format!("cannot serve the control socket {}", path.display()))?;
        eprintln!("ringbus route: control socket {}", path.display());
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = control.join();
        runtime.shutdown();
        Ok(())
    }
}

impl CtlArgs {
    fn run(self) -> Result<()> {
        let path = self.socket.path(None);
        let (request, json) = match &self.op {
            CtlOp::List(flag) => (Request::List, flag.json),
            CtlOp::Add { spec } => (Request::Add { endpoint: spec.clone() }, false),
            CtlOp::Remove { name } => (Request::Remove { name: name.clone() }, false),
        };
        let reply = control::request(&path, &request).map_err(|e| match e {
            ControlError::NoRouter { .. } | ControlError::BadReply { .. } => {
                Failure::NotFound(printable(&e.to_string())).into()
            }
            other => anyhow::Error::from(other),
        })?;
        if !reply.ok {
            let why = printable(reply.error.as_deref().unwrap_or("the router refused"));
            return Err(if reply.not_found { Failure::NotFound(why) } else { Failure::Usage(why) }.into());
        }
        print_reply(&reply, json)
    }
}

fn print_reply(reply: &Reply, json: bool) -> Result<()> {
    if let Some(status) = &reply.status {
        if json {
            print_json(&serde_json::to_value(status)?);
        } else {
            print_status(status);
        }
    }
    if let Some(local) = &reply.local {
        println!("{}", printable(local));
    }
    if let Some(n) = reply.removed_links {
        println!("removed, with {}", counted(n as u64, "link"));
    }
    Ok(())
}

/// The endpoints table of `statuses`: each one's state and what it refused or lost before
/// any link saw it (also used by `ringbus top`).
pub fn endpoints_table(statuses: &[Status]) -> Table {
    let mut table = Table::new(&[
        "router",
        "endpoint",
        "type",
        "address",
        "bound",
        "refused",
        "kernel drops",
        "peers expired",
        "peers evicted",
        "state",
    ]);
    for status in statuses {
        for e in &status.endpoints {
            let c = &e.counters;
            table.row(vec![
                printable(&status.name),
                printable(&e.name),
                e.kind.to_string(),
                printable(&e.address),
                e.local.as_deref().map_or("-".into(), printable),
                c.refused_datagrams.to_string(),
                c.kernel_drops.to_string(),
                c.expired_peers.to_string(),
                c.evicted_peers.to_string(),
                printable(&e.state.to_string()),
            ]);
        }
    }
    table
}

/// The links table of `status` (also used by `ringbus top`).
pub fn links_table(statuses: &[Status]) -> Table {
    let mut table = Table::new(&[
        "router",
        "endpoint",
        "link",
        "peer",
        "frames in",
        "frames out",
        "bytes in",
        "bytes out",
        "filtered",
        "dropped",
        "garbage",
    ]);
    for status in statuses {
        for l in &status.links {
            let c = &l.counters;
            table.row(vec![
                printable(&status.name),
                printable(&l.endpoint),
                l.id.to_string(),
                printable(&l.peer),
                c.frames_in.to_string(),
                c.frames_out.to_string(),
                c.bytes_in.to_string(),
                c.bytes_out.to_string(),
                (c.filtered_in + c.filtered_out).to_string(),
                c.dropped_out.to_string(),
                c.garbage_bytes.to_string(),
            ]);
        }
    }
    table
}

fn print_status(status: &Status) {
    println!(
        "router {} (pid {}), {}, {} refused (by endpoint below)",
        printable(&status.name),
        status.pid,
        counted(status.unroutable, "unroutable targeted frame"),
        counted(status.refused_datagrams, "datagram")
    );
    endpoints_table(std::slice::from_ref(status)).print();
    println!();
    links_table(std::slice::from_ref(status)).print();
}
