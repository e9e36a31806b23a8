//! Checks of the `--listen` and `--connect` endpoints before Zenoh sees them: a port out of
//! range or a host name that does not resolve is an error naming the endpoint, instead of a
//! bridge that starts and then never reaches anyone.

use crate::BridgeError;
use std::net::ToSocketAddrs;

/// What an endpoint is for: the word its errors start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Listen,
    Connect,
}

impl Role {
    fn verb(self) -> &'static str {
        match self {
            Role::Listen => "cannot listen on",
            Role::Connect => "cannot connect to",
        }
    }

    /// The lowest port of the role: a listener may ask for any free port (0).
    fn lowest_port(self) -> u32 {
        match self {
            Role::Listen => 0,
            Role::Connect => 1,
        }
    }
}

/// Checks one TCP or UDP endpoint (`tcp/HOST:PORT`, optionally followed by `?...` or
/// `#...`): the port is in range and the host resolves. Other forms are left to Zenoh,
/// which names what is wrong with them.
pub(crate) fn check(role: Role, endpoint: &str) -> Result<(), BridgeError> {
    let Some((host, port)) = host_and_port(endpoint) else {
        return Ok(());
    };
    let error = |reason: String| BridgeError::Endpoint { endpoint: endpoint.to_string(), verb: role.verb(), reason };
    let port: u32 = port.parse().map_err(|_| error(format!("the port {port:?} is not a number")))?;
    let lowest = role.lowest_port();
    let port = u16::try_from(port)
        .ok()
        .filter(|&p| u32::from(p) >= lowest)
        .ok_or_else(|| error(format!("port {port} is out of range {lowest}-65535")))?;
    match (host, port).to_socket_addrs().map(|mut addresses| addresses.next()) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(error(format!("DNS could not resolve the host name {host:?} (no address)"))),
        Err(e) => Err(error(format!(
            "DNS could not resolve the host name {host:?} ({e}); check the name, or give an IP address"
        ))),
    }
}

/// The host (without the brackets of an IPv6 address) and the port of a `tcp/` or `udp/`
/// endpoint; `None` for other protocols or a form without a port.
fn host_and_port(endpoint: &str) -> Option<(&str, &str)> {
    let address = endpoint.strip_prefix("tcp/").or_else(|| endpoint.strip_prefix("udp/"))?;
    let address = address.split(['?', '#']).next().unwrap_or_default();
    let (host, port) = address.rsplit_once(':')?;
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    Some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(role: Role, endpoint: &str) -> String {
        match check(role, endpoint) {
            Err(BridgeError::Endpoint { reason, .. }) => reason,
            other => panic!("{endpoint}: {other:?}"),
        }
    }

    #[test]
    fn addresses_and_names_that_resolve_pass() {
        for endpoint in ["tcp/127.0.0.1:7447", "udp/[::1]:7447", "tcp/localhost:1", "tcp/0.0.0.0:7447#iface=lo"] {
            check(Role::Connect, endpoint).unwrap();
        }
        check(Role::Listen, "tcp/127.0.0.1:0").unwrap();
        check(Role::Connect, "nonsense").unwrap(); // Zenoh's own error names it
    }

    #[test]
    fn ports_out_of_range_and_unresolvable_names_fail_naming_why() {
        assert_eq!(reason(Role::Connect, "tcp/127.0.0.1:70000"), "port 70000 is out of range 1-65535");
        assert_eq!(reason(Role::Connect, "tcp/127.0.0.1:0"), "port 0 is out of range 1-65535");
        assert_eq!(reason(Role::Listen, "tcp/127.0.0.1:65536"), "port 65536 is out of range 0-65535");
        assert!(reason(Role::Connect, "tcp/h:x").contains("not a number"));
        let dns = reason(Role::Connect, "tcp/nosuch.invalid:7447");
        assert!(dns.starts_with("DNS could not resolve the host name \"nosuch.invalid\""), "{dns}");
        let shown = check(Role::Listen, "udp/nosuch.invalid:7447").unwrap_err().to_string();
        assert!(shown.starts_with("cannot listen on udp/nosuch.invalid:7447: DNS could not resolve"), "{shown}");
    }
}
