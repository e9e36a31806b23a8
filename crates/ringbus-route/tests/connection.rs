//! A `tcp-out` endpoint's state: why it is not connected (and how many attempts failed)
//! while nothing listens, connected once something does, and back to retrying when the
//! connection ends.

mod common;

use common::{endpoint, router, wait_until};
use ringbus_route::config::EndpointConfig;
use ringbus_route::endpoint::EndpointState;
use std::net::TcpListener;

#[test]
fn a_tcp_out_endpoint_shows_why_it_is_not_connected_and_when_it_is() {
    // A port nothing listens on (bound, noted, closed), listened on later.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let runtime = router();
    runtime.add(EndpointConfig::parse_spec(&format!("fc=tcp-out:127.0.0.1:{port}")).unwrap()).unwrap();
    wait_until(
        "two failed attempts",
        || matches!(endpoint(&runtime, "fc").state, EndpointState::Retrying { attempts, .. } if attempts >= 2),
    );
    let EndpointState::Retrying { error, .. } = endpoint(&runtime, "fc").state else { unreachable!() };
    assert!(error.contains("refused"), "{error}");
    assert!(runtime.status().links.is_empty(), "no connection, no link");

    let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
    let (connection, _) = listener.accept().unwrap();
    wait_until("connected", || matches!(endpoint(&runtime, "fc").state, EndpointState::Connected { .. }));
    let EndpointState::Connected { peer } = endpoint(&runtime, "fc").state else { unreachable!() };
    assert_eq!(peer, format!("127.0.0.1:{port}"));
    assert_eq!(runtime.status().links.len(), 1);

    drop((connection, listener));
    wait_until("retrying again", || matches!(endpoint(&runtime, "fc").state, EndpointState::Retrying { .. }));
    assert!(runtime.status().links.is_empty());
    runtime.shutdown();
}
