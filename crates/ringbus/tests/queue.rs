//! Command queues between processes: SPSC and MPSC delivery, blocking, exclusivity,
//! system-call counts, a consumer killed with SIGKILL, MPSC producers killed with SIGKILL
//! (one between its claim and its marks), and a hostile consumer position.
//!
//! Children are this test binary re-executed (`RINGBUS_TEST_CHILD=<role>`).

mod common;

use common::*;
use ringbus::diagnostics::SyscallCounter;
use ringbus::{Node, Pod, PushError, QueueError, Wake};
use std::io::BufReader;
use std::os::unix::fs::FileExt;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
struct Command {
    producer: u64,
    sequence: u64,
    check: u64,
}
// SAFETY: repr(C), three u64s: valid for every bit pattern.
unsafe impl Pod for Command {}

fn command(producer: u64, sequence: u64) -> Command {
    Command { producer, sequence, check: producer.wrapping_mul(0x9E37_79B9).wrapping_add(sequence) ^ 0xABCD }
}

const PER_PRODUCER: u64 = 20_000;
const LIMIT: Duration = Duration::from_secs(120);
const PING_PONGS: u64 = 20_000;
/// Commands pushed one at a time to a consumer that waits for each.
const WAITED_FOR: u64 = 200;

#[test]
fn child_entry() {
    let Some(role) = child_role() else { return };
    let node = Node::new(&role).unwrap();
    let mpsc = std::env::var("MPSC").is_ok();
    match role.as_str() {
        "producer" => {
            let id = env_u64("PRODUCER");
            let builder = node.queue::<Command>("jobs").capacity(64);
            let mut producer = if mpsc { builder.mpsc() } else { builder.spsc() }.producer().unwrap();
            let batch: Vec<Command> = (0..PER_PRODUCER).map(|s| command(id, s)).collect();
            let mut sent = 0;
            while sent < batch.len() {
                // Uneven batches, so claims of different producers interleave.
                let end = (sent + 1 + (sent % 7)).min(batch.len());
                let n = producer.push_batch(&batch[sent..end]).unwrap();
                if n == 0 {
                    producer.push_timeout(batch[sent], Some(LIMIT)).unwrap();
                    sent += 1;
                } else {
                    sent += n;
                }
            }
            println!("sent {sent} head reads {}", producer.head_reads());
        }
        "flood" => {
            // Pushes its sequence in uneven batches until it is killed.
            let id = env_u64("PRODUCER");
            let mut producer = node.queue::<Command>("jobs").capacity(64).mpsc().producer().unwrap();
            println!("ready");
            let mut sequence = 0;
            loop {
                let batch: Vec<Command> = (sequence..sequence + 1 + sequence % 7).map(|s| command(id, s)).collect();
                sequence += producer.push_batch(&batch).unwrap() as u64;
            }
        }
        "blocked" => {
            // Fills the queue, then sleeps waiting for room until it is killed.
            let mut producer = node.queue::<Command>("jobs").capacity(4).mpsc().producer().unwrap();
            let mut s = 0;
            while producer.push(command(1, s)).is_ok() {
                s += 1;
            }
            println!("full");
            let _ = producer.push_timeout(command(1, s), None);
        }
        "claimer" => {
            // Pushes 5 commands, then does what a producer killed between its claim and its
            // marks leaves behind: its claim announced in its entry (the first: 1024) and 3
            // positions claimed on the tail (512) — and never writes them.
            let mut producer = node.queue::<Command>("jobs").capacity(64).mpsc().producer().unwrap();
            for s in 0..5 {
                producer.push(command(1, s)).unwrap();
            }
            let path = std::path::Path::new(&std::env::var("RINGBUS_ROOT").unwrap()).join("queue.jobs");
            let file = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
            let mut tail = [0u8; 8];
            file.read_exact_at(&mut tail, 512).unwrap();
            file.write_all_at(&tail, 1024).unwrap();
            file.write_all_at(&(u64::from_le_bytes(tail) + 3).to_le_bytes(), 512).unwrap();
            println!("claimed");
            loop {
                std::thread::park();
            }
        }
        "consumer" => {
            let mut consumer = node.queue::<Command>("jobs").consumer().unwrap();
            println!("ready");
            loop {
                consumer.wait(None);
            }
        }
        "echo" => {
            // Sends back every number it gets, sleeping in `wait` whenever "ping" is empty.
            let mut pings = node.queue::<u64>("ping").consumer().unwrap();
            let mut pongs = node.queue::<u64>("pong").producer().unwrap();
            println!("ready");
            for _ in 0..PING_PONGS {
                assert!(pings.wait(Some(LIMIT)), "echo: no ping for {LIMIT:?}");
                let n = pings.pop().unwrap().unwrap();
                pongs.push_timeout(n, Some(LIMIT)).unwrap();
            }
        }
        "waiter" => {
            // Waits for each of WAITED_FOR numbers in turn (asleep or polling, as the queue says).
            let mut consumer = node.queue::<u64>("waited").consumer().unwrap();
            println!("ready");
            for n in 0..WAITED_FOR {
                assert!(consumer.wait(Some(LIMIT)), "waiter: nothing for {LIMIT:?}");
                assert_eq!(consumer.pop().unwrap(), Some(n));
            }
        }
        other => panic!("unknown role {other}"),
    }
}

