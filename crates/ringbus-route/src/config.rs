//! The router's configuration: a TOML file (one `[[endpoint]]` table per endpoint, in the
//! spirit of mavlink-router's sections) and the one-line endpoint specs that
//! `ringbus route --endpoint` and `ringbus route ctl add` take.
//!
//! ```toml
//! [router]
//! name = "main"            # names the control socket; default "default"
//! expiry_ms = 10000        # a learned route lasts this long unless heard again
//!
//! [[endpoint]]
//! name = "gcs"
//! type = "udp-in"          # udp-in | udp-out | tcp-in | tcp-out | shm
//! address = "0.0.0.0:14550"
//! filter_out = { block_msg = [253] }
//! rcvbuf = 4194304         # socket receive buffer bytes (default: the system's)
//! peer_expiry_ms = 10000   # udp-in: a peer silent this long is dropped (default: expiry_ms)
//!
//! [[endpoint]]
//! name = "vehicle"
//! type = "udp-out"         # routes only what the peer sends from 192.168.1.20:14555,
//! address = "192.168.1.20:14555"   # unless accept_any_sender = true
//!
//! [[endpoint]]
//! name = "local"
//! type = "shm"
//! address = "mavlink/frames"   # the ringbus topic
//! ```

use crate::filter::Filter;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The kinds of endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndpointKind {
    /// A UDP server: every peer that sends to it becomes a link of its own.
    UdpIn,
    /// UDP to a fixed address (replies on the same socket are read too).
    UdpOut,
    /// A TCP server: every accepted connection is a link.
    TcpIn,
    /// A TCP client that reconnects with backoff.
    TcpOut,
    /// A ringbus topic: one frame per message, published and taken.
    Shm,
}

impl EndpointKind {
    pub const ALL: [EndpointKind; 5] =
        [EndpointKind::UdpIn, EndpointKind::UdpOut, EndpointKind::TcpIn, EndpointKind::TcpOut, EndpointKind::Shm];

    /// Whether the address names a peer to reach (a client), not one to bind (a server).
    pub fn sends_to_peer(self) -> bool {
        matches!(self, EndpointKind::UdpOut | EndpointKind::TcpOut)
    }

    pub fn name(self) -> &'static str {
        match self {
            EndpointKind::UdpIn => "udp-in",
            EndpointKind::UdpOut => "udp-out",
            EndpointKind::TcpIn => "tcp-in",
            EndpointKind::TcpOut => "tcp-out",
            EndpointKind::Shm => "shm",
        }
    }
}

impl fmt::Display for EndpointKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EndpointKind {
    type Err = String;
    fn from_str(s: &str) -> Result<EndpointKind, String> {
        EndpointKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<_> = EndpointKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown endpoint type {s:?}; use one of {}", names.join(", "))
        })
    }
}

/// One endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: EndpointKind,
    /// `HOST:PORT` for sockets, the topic name for `shm`.
    pub address: String,
    #[serde(default, skip_serializing_if = "Filter::is_empty")]
    pub filter_in: Filter,
    #[serde(default, skip_serializing_if = "Filter::is_empty")]
    pub filter_out: Filter,
    /// `udp-out` only: route datagrams from any sender, not only from the peer's address
    /// and port (for a peer that answers from another port). Off: what another socket
    /// sends to this endpoint's port is refused and counted (`refused_datagrams`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub accept_any_sender: bool,
    /// Socket endpoints: the receive buffer in bytes (`SO_RCVBUF`; the kernel doubles it and
    /// caps it at `net.core.rmem_max`); the system default when unset. A UDP socket whose
    /// buffer overflows drops datagrams, counted as `kernel_drops`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcvbuf: Option<u32>,
    /// `udp-in` only: a peer not heard from for this long stops being a link (its routes go
    /// with it), so a restarted ground station, which comes back from a new port, is not
    /// one peer too many. Default: the router's `expiry_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_expiry_ms: Option<u64>,
}

const SPEC_FORM: &str = "NAME=TYPE:ADDRESS, e.g. gcs=udp-in:0.0.0.0:14550 or local=shm:mavlink/frames";

