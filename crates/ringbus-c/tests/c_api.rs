//! The C API from C: the committed header is what cbindgen makes of the crate today; the
//! examples (examples/c, also built with their Makefile) and test programs compile with
//! `-Wall -Wextra -Werror` under AddressSanitizer and UndefinedBehaviorSanitizer and run
//! against `libringbus_c.so`: two processes
//! exchanging messages, worker processes sharing job tokens after a latch, processes
//! waking each other through shared words by address alone, a wait set over every kind of
//! source, an epoll loop sleeping on wait sets' fds, a topic's memory settings and typed
//! arrays, reliable subscribers and what a publisher does when one is behind, and every
//! error path with its status and message.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where cargo built `libringbus_c.so` for this test run: beside the test executable
/// (target/<profile>/deps; the copy one level up is refreshed only by `cargo build`).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().to_path_buf();
    assert!(dir.join("libringbus_c.so").exists(), "no libringbus_c.so in {}", dir.display());
    dir
}

/// A fresh `RINGBUS_ROOT` for one test, removed with everything in it afterwards.
struct TestRoot(PathBuf);

impl TestRoot {
    fn new(name: &str) -> TestRoot {
        let path = PathBuf::from(format!("/dev/shm/ringbus-test-c-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        TestRoot(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TestRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compiles one C file against the header and the library; returns the executable.
fn compile(source: &Path, name: &str) -> PathBuf {
    let lib = library_dir();
    let exe = lib.join(format!("c-api-{name}"));
    let status = Command::new("cc")
        .args(["-std=c11", "-D_DEFAULT_SOURCE", "-pthread", "-Wall", "-Wextra", "-Werror", "-g"])
        .arg("-fsanitize=address,undefined")
        .arg("-fno-sanitize-recover=all")
        .arg(source)
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-L")
        .arg(&lib)
        .arg("-lringbus_c")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("cannot run cc: install a C compiler (gcc)");
    assert!(status.success(), "compiling {} failed", source.display());
    exe
}

/// A command for a compiled C program. `cargo test` puts target/<profile> on
/// LD_LIBRARY_PATH, which outranks the rpath, and the copy of the library there may be
/// stale: the program must load the one built for this run.
fn c_program(exe: &Path) -> Command {
    let mut command = Command::new(exe);
    command.env("LD_LIBRARY_PATH", library_dir()).env_remove("RINGBUS_ROOT");
    command
}

fn run(exe: &Path, args: &[&str]) -> String {
    let output = c_program(exe).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{} {args:?} failed: {}\n{stdout}{}",
        exe.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn the_committed_header_is_current() {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not read the crate")
        .write(&mut generated);
    let path = dir.join("include/ringbus.h");
    if std::env::var_os("RINGBUS_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date; regenerate it with RINGBUS_BLESS=1 cargo test -p ringbus-c --test c_api",
        path.display()
    );
}

/// The examples under examples/c (the repository's), each with the line its output must have.
const EXAMPLES: [(&str, &str); 2] = [
    ("hello", "subscriber: received 6, lost 0 (ringbus "),
    ("waitset", "thermostat: shutdown after 10 readings (mean 21.12 °C) and "),
];

fn examples_dir() -> PathBuf {
    crate_dir().join("../../examples/c")
}

#[test]
fn the_examples_run_and_clean_up() {
    for (name, expected) in EXAMPLES {
        let exe = compile(&examples_dir().join(format!("{name}.c")), &format!("example-{name}"));
        // In a root the test gives it, which must be empty afterwards...
        let root = TestRoot::new(&format!("example-{name}"));
        let out = c_program(&exe).env("RINGBUS_ROOT", root.path()).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{name}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.lines().any(|l| l.starts_with(expected)), "{name}: no line {expected:?} in\n{stdout}");
        let left: Vec<_> = std::fs::read_dir(&root.0).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "{name} left {left:?} in its root");
        // ...and alone, in a root of its own under /dev/shm, which must be gone afterwards.
        let child = c_program(&exe).stdout(Stdio::piped()).spawn().unwrap();
        let own_root = PathBuf::from(format!("/dev/shm/ringbus-example-{}", child.id()));
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && stdout.lines().any(|l| l.starts_with(expected)), "{name} alone: {stdout}");
        assert!(!own_root.exists(), "{name} left {} behind", own_root.display());
    }
}

#[test]
fn the_examples_makefile_builds_outside_the_source_tree() {
    let out = library_dir().join("c-examples"); // under target/, like every build output
    let _ = std::fs::remove_dir_all(&out);
    let before = std::fs::read_dir(examples_dir()).unwrap().count();
    let status = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(examples_dir())
        .arg(format!("OUT={}", out.display()))
        .arg(format!("LIB={}", library_dir().display()))
        .arg("CFLAGS=-std=c11 -Wall -Wextra -Werror -O1")
        .status()
        .expect("cannot run make: install it (Debian: make)");
    assert!(status.success(), "make -C examples/c failed");
    for (name, _) in EXAMPLES {
        assert!(out.join(name).is_file(), "make built no {name} in OUT");
    }
    let after = std::fs::read_dir(examples_dir()).unwrap().count();
    assert_eq!(before, after, "make wrote into examples/c");
}

/// tests/c/processes.c, compiled once for every test that runs it.
fn processes_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| compile(&crate_dir().join("tests/c/processes.c"), "processes"))
}

