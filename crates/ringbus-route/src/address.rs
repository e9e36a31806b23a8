//! Socket endpoint addresses, `HOST:PORT`: parsed and resolved with errors that say which
//! part is wrong — the form, the port's range, or the host name (DNS) — instead of one
//! "expected HOST:PORT" for all three.

use std::net::{SocketAddr, ToSocketAddrs};

/// Why an address cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("address {0:?}: expected HOST:PORT, e.g. 127.0.0.1:14550 or [::1]:14550")]
    Form(String),
    #[error("address {address:?}: port {port:?} is not a number from 0 to 65535")]
    Port { address: String, port: String },
    #[error("address {address:?}: port 0 names no peer; give the port the peer listens on (1 to 65535)")]
    NoPeerPort { address: String },
    #[error("address {address:?}: cannot resolve the host {host:?} ({reason}); check the name, or give an IP address")]
    Host { address: String, host: String, reason: String },
}

/// `HOST:PORT` split into its host (brackets of an IPv6 literal removed) and port.
fn split(address: &str) -> Result<(&str, u16), AddressError> {
    let form = || AddressError::Form(address.to_string());
    let (host, port) = address.rsplit_once(':').ok_or_else(form)?;
    let host = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.strip_suffix(']').ok_or_else(form)?,
        None if host.contains(':') => return Err(form()), // an IPv6 literal needs brackets
        None => host,
    };
    if host.is_empty() {
        return Err(form());
    }
    let port = port.parse::<u16>().map_err(|_| AddressError::Port { address: address.into(), port: port.into() })?;
    Ok((host, port))
}

/// Resolves `address`: the first address its host has. `peer`: the address names a peer
/// to send to (`udp-out`, `tcp-out`), so port 0 is refused; a server may bind port 0 (the
/// system picks one).
pub fn resolve(address: &str, peer: bool) -> Result<SocketAddr, AddressError> {
    let (host, port) = split(address)?;
    if peer && port == 0 {
        return Err(AddressError::NoPeerPort { address: address.into() });
    }
    let host_error = |reason: String| AddressError::Host { address: address.into(), host: host.into(), reason };
    let mut addresses = (host, port).to_socket_addrs().map_err(|e| host_error(e.to_string()))?;
    addresses.next().ok_or_else(|| host_error("it has no address".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wrong_part_is_named() {
        assert_eq!(resolve("127.0.0.1:14550", true).unwrap(), "127.0.0.1:14550".parse().unwrap());
        assert_eq!(resolve("[::1]:5760", true).unwrap(), "[::1]:5760".parse().unwrap());
        assert_eq!(resolve("localhost:0", false).unwrap().port(), 0);
        for form in ["nowhere", ":14550", "::1:14550", "[::1:14550"] {
            assert!(matches!(resolve(form, true), Err(AddressError::Form(_))), "{form}");
        }
        for port in ["127.0.0.1:70000", "127.0.0.1:-1", "127.0.0.1:x", "127.0.0.1:"] {
            let e = resolve(port, true).unwrap_err();
            assert!(matches!(e, AddressError::Port { .. }), "{port}: {e}");
            assert!(e.to_string().contains("not a number from 0 to 65535"), "{e}");
        }
        assert!(matches!(resolve("127.0.0.1:0", true), Err(AddressError::NoPeerPort { .. })));
        let dns = resolve("nosuchhost.invalid:5760", true).unwrap_err();
        assert!(matches!(&dns, AddressError::Host { host, .. } if host == "nosuchhost.invalid"), "{dns}");
        assert!(dns.to_string().contains("cannot resolve the host"), "{dns}");
    }
}