/// Pops `producers × PER_PRODUCER` commands, checking each and every producer's order.
fn consume_all(consumer: &mut ringbus::Consumer<Command>, producers: u64) {
    let mut next = vec![0u64; producers as usize];
    let mut got = 0;
    let mut out = [command(0, 0); 16];
    while got < producers * PER_PRODUCER {
        assert!(consumer.wait(Some(LIMIT)), "producers went silent after {got} commands");
        let n = consumer.pop_batch(&mut out).unwrap();
        for c in &out[..n] {
            assert_eq!(*c, command(c.producer, c.sequence), "a torn or foreign command");
            assert_eq!(c.sequence, next[c.producer as usize], "producer {}: out of order or lost", c.producer);
            next[c.producer as usize] += 1;
        }
        got += n as u64;
    }
    assert_eq!(consumer.pop().unwrap(), None, "nothing beyond what was sent");
}

fn run_producers(root: &TestRoot, producers: u64, mpsc: bool) {
    let mut node_env = vec![];
    if mpsc {
        node_env.push(("MPSC", "1".to_string()));
    }
    let node = root.node("consumer");
    let builder = node.queue::<Command>("jobs").capacity(64);
    let mut consumer = if mpsc { builder.mpsc() } else { builder.spsc() }.consumer().unwrap();
    let children: Vec<_> = (0..producers)
        .map(|id| {
            let mut env = node_env.clone();
            env.push(("PRODUCER", id.to_string()));
            spawn_child("child_entry", "producer", root.path(), &env)
        })
        .collect();
    consume_all(&mut consumer, producers);
    for child in children {
        assert!(wait_child(child, LIMIT, "producer").success());
    }
}

#[test]
fn spsc_delivers_every_command_in_order_across_processes() {
    with_watchdog(LIMIT, "spsc", || run_producers(&TestRoot::new(), 1, false));
}

#[test]
fn mpsc_delivers_every_producers_commands_in_order_across_processes() {
    with_watchdog(LIMIT, "mpsc", || run_producers(&TestRoot::new(), 3, true));
}

#[test]
fn a_second_consumer_or_spsc_producer_is_refused_and_settings_must_match() {
    let root = TestRoot::new();
    let node = root.node("q");
    let _consumer = node.queue::<Command>("one").capacity(8).consumer().unwrap();
    let again = node.queue::<Command>("one").consumer().unwrap_err();
    assert!(again.to_string().contains("consumer"), "{again}");
    let _producer = node.queue::<Command>("one").producer().unwrap();
    assert!(node.queue::<Command>("one").producer().is_err(), "SPSC: one producer");
    let bigger = node.queue::<Command>("one").capacity(16).producer().unwrap_err();
    assert!(bigger.to_string().contains("capacity"), "{bigger}");
    let polling = node.queue::<Command>("one").wake(Wake::Never).producer().unwrap_err();
    assert!(polling.to_string().contains("wake"), "{polling}");
    let other_type = node.queue::<u64>("one").producer().unwrap_err();
    assert!(matches!(other_type, ringbus::OpenError::TypeMismatch { .. }), "{other_type}");
    assert!(node.queue::<Command>("bad").capacity(3).consumer().is_err());
    let max = ringbus::queue::MAX_QUEUE_PRODUCERS;
    let mut many: Vec<_> = (0..max).map(|_| node.queue::<u64>("many").mpsc().producer().unwrap()).collect();
    let too_many = node.queue::<u64>("many").mpsc().producer().unwrap_err();
    assert!(matches!(too_many, ringbus::OpenError::TooMany { limit, .. } if limit == max), "{too_many}");
    many.pop();
    many.push(node.queue::<u64>("many").mpsc().producer().expect("a departed producer's entry is free again"));
}