impl EndpointConfig {
    /// Parses `NAME=TYPE:ADDRESS`. The name is what `ctl remove` and the counters call the
    /// endpoint, so it is required.
    pub fn parse_spec(spec: &str) -> Result<EndpointConfig, String> {
        let (name, rest) = spec.split_once('=').ok_or_else(|| format!("endpoint {spec:?}: expected {SPEC_FORM}"))?;
        let (kind, address) = rest.split_once(':').ok_or_else(|| format!("endpoint {spec:?}: expected {SPEC_FORM}"))?;
        let kind: EndpointKind = kind.parse().map_err(|e| format!("endpoint {spec:?}: {e}"))?;
        let endpoint = EndpointConfig {
            name: name.to_string(),
            kind,
            address: address.to_string(),
            filter_in: Filter::default(),
            filter_out: Filter::default(),
            accept_any_sender: false,
            rcvbuf: None,
            peer_expiry_ms: None,
        };
        endpoint.check().map_err(|e| format!("endpoint {spec:?}: {e}"))?;
        Ok(endpoint)
    }

    /// Checks the name, the address (its form, port and host), the filters, and that each
    /// option suits the endpoint's type.
    pub fn check(&self) -> Result<(), String> {
        if self.name.is_empty() || self.name.contains(|c: char| c.is_whitespace() || c == '=') {
            return Err(format!("name {:?}: must be non-empty, without spaces or '='", self.name));
        }
        self.filter_in.check().map_err(|e| format!("filter_in: {e}"))?;
        self.filter_out.check().map_err(|e| format!("filter_out: {e}"))?;
        let only = |option: &str, on: bool, kinds: &str| match on {
            true => Err(format!("{option} applies to {kinds} endpoints only, not to {}", self.kind)),
            false => Ok(()),
        };
        only("accept_any_sender", self.accept_any_sender && self.kind != EndpointKind::UdpOut, "udp-out")?;
        only("peer_expiry_ms", self.peer_expiry_ms.is_some() && self.kind != EndpointKind::UdpIn, "udp-in")?;
        only("rcvbuf", self.rcvbuf.is_some() && self.kind == EndpointKind::Shm, "socket")?;
        if self.rcvbuf == Some(0) {
            return Err("rcvbuf = 0; give a size in bytes, or leave it out for the system default".into());
        }
        if self.peer_expiry_ms == Some(0) {
            return Err("peer_expiry_ms = 0 would drop every peer at once; give at least 1".into());
        }
        match self.kind {
            EndpointKind::Shm if self.address.is_empty() => Err("a shm endpoint needs a topic name".into()),
            EndpointKind::Shm => Ok(()),
            kind => crate::address::resolve(&self.address, kind.sends_to_peer()).map(drop).map_err(|e| e.to_string()),
        }
    }
}

/// The `[router]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterSection {
    pub name: Option<String>,
    pub expiry_ms: Option<u64>,
    /// The control socket's path.
    pub control: Option<PathBuf>,
}

/// A whole configuration file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub router: RouterSection,
    #[serde(default, rename = "endpoint")]
    pub endpoints: Vec<EndpointConfig>,
}

impl Config {
    /// Reads `path`; errors name the file, the line and what was expected.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Config::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| describe(text, &e))?;
        if config.router.expiry_ms == Some(0) {
            return Err("[router] expiry_ms = 0 would forget every route at once; give at least 1".into());
        }
        let mut names = std::collections::HashSet::new();
        for endpoint in &config.endpoints {
            endpoint.check().map_err(|e| format!("endpoint {:?}: {e}", endpoint.name))?;
            if !names.insert(endpoint.name.as_str()) {
                return Err(format!("endpoint {:?} is defined twice; give each endpoint its own name", endpoint.name));
            }
        }
        Ok(config)
    }
}