#[test]
fn bad_calls_fail_with_their_status_and_a_message() {
    let root = TestRoot::new("errors");
    let exe = processes_program();
    assert_eq!(run(exe, &["errors", root.path()]), "errors ok\n");
}

#[test]
fn two_c_processes_exchange_messages_in_order_intact_and_counted() {
    const COUNT: &str = "2000";
    let root = TestRoot::new("processes");
    let exe = processes_program();
    let mut sub = c_program(exe).args(["sub", root.path(), COUNT]).stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(sub.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "ready", "the subscriber did not start");
    run(exe, &["pub", root.path(), COUNT]);
    let report = lines.next().expect("the subscriber printed no report").unwrap();
    assert!(sub.wait().unwrap().success(), "the subscriber failed");
    // depth 64 and a publisher that never waits: a slow subscriber may be lapped, which it
    // must count, never hide (the C side checks order and bytes of what it gets).
    let numbers: Vec<u64> = report.split(' ').filter_map(|w| w.parse().ok()).collect();
    assert_eq!(numbers.len(), 2, "{report}");
    assert_eq!(numbers[0] + numbers[1], 2000, "taken + lost must be every message: {report}");
}

#[test]
fn c_workers_share_job_tokens_after_a_latch() {
    let root = TestRoot::new("tokens");
    let exe = processes_program();
    // 4 processes × 2 threads on 3 tokens: the C side checks that nobody starts before the
    // latch is set, that every job runs and that all tokens come back.
    let out = run(exe, &["tokens", root.path(), "4", "3", "400"]);
    let at_most: u32 = out
        .strip_prefix("tokens ok: 400 jobs, at most ")
        .and_then(|rest| rest.strip_suffix(" at once\n"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected report: {out}"));
    assert!((1..=3).contains(&at_most), "{at_most} jobs ran at once on 3 tokens");
    let left: Vec<String> = std::fs::read_dir(&root.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("latch.") || name.starts_with("sem."))
        .collect();
    assert!(left.is_empty(), "unlinked objects left behind: {left:?}");
}

#[test]
fn c_processes_wait_on_and_wake_shared_words_by_address() {
    let root = TestRoot::new("words");
    std::fs::create_dir(&root.0).unwrap();
    let exe = compile(&crate_dir().join("tests/c/words.c"), "words");
    // The C side checks every value in order, each wait bounded, and the bad arguments.
    let out = run(&exe, &["words", root.path(), "1000"]);
    assert!(out.starts_with("ping-pong: 1000 rounds, the child was woken "), "{out}");
    assert!(out.ends_with("words ok\n"), "{out}");
    let left: Vec<_> = std::fs::read_dir(&root.0).unwrap().collect();
    assert!(left.is_empty(), "the words file was left behind: {left:?}");
}

#[test]
fn a_c_wait_set_reports_every_kind_of_source_and_keeps_every_token() {
    let root = TestRoot::new("waitset");
    let exe = compile(&crate_dir().join("tests/c/waitset.c"), "waitset");
    // The C side checks each event's key, kind and value, the fd for foreign loops, the
    // thread rule, the token given back at detach and the bad arguments.
    let out = run(&exe, &["waitset", root.path()]);
    assert!(out.starts_with("waitset ok: 5 sources, "), "{out}");
}

#[test]
fn c_memory_settings_pool_budget_and_typed_arrays() {
    let root = TestRoot::new("memory");
    let exe = compile(&crate_dir().join("tests/c/memory.c"), "memory");
    // The C side checks the settings and their mismatches, the bytes a publisher holds,
    // RB_ERR_POOL_BUDGET and its message, and 1000 points of four floats read in place.
    assert_eq!(run(&exe, &["memory", root.path()]), "memory ok\n");
}

#[test]
fn c_reliable_subscribers_and_when_full() {
    let root = TestRoot::new("reliable");
    let exe = compile(&crate_dir().join("tests/c/reliable.c"), "reliable");
    // The C side checks RB_ERR_FULL and its message under RB_WHEN_FULL_FAIL, room after
    // each take, every message in order with none lost, a bounded wait, a default publisher
    // that goes on once the subscriber takes, and the bad option values.
    assert_eq!(run(&exe, &["reliable", root.path()]), "reliable ok\n");
}

#[test]
fn a_c_epoll_loop_on_wait_set_fds_hears_every_message() {
    let root = TestRoot::new("foreign-loop");
    let exe = compile(&crate_dir().join("tests/c/foreign_loop.c"), "foreign-loop");
    // The C side fails if its epoll sits 2 s on quiet fds while a message waits, or if a
    // message is missing or out of order.
    let out = run(&exe, &[root.path()]);
    assert!(out.starts_with("foreign loop ok: 10000 messages, "), "{out}");
}

/// tests/c/queue.c, compiled once for every test that runs it.
fn queue_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| compile(&crate_dir().join("tests/c/queue.c"), "queue"))
}