#[test]
fn push_and_pop_make_no_system_call_when_nobody_sleeps() {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut consumer = node.queue::<u64>("quiet").capacity(16).consumer().unwrap();
    let mut producer = node.queue::<u64>("quiet").producer().unwrap();
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    let start = counter.start().unwrap();
    for i in 0..10 {
        producer.push(i).unwrap();
    }
    let mut out = [0u64; 10];
    assert_eq!(consumer.pop_batch(&mut out).unwrap(), 10);
    assert_eq!(counter.since(start).unwrap(), 0);
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(producer.head_reads(), 0, "10 pushes into 16 slots never needed the consumer's position");
}

/// Pushes WAITED_FOR numbers one at a time, each after a pause in which the consumer
/// process goes back to waiting; returns the system calls the pushes made.
fn push_to_a_waiting_consumer(wake: Wake) -> u64 {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut producer = node.queue::<u64>("waited").capacity(1024).wake(wake).producer().unwrap();
    let mut waiter = spawn_child("child_entry", "waiter", root.path(), &[]);
    // Kept open until the child has exited: its test harness prints to it at the end.
    let mut waiter_out = BufReader::new(waiter.stdout.take().unwrap());
    read_until_line(&mut waiter_out, "ready");
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    let mut syscalls = 0;
    for n in 0..WAITED_FOR {
        std::thread::sleep(Duration::from_millis(1));
        let start = counter.start().unwrap();
        producer.push(n).unwrap();
        syscalls += counter.since(start).unwrap();
    }
    assert!(wait_child(waiter, LIMIT, "waiter").success(), "the waiter got every number, in order");
    drop(waiter_out);
    syscalls
}

/// A `Wake::Never` queue is never rung: its consumer's `wait` polls, so pushes make no
/// system call while it waits — where a queue whose consumer sleeps needs wake calls.
#[test]
fn a_polling_queue_makes_no_system_call_while_its_consumer_waits() {
    with_watchdog(LIMIT, "polling queue", || {
        assert_eq!(push_to_a_waiting_consumer(Wake::Never), 0);
        let woke = push_to_a_waiting_consumer(Wake::OnData);
        assert!(woke > 0, "a sleeping consumer is woken by system calls ({woke} made)");
    });
}

#[test]
fn a_full_queue_blocks_until_the_consumer_makes_room() {
    for wake in [Wake::OnData, Wake::Never] {
        full_queue_blocks(wake);
    }
}

fn full_queue_blocks(wake: Wake) {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut producer = node.queue::<u64>("full").capacity(4).wake(wake).producer().unwrap();
    for i in 0..4 {
        producer.push(i).unwrap();
    }
    assert_eq!(producer.push(9), Err(PushError::Full(9)));
    assert_eq!(producer.push_timeout(9, Some(Duration::from_millis(20))), Err(PushError::Full(9)));
    let path = root.path().to_path_buf();
    let popper = std::thread::spawn(move || {
        let node = Node::with_root("popper", &path).unwrap();
        let mut consumer = node.queue::<u64>("full").consumer().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let mut got = Vec::new();
        while got.len() < 5 {
            if consumer.wait(Some(LIMIT)) {
                got.extend(consumer.pop().unwrap());
            }
        }
        got
    });
    producer.push_timeout(4, Some(LIMIT)).unwrap();
    assert_eq!(popper.join().unwrap(), [0, 1, 2, 3, 4], "{wake:?}");
    let mut consumer = node.queue::<u64>("full").consumer().unwrap();
    assert!(!consumer.wait(Some(Duration::from_millis(20))), "{wake:?}: an empty queue's wait times out");
}

#[test]
fn a_sigkilled_consumer_is_replaced_and_nothing_is_lost() {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut producer = node.queue::<Command>("jobs").capacity(64).producer().unwrap();
    let mut child = spawn_child("child_entry", "consumer", root.path(), &[]);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    read_until_line(&mut out, "ready");
    assert!(producer.consumer_alive());
    // The child waits on an empty queue; kill it asleep.
    std::thread::sleep(Duration::from_millis(50));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!producer.consumer_alive());
    for s in 0..10 {
        producer.push(command(0, s)).unwrap();
    }
    let mut consumer = node.queue::<Command>("jobs").consumer().unwrap();
    let mut got = [command(0, 0); 10];
    assert_eq!(consumer.pop_batch(&mut got).unwrap(), 10);
    assert!(got.iter().enumerate().all(|(i, c)| *c == command(0, i as u64)));
}

