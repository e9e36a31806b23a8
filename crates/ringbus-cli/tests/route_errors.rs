//! What `ringbus route` says to wrong input, and with which exit code: an address whose
//! host does not resolve or whose port is out of range, an endpoint without a name, a
//! configuration file without endpoints, a filter on a message id MAVLink cannot carry,
//! a port already taken (the error names it), and `ctl` asking to remove an endpoint the
//! router does not have (3, like a router that does not answer) or to add one without a
//! name (2).

mod common;

use common::{ringbus, wait_until, Background, Run};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn assert_fails(run: &Run, code: i32, says: &[&str], what: &str) {
    assert_eq!(run.status.code(), Some(code), "{what}: {}", run.stderr);
    for words in says {
        assert!(run.stderr.contains(words), "{what}: {words:?} not in {:?}", run.stderr);
    }
}

#[test]
fn wrong_endpoints_and_files_say_what_is_wrong() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let route = |args: &[&str]| {
        let control = scratch.path().join("r.sock");
        let mut all = vec!["route", "--control", control.to_str().unwrap()];
        all.extend_from_slice(args);
        ringbus(&all, Some(root.path()), &scratch, LIMIT)
    };
    let dns = route(&["-e", "fc=tcp-out:nosuchhost.invalid:5760"]);
    assert_fails(&dns, 2, &["cannot resolve the host \"nosuchhost.invalid\""], "an unknown host");
    let range = route(&["-e", "fc=tcp-out:127.0.0.1:70000"]);
    assert_fails(&range, 2, &["port \"70000\" is not a number from 0 to 65535"], "a port out of range");
    let unnamed = route(&["-e", "udp-in:127.0.0.1:0"]);
    assert_fails(&unnamed, 2, &["expected NAME=TYPE:ADDRESS"], "an endpoint without a name");

    let empty = scratch.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let run = route(&["--config", empty.to_str().unwrap()]);
    assert_fails(&run, 2, &["empty.toml has no [[endpoint]] table"], "a file without endpoints");
    let filter = scratch.path().join("filter.toml");
    std::fs::write(
        &filter,
        "[[endpoint]]\nname = \"a\"\ntype = \"shm\"\naddress = \"t\"\nfilter_in = { block_msg = [99999999] }\n",
    )
    .unwrap();
    let run = route(&["--config", filter.to_str().unwrap()]);
    assert_fails(&run, 2, &["block_msg has 99999999", "0 to 16777215"], "a message id over 24 bits");

    let taken = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let run = route(&["-e", &format!("gcs=udp-in:{address}")]);
    assert_fails(&run, 1, &[&format!("cannot bind udp-in {address}"), "pick another port"], "a port in use");
}

#[test]
fn ctl_says_not_found_with_3_and_refuses_an_unnamed_endpoint_with_2() {
    let (root, scratch) = (common::root(), tempfile::tempdir().unwrap());
    let control = scratch.path().join("r.sock");
    let control = control.to_str().unwrap();
    let mut router =
        Background::start(&["route", "--control", control, "-e", "gcs=udp-in:127.0.0.1:0"], root.path(), &scratch, "r");
    wait_until(LIMIT, "the control socket", || std::path::Path::new(control).exists());
    let ctl = |args: &[&str]| {
        let mut all = vec!["route", "ctl", "--control", control];
        all.extend_from_slice(args);
        ringbus(&all, Some(root.path()), &scratch, LIMIT)
    };
    assert_fails(&ctl(&["remove", "nope"]), 3, &["no endpoint named \"nope\"", "the endpoints are: gcs"], "remove");
    assert_fails(&ctl(&["add", "udp-in:127.0.0.1:0"]), 2, &["expected NAME=TYPE:ADDRESS"], "add without a name");
    let added = ctl(&["add", "more=udp-in:127.0.0.1:0"]);
    assert!(added.status.success(), "{}", added.stderr);
    let list = ctl(&["list"]);
    assert!(list.stdout.contains("more") && list.stdout.contains("kernel drops"), "{}", list.stdout);
    router.signal(libc::SIGTERM);
    assert!(router.wait(LIMIT).success());
}