/// The C test's command as a Rust program declares it, under the name C gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
struct QueueCommand {
    producer: u64,
    sequence: u64,
    check: u32,
}
// SAFETY: repr(C); the 4 padding bytes at the end are never read as a value.
unsafe impl ringbus::Pod for QueueCommand {}

fn queue_check(producer: u64, sequence: u64) -> u32 {
    (producer.wrapping_mul(2_654_435_761).wrapping_add(sequence.wrapping_mul(40_503)) as u32) ^ 0xABCD
}

/// Starts the C consumer of tests/c/queue.c and waits until it has opened the queue.
/// (`mode`: `consume`, or `consume-waitset` to sleep in a wait set.)
fn c_consumer(
    root: &TestRoot,
    mode: &str,
    producers: &str,
    count: &str,
) -> (std::process::Child, impl Iterator<Item = String>) {
    let exe = queue_program();
    let mut child = c_program(exe).args([mode, root.path(), producers, count]).stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines().map(|l| l.unwrap());
    assert_eq!(lines.next().unwrap(), "ready", "the consumer did not start");
    (child, lines)
}

#[test]
fn bad_queue_calls_fail_with_their_status_and_a_message() {
    let root = TestRoot::new("queue-errors");
    assert_eq!(run(queue_program(), &["errors", root.path()]), "errors ok\n");
}

/// Three C producers and a C consumer, which sleeps in `rb_queue_wait`, then in a wait set.
#[test]
fn c_producers_and_a_c_consumer_share_an_mpsc_queue() {
    for mode in ["consume", "consume-waitset"] {
        let root = TestRoot::new(&format!("queue-{mode}"));
        let (mut consumer, mut lines) = c_consumer(&root, mode, "3", "3000");
        let producers: Vec<_> = (0..3)
            .map(|id| {
                c_program(queue_program()).args(["produce", root.path(), &id.to_string(), "3000"]).spawn().unwrap()
            })
            .collect();
        for mut p in producers {
            assert!(p.wait().unwrap().success(), "a producer failed");
        }
        assert_eq!(lines.next().unwrap(), "consumed 9000", "{mode}");
        assert!(consumer.wait().unwrap().success());
    }
}