/// A hostile consumer writes impossible head positions while a producer pushes and an
/// honest consumer pops, 10^6 operations: the producer reports `Corrupted` (or, when its
/// cached position suffices, goes on without looking), and never overwrites a command
/// that was not popped: every command pushed is popped once, in order.
#[test]
fn a_hostile_consumer_position_never_makes_the_producer_overwrite() {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut consumer = node.queue::<u64>("hostile").capacity(16).consumer().unwrap();
    let mut producer = node.queue::<u64>("hostile").producer().unwrap();
    let file = std::fs::OpenOptions::new().read(true).write(true).open(root.file_path("queue.hostile")).unwrap();
    const HEAD_OFFSET: u64 = 640;
    let write_head = |v: u64| file.write_all_at(&v.to_le_bytes(), HEAD_OFFSET).unwrap();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut step = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let (mut pushed, mut popped, mut corrupted_seen) = (0u64, 0u64, 0u64);
    for _ in 0..1_000_000u32 {
        match step() % 4 {
            0 | 1 => {
                // A bogus head: beyond the tail, or behind what was already popped.
                let bogus =
                    if step() % 2 == 0 { pushed + 1 + step() % 1000 } else { popped.saturating_sub(1 + step() % 5) };
                let bogus = if bogus == popped { pushed + 1 } else { bogus };
                write_head(bogus);
                match producer.push(pushed) {
                    Ok(()) => pushed += 1,
                    // A head behind the truth but not behind the producer's cached one is
                    // indistinguishable from a slow consumer: it can only make room look
                    // smaller, never larger.
                    Err(PushError::Full(_)) => {
                        assert!(bogus < popped, "full with head {bogus} beyond the truth {popped}")
                    }
                    Err(PushError::Queue(QueueError::Corrupted(c))) => {
                        assert_eq!(c.what, "consumer position");
                        corrupted_seen += 1;
                    }
                    Err(e) => panic!("a push of a whole command failed with {e}"),
                }
                write_head(popped); // the honest consumer's true position
            }
            2 => match producer.push(pushed) {
                Ok(()) => pushed += 1,
                Err(PushError::Full(_)) => assert_eq!(pushed - popped, 16),
                Err(e) => panic!("with an honest head: {e}"),
            },
            _ => {
                if let Some(v) = consumer.pop().unwrap() {
                    assert_eq!(v, popped, "a command was overwritten or lost");
                    popped += 1;
                }
            }
        }
    }
    while let Some(v) = consumer.pop().unwrap() {
        assert_eq!(v, popped);
        popped += 1;
    }
    assert_eq!(popped, pushed);
    assert!(corrupted_seen > 1000, "the bogus heads were noticed ({corrupted_seen} times)");
    assert!(pushed > 100_000, "work got done ({pushed} pushed)");
}

/// An MPSC producer killed between claiming 3 positions and writing them: while it
/// lives, the consumer waits for them (nothing skipped); once it is dead, the consumer
/// skips exactly those 3 and gets every command of the live producer, in order.
#[test]
fn an_mpsc_producer_killed_between_claim_and_write_does_not_stall_the_consumer() {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut consumer = node.queue::<Command>("jobs").capacity(64).mpsc().consumer().unwrap();
    let mut claimer = spawn_child("child_entry", "claimer", root.path(), &[]);
    read_until_line(&mut BufReader::new(claimer.stdout.take().unwrap()), "claimed");
    let mut producer = node.queue::<Command>("jobs").mpsc().producer().unwrap();
    for s in 0..10 {
        producer.push(command(0, s)).unwrap();
    }
    let mut out = [command(0, 0); 16];
    assert_eq!(consumer.pop_batch(&mut out).unwrap(), 5, "the claimer's commands, up to its claim");
    assert!(out[..5].iter().enumerate().all(|(s, c)| *c == command(1, s as u64)));
    assert!(!consumer.wait(Some(Duration::from_millis(30))), "the claimer lives: its claim may yet be written");
    assert_eq!((consumer.pop_batch(&mut out).unwrap(), consumer.abandoned()), (0, 0));
    let producers_alive = || {
        let snap = ringbus::inspect::snapshot(&ringbus::Root::open(root.path()).unwrap());
        snap.queues[0].producers_alive
    };
    assert_eq!(producers_alive(), 2);
    claimer.kill().unwrap();
    claimer.wait().unwrap();
    assert_eq!(producers_alive(), 1, "the claimer's entry is free again");
    assert!(consumer.wait(Some(LIMIT)), "stalled behind a dead producer's claim");
    let mut got = Vec::new();
    while got.len() < 10 {
        assert!(consumer.wait(Some(LIMIT)));
        let n = consumer.pop_batch(&mut out).unwrap();
        got.extend_from_slice(&out[..n]);
    }
    assert_eq!(got, (0..10).map(|s| command(0, s)).collect::<Vec<_>>());
    assert_eq!(consumer.abandoned(), 3);
}