/// `line N: message`, from a TOML error and the text it came from.
fn describe(text: &str, e: &toml::de::Error) -> String {
    let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    let expected = "expected [router] with name/expiry_ms/control, and [[endpoint]] tables with name, type \
                    (udp-in|udp-out|tcp-in|tcp-out|shm), address, and optional filter_in/filter_out";
    match line {
        Some(n) => format!("line {n}: {}; {expected}", e.message()),
        None => format!("{}; {expected}", e.message()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_what_is_expected() {
        let e = EndpointConfig::parse_spec("gcs=udp-in:127.0.0.1:0").unwrap();
        assert_eq!((e.name.as_str(), e.kind, e.address.as_str()), ("gcs", EndpointKind::UdpIn, "127.0.0.1:0"));
        let s = EndpointConfig::parse_spec("local=shm:mav/frames").unwrap();
        assert_eq!((s.name.as_str(), s.kind, s.address.as_str()), ("local", EndpointKind::Shm, "mav/frames"));
        assert!(EndpointConfig::parse_spec("x=udp-sideways:1.2.3.4:5").unwrap_err().contains("use one of udp-in"));
        assert!(EndpointConfig::parse_spec("x=tcp-out:nowhere").unwrap_err().contains("expected HOST:PORT"));
        assert!(EndpointConfig::parse_spec("x=tcp-out:h:70000").unwrap_err().contains("0 to 65535"));
        assert!(EndpointConfig::parse_spec("x=tcp-out:nosuchhost.invalid:5760")
            .unwrap_err()
            .contains("cannot resolve"));
        for unnamed in ["x", "shm:mav/frames", "udp-in:0.0.0.0:14550", "=shm:t"] {
            assert!(
                EndpointConfig::parse_spec(unnamed).unwrap_err().contains("expected NAME=TYPE:ADDRESS")
                    || unnamed.starts_with('='),
                "{unnamed}"
            );
        }
        assert!(EndpointConfig::parse_spec("=shm:t").unwrap_err().contains("must be non-empty"));
    }

    #[test]
    fn files_parse_and_errors_name_the_line() {
        let text =
            "[router]\nname = \"r\"\n\n[[endpoint]]\nname = \"a\"\ntype = \"tcp-in\"\naddress = \"127.0.0.1:0\"\n\
                    filter_in = { block_msg = [0], allow_src_system = [1, 2] }\n";
        let config = Config::parse(text).unwrap();
        assert_eq!(config.router.name.as_deref(), Some("r"));
        assert_eq!(config.endpoints[0].filter_in.allow_src_system, [1, 2]);
        let bad = "[[endpoint]]\nname = \"a\"\ntype = \"udp-in\"\naddres = \"x\"\n";
        let e = Config::parse(bad).unwrap_err();
        assert!(e.starts_with("line 4: unknown field `addres`"), "{e}");
        let twice = format!("{text}\n[[endpoint]]\nname = \"a\"\ntype = \"shm\"\naddress = \"t\"\n");
        assert!(Config::parse(&twice).unwrap_err().contains("defined twice"));
        assert!(Config::parse("[router]\nexpiry_ms = 0\n").unwrap_err().contains("at least 1"));
    }

    #[test]
    fn udp_options_parse_and_a_zero_buffer_is_refused() {
        let out = "[[endpoint]]\nname = \"v\"\ntype = \"udp-out\"\naddress = \"127.0.0.1:14555\"\n";
        let plain = Config::parse(out).unwrap();
        assert_eq!((plain.endpoints[0].accept_any_sender, plain.endpoints[0].rcvbuf), (false, None));
        let set = Config::parse(&format!("{out}accept_any_sender = true\nrcvbuf = 4194304\n")).unwrap();
        assert_eq!((set.endpoints[0].accept_any_sender, set.endpoints[0].rcvbuf), (true, Some(4_194_304)));
        assert!(Config::parse(&format!("{out}rcvbuf = 0\n")).unwrap_err().contains("rcvbuf = 0"));
        let tcp = "[[endpoint]]\nname = \"t\"\ntype = \"tcp-in\"\naddress = \"127.0.0.1:0\"\n";
        assert_eq!(Config::parse(&format!("{tcp}rcvbuf = 65536\n")).unwrap().endpoints[0].rcvbuf, Some(65536));
        let e = Config::parse(&format!("{tcp}accept_any_sender = true\n")).unwrap_err();
        assert!(e.contains("udp-out endpoints only"), "{e}");
        assert!(Config::parse(&format!("{tcp}peer_expiry_ms = 5\n")).unwrap_err().contains("udp-in endpoints only"));
        let udp_in = "[[endpoint]]\nname = \"g\"\ntype = \"udp-in\"\naddress = \"127.0.0.1:0\"\n";
        assert_eq!(
            Config::parse(&format!("{udp_in}peer_expiry_ms = 500\n")).unwrap().endpoints[0].peer_expiry_ms,
            Some(500)
        );
        assert!(Config::parse(&format!("{udp_in}peer_expiry_ms = 0\n")).unwrap_err().contains("at least 1"));
    }

    #[test]
    fn filters_out_of_range_are_refused() {
        let text =
            "[[endpoint]]\nname = \"a\"\ntype = \"shm\"\naddress = \"t\"\nfilter_out = { block_msg = [99999999] }\n";
        let e = Config::parse(text).unwrap_err();
        assert!(e.contains("filter_out") && e.contains("99999999") && e.contains("16777215"), "{e}");
    }
}