/// A Rust producer feeds the C consumer, then a C producer feeds a Rust consumer: both
/// open the queue with the command type C names, the Rust side with its own struct.
#[test]
fn rust_and_c_share_a_queue_both_ways() {
    let root = TestRoot::new("queue-rust");
    let node = ringbus::Node::with_root("rust", &root.0).unwrap();
    let queue = || node.queue::<QueueCommand>("c/commands").type_name("test.command").capacity(64).mpsc();
    let (mut consumer, mut lines) = c_consumer(&root, "consume", "1", "500");
    let mut producer = queue().producer().unwrap();
    for sequence in 0..500 {
        let command = QueueCommand { producer: 0, sequence, check: queue_check(0, sequence) };
        producer.push_timeout(command, Some(std::time::Duration::from_secs(30))).unwrap();
    }
    assert_eq!(lines.next().unwrap(), "consumed 500");
    assert!(consumer.wait().unwrap().success());
    drop(producer);

    let mut consumer = queue().consumer().unwrap();
    let mut c_producer = c_program(queue_program()).args(["produce", root.path(), "5", "500"]).spawn().unwrap();
    for sequence in 0..500 {
        assert!(consumer.wait(Some(std::time::Duration::from_secs(30))), "no command {sequence}");
        let command = consumer.pop().unwrap().unwrap();
        assert_eq!(command, QueueCommand { producer: 5, sequence, check: queue_check(5, sequence) });
    }
    assert!(c_producer.wait().unwrap().success());
    consumer.unlink();
}

/// tests/c/service.c, compiled once for every test that runs it.
fn service_program() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| compile(&crate_dir().join("tests/c/service.c"), "service"))
}

/// The C test's request and response as a Rust program declares them.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct PlanRequest {
    goal: [f64; 2],
    id: u32,
}
// SAFETY: repr(C) of floats and a u32, then padding that carries no meaning.
unsafe impl ringbus::Pod for PlanRequest {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
struct PlanResponse {
    steps: u64,
    id: u32,
}
// SAFETY: as PlanRequest's.
unsafe impl ringbus::Pod for PlanResponse {}

fn steps_for(r: &PlanRequest) -> u64 {
    (r.goal[0] * 10.0 + r.goal[1]) as u64 + r.id as u64
}

/// Starts the C server of tests/c/service.c and waits until it serves.
fn c_server(root: &TestRoot, count: &str) -> (std::process::Child, impl Iterator<Item = String>) {
    let mut child =
        c_program(service_program()).args(["serve", root.path(), count]).stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines().map(|l| l.unwrap());
    assert_eq!(lines.next().unwrap(), "ready", "the server did not start");
    (child, lines)
}

#[test]
fn bad_service_calls_fail_with_their_status_and_a_message() {
    let root = TestRoot::new("service-errors");
    assert_eq!(run(service_program(), &["errors", root.path()]), "errors ok\n");
}

#[test]
fn a_c_client_calls_a_c_server_in_another_process() {
    let root = TestRoot::new("service-processes");
    let (mut server, mut lines) = c_server(&root, "500");
    run(service_program(), &["call", root.path(), "500"]);
    assert_eq!(lines.next().unwrap(), "served 500");
    assert!(server.wait().unwrap().success());
}

/// A Rust client calls the C server, then the C client calls a Rust server: the Rust side
/// names its types as C does.
#[test]
fn rust_and_c_call_each_other() {
    use ringbus::service::{Client, Server};
    let root = TestRoot::new("service-rust");
    let node = ringbus::Node::with_root("rust", &root.0).unwrap();
    let names = ("test.plan_request", "test.plan_response");
    let (mut c, mut lines) = c_server(&root, "200");
    let mut client =
        Client::<PlanRequest, PlanResponse>::with_type_names(&node, "c/plan", 8, names.0, names.1).unwrap();
    for id in 0..200 {
        let request = PlanRequest { goal: [id as f64, 0.5], id };
        let response = client.call(request, std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(response, PlanResponse { steps: steps_for(&request), id });
    }
    assert_eq!(lines.next().unwrap(), "served 200");
    assert!(c.wait().unwrap().success());

    let mut server =
        Server::<PlanRequest, PlanResponse>::with_type_names(&node, "c/plan", 64, names.0, names.1).unwrap();
    let mut c_client = c_program(service_program()).args(["call", root.path(), "200"]).spawn().unwrap();
    let mut served = 0;
    while served < 200 {
        served += server
            .serve_once(Some(std::time::Duration::from_secs(30)), |r| PlanResponse { steps: steps_for(r), id: r.id })
            .unwrap();
    }
    assert!(c_client.wait().unwrap().success());
}