/// Checks one popped batch command by command (a batch may hold several commands of one
/// producer): each is intact and the next of its producer's sequence.
fn check_in_order(batch: &[Command], next: &mut [u64; 4], round: usize) {
    for c in batch {
        assert_eq!(*c, command(c.producer, c.sequence), "round {round}: a torn or foreign command");
        assert_eq!(c.sequence, next[c.producer as usize], "round {round}: producer {} out of order", c.producer);
        next[c.producer as usize] += 1;
    }
}

/// `ringbus::clean` removes a queue only when it is empty and nobody holds it: the queue of
/// a consumer process killed with SIGKILL goes; one whose producer left commands in it
/// stays (and its next consumer gets them); one a live consumer holds stays.
#[test]
fn clean_removes_only_empty_queues_nobody_holds() {
    let root = TestRoot::new();
    let mut consumer = spawn_child("child_entry", "consumer", root.path(), &[]);
    let mut consumer_out = BufReader::new(consumer.stdout.take().unwrap());
    read_until_line(&mut consumer_out, "ready");
    let node = root.node("q");
    let mut producer = node.queue::<Command>("pending").producer().unwrap();
    for s in 0..3 {
        producer.push(command(7, s)).unwrap();
    }
    drop(producer);
    let _held = node.queue::<Command>("held").consumer().unwrap();
    let sweep = || {
        let report = ringbus::clean(&ringbus::Root::open(root.path()).unwrap()).unwrap();
        report
            .removed
            .into_iter()
            .map(|(path, _)| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
    };
    assert!(sweep().iter().all(|f| !f.starts_with("queue.")), "the consumer of jobs is alive");
    consumer.kill().unwrap();
    consumer.wait().unwrap();
    drop(consumer_out);
    assert_eq!(sweep().into_iter().filter(|f| f.starts_with("queue.")).collect::<Vec<_>>(), ["queue.jobs"]);
    assert!(!root.path().join("queue.jobs").exists());
    assert!(root.path().join("queue.pending").exists() && root.path().join("queue.held").exists());
    let mut next = node.queue::<Command>("pending").consumer().unwrap();
    let mut out = [command(0, 0); 4];
    assert_eq!(next.pop_batch(&mut out).unwrap(), 3, "the commands left in a queue nobody held are kept");
    assert_eq!(out[..3], [command(7, 0), command(7, 1), command(7, 2)]);
}

/// Two processes bounce a number through two queues 20 000 times, each going to sleep in
/// `wait` between turns: every turn is a wake-up across processes (the doorbell's
/// store→fence→load on both sides). One lost wake-up leaves both asleep, and the
/// watchdog fails the test instead of a hang.
#[test]
fn ping_pong_between_sleeping_processes_loses_no_wake_up() {
    let root = TestRoot::new();
    let node = root.node("pinger");
    let mut pings = node.queue::<u64>("ping").capacity(2).producer().unwrap();
    let mut pongs = node.queue::<u64>("pong").capacity(2).consumer().unwrap();
    let mut echo = spawn_child("child_entry", "echo", root.path(), &[]);
    // Kept open until the child has exited: its test harness prints to it at the end.
    let mut echo_out = BufReader::new(echo.stdout.take().unwrap());
    read_until_line(&mut echo_out, "ready");
    let turns = with_watchdog(LIMIT, "ping-pong", move || {
        for n in 0..PING_PONGS {
            pings.push(n).unwrap();
            assert!(pongs.wait(Some(Duration::from_secs(30))), "turn {n}: no pong (a lost wake-up)");
            assert_eq!(pongs.pop().unwrap(), Some(n));
        }
        PING_PONGS
    });
    assert_eq!(turns, PING_PONGS);
    assert!(wait_child(echo, LIMIT, "echo").success());
    drop(echo_out);
}

/// Rounds of 3 MPSC producer processes killed with SIGKILL at random moments while a
/// fourth pushes its 20 000 commands: the consumer never hangs, gets all of the
/// survivor's in order, and of each killed producer an unbroken prefix of its sequence.
#[test]
fn mpsc_producers_killed_at_random_never_stall_or_garble_the_queue() {
    let root = TestRoot::new();
    let node = root.node("consumer");
    let mut consumer = node.queue::<Command>("jobs").capacity(64).mpsc().consumer().unwrap();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ std::process::id() as u64;
    let random = |rng: &mut u64| {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    };
    for round in 0..5 {
        let env = |id: u64| vec![("MPSC", "1".to_string()), ("PRODUCER", id.to_string())];
        let survivor = spawn_child("child_entry", "producer", root.path(), &env(0));
        let mut floods: Vec<_> = (1..4).map(|id| spawn_child("child_entry", "flood", root.path(), &env(id))).collect();
        let mut next = [0u64; 4];
        let mut out = [command(0, 0); 16];
        // Each flood is killed once the survivor has delivered a random share of its commands.
        let mut kill_at: Vec<u64> = floods.iter().map(|_| random(&mut rng) % PER_PRODUCER).collect();
        kill_at.sort_unstable_by(|a, b| b.cmp(a));
        while next[0] < PER_PRODUCER || !floods.is_empty() {
            if kill_at.last().is_some_and(|&at| next[0] >= at) {
                kill_at.pop();
                let mut flood = floods.pop().unwrap();
                flood.kill().unwrap();
                flood.wait().unwrap();
            }
            if !consumer.wait(Some(Duration::from_millis(if next[0] < PER_PRODUCER { 120_000 } else { 1 }))) {
                continue;
            }
            let n = consumer.pop_batch(&mut out).unwrap();
            check_in_order(&out[..n], &mut next, round);
        }
        assert!(wait_child(survivor, LIMIT, "survivor").success());
        // What the dead claimed and never wrote is skipped once the grace has passed.
        while consumer.wait(Some(Duration::from_millis(50))) {
            let n = consumer.pop_batch(&mut out).unwrap();
            assert!(out[..n].iter().all(|c| c.producer != 0), "round {round}: the survivor pushed more than it has");
            check_in_order(&out[..n], &mut next, round);
        }
        eprintln!(
            "round {round}: killed producers got {:?} through; {} positions abandoned so far",
            &next[1..],
            consumer.abandoned()
        );
    }
}

/// An MPSC producer killed asleep waiting for room leaves its bit in the space doorbell's
/// sleepers; the next producer to take its entry clears it, and pops are back to 0
/// system calls (a count could not have told whose sleep was left behind).
#[test]
fn a_producer_killed_asleep_does_not_leave_pops_making_system_calls() {
    let root = TestRoot::new();
    let node = root.node("q");
    let mut consumer = node.queue::<Command>("jobs").capacity(4).mpsc().consumer().unwrap();
    let mut blocked = spawn_child("child_entry", "blocked", root.path(), &[]);
    read_until_line(&mut BufReader::new(blocked.stdout.take().unwrap()), "full");
    let waiting = || ringbus::inspect::snapshot(&ringbus::Root::open(root.path()).unwrap()).queues[0].producers_waiting;
    wait_until(LIMIT, "the producer asleep", || waiting() == 1);
    blocked.kill().unwrap();
    blocked.wait().unwrap();
    assert_eq!(waiting(), 1, "its bit stays until its entry is taken over");
    let mut producer = node.queue::<Command>("jobs").mpsc().producer().unwrap();
    assert_eq!(waiting(), 0, "the new holder of the entry cleared it");
    let counter = SyscallCounter::for_this_thread().expect("exact syscall counting needs the perf tracepoint");
    let start = counter.start().unwrap();
    let mut out = [command(0, 0); 4];
    assert_eq!(consumer.pop_batch(&mut out).unwrap(), 4);
    producer.push(command(0, 0)).unwrap();
    assert_eq!(consumer.pop().unwrap(), Some(command(0, 0)));
    assert_eq!(counter.since(start).unwrap(), 0, "no wake for a sleeper that is gone");
}
