//! `ringbus bench record`: what recording costs. Publishers (threads of this process, one
//! per topic) publish at a fixed rate without a recorder, with `ringbus record` attached
//! (a process of its own), and without again, in one run; reported: their publish times
//! in each phase and the ratio, the recorder's CPU time per message (getrusage of its
//! process) and the messages it lost.

use super::output::{bytes, counted, quantile};
use anyhow::Context;
use ringbus::{inspect, Node, Publisher};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const LONG_ABOUT: &str = "\
What recording costs the publishers and the machine. --topics publisher threads (one topic
each, messages of --size random bytes at --hz) publish for --seconds without a recorder,
then as long with `ringbus record` (a process of its own, reliable polling subscribers,
chunks compressed with --compression) attached to every topic, then as long without again,
in one run.

Per phase, each publish is timed twice: `publish` from before the loan to publish()
returned, the message's bytes written into the loan in between (memcpy from a prepared
buffer); `loan+publish` the same without the write. Reported: p50 and p99 of each, the
ratio of the p50s with and without the recorder (target ≤ 1.1), the recorder's CPU time
(user + system, getrusage of its process, start-up and idle polling included) per message
it wrote, and the messages lost: published while it was attached and not in the file
(0 expected: its subscribers are reliable).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench record --quick                     # 1 s per phase, a few seconds in all
  ringbus bench record                             # 4 topics × 1 MiB × 100 Hz, 5 s per phase
  ringbus bench record --compression lz4 --json record.json";

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct RecordBenchArgs {
    /// Topics, each with a publisher thread of its own, 1 to 16.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16))]
    topics: u32,
    /// Message size (random bytes): 64, 4KiB, 1MiB, ... up to 1GiB.
    #[arg(long, value_name = "SIZE", default_value = "1MiB", value_parser = ringbus_bench::config::parse_size)]
    size: u64,
    /// Messages per second on each topic.
    #[arg(long, value_name = "HZ", default_value_t = 100.0, value_parser = super::numbers::hertz)]
    hz: f64,
    /// Length of each of the three phases [default: 5 s, --quick: 1 s].
    #[arg(long, value_name = "DURATION", value_parser = super::numbers::seconds)]
    seconds: Option<f64>,
    /// The recorder's chunk compression.
    #[arg(long, default_value = "zstd", value_parser = ["zstd", "lz4", "none"])]
    compression: String,
    /// Directory for the recording (removed afterwards) [default: the temporary directory].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// One second per phase: enough to check it works, too short for figures to quote.
    #[arg(long)]
    quick: bool,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// One publish: from before the loan to publish() returned, and without the write.
#[derive(Debug, Default)]
struct Times {
    publish_ns: Vec<u64>,
    loan_publish_ns: Vec<u64>,
}

impl Times {
    fn merge(mut self, other: Times) -> Times {
        self.publish_ns.extend(other.publish_ns);
        self.loan_publish_ns.extend(other.loan_publish_ns);
        self
    }

    /// (publish p50, p99, loan+publish p50, p99) in µs.
    fn summary(&mut self) -> [f64; 4] {
        self.publish_ns.sort_unstable();
        self.loan_publish_ns.sort_unstable();
        let us = |v: &[u64], q| quantile(v, q) as f64 / 1000.0;
        [
            us(&self.publish_ns, 0.5),
            us(&self.publish_ns, 0.99),
            us(&self.loan_publish_ns, 0.5),
            us(&self.loan_publish_ns, 0.99),
        ]
    }
}

/// A directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl RecordBenchArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let seconds = self.seconds.unwrap_or(if self.quick { 1.0 } else { 5.0 });
        let count = (seconds * self.hz).ceil().max(1.0) as u64;
        let root = Scratch(PathBuf::from(format!("/dev/shm/ringbus-bench-record-{}", std::process::id())));
        let base = self.dir.clone().unwrap_or_else(std::env::temp_dir);
        let out = Scratch(base.join(format!("ringbus-bench-record-{}", std::process::id())));
        ringbus::create_private_dir(&root.0).context("create the bench's root")?;
        std::fs::create_dir_all(&out.0).with_context(|| format!("create {}", out.0.display()))?;
        let node = Node::with_root("bench-record", &root.0)?;
        let names: Vec<String> = (0..self.topics).map(|k| format!("bench/record/{k}")).collect();
        let mut publishers = names
            .iter()
            .map(|n| node.topic(n).max_payload_bytes(self.size).publisher())
            .collect::<Result<Vec<_>, _>>()?;
        let payload = random_bytes(self.size as usize);
        eprintln!(
            "{} × {} at {} Hz, {seconds} s per phase",
            counted(self.topics.into(), "topic"),
            bytes(self.size as f64),
            self.hz
        );

        let before = self.phase(&mut publishers, &payload, count);
        let file = out.0.join("bench.mcap");
        let recorder = self.start_recorder(&root.0, &names, &file)?;
        wait_for(&node, &names, |t| t.reliable_subscribers == 1, "the recorder to subscribe")?;
        let mut with = self.phase(&mut publishers, &payload, count);
        wait_for(&node, &names, |t| t.subscribers.iter().all(|s| s.taken >= count), "the recorder to catch up")?;
        let cpu_s = stop(recorder)?;
        let mut without = before.merge(self.phase(&mut publishers, &payload, count));
        let recorded = recorded_messages(&file)?;
        let file_bytes = std::fs::metadata(&file)?.len();
        let sent = count * u64::from(self.topics);
        self.report(&mut without, &mut with, cpu_s, sent, recorded, file_bytes)
    }

    /// Every publisher publishes `count` messages at the rate, each in a thread of its own.
    fn phase(&self, publishers: &mut [Publisher], payload: &[u8], count: u64) -> Times {
        let period = Duration::from_secs_f64(1.0 / self.hz);
        std::thread::scope(|s| {
            let threads: Vec<_> =
                publishers.iter_mut().map(|p| s.spawn(move || publish(p, payload, count, period))).collect();
            threads.into_iter().map(|t| t.join().expect("publisher thread")).fold(Times::default(), Times::merge)
        })
    }

    fn start_recorder(&self, root: &Path, names: &[String], file: &Path) -> anyhow::Result<std::process::Child> {
        let me = std::env::current_exe().context("cannot find this executable to start the recorder")?;
        Command::new(me)
            .arg("record")
            .args(names)
            .args(["--compression", &self.compression, "-o"])
            .arg(file)
            .env(ringbus::ROOT_ENV, root)
            .stdout(Stdio::null())
            .spawn()
            .context("start the recorder")
    }

    fn report(
        &self,
        without: &mut Times,
        with: &mut Times,
        cpu_s: f64,
        sent: u64,
        recorded: u64,
        file_bytes: u64,
    ) -> anyhow::Result<()> {
        let (a, b) = (without.summary(), with.summary());
        println!("| phase | publishes | publish p50 (µs) | p99 | loan+publish p50 (µs) | p99 |");
        println!("|---|---:|---:|---:|---:|---:|");
        for (phase, n, s) in
            [("without recorder", without.publish_ns.len(), a), ("with recorder", with.publish_ns.len(), b)]
        {
            println!("| {phase} | {n} | {:.1} | {:.1} | {:.2} | {:.2} |", s[0], s[1], s[2], s[3]);
        }
        let ratio = b[0] / a[0];
        let cpu_per_message_us = cpu_s * 1e6 / recorded.max(1) as f64;
        let lost = sent.saturating_sub(recorded);
        println!();
        println!("publish p50 with ÷ without the recorder: {ratio:.2} (target ≤ 1.1)");
        println!("recorder CPU: {cpu_s:.2} s for {recorded} messages = {cpu_per_message_us:.0} µs per message");
        println!(
            "messages lost: {lost} of {sent}; file {} ({} compression)",
            bytes(file_bytes as f64),
            self.compression
        );
        if let Some(path) = &self.json {
            let value = json!({
                "topics": self.topics, "size_bytes": self.size, "hz": self.hz,
                "without": {"publishes": without.publish_ns.len(), "publish_p50_us": a[0], "publish_p99_us": a[1],
                            "loan_publish_p50_us": a[2], "loan_publish_p99_us": a[3]},
                "with": {"publishes": with.publish_ns.len(), "publish_p50_us": b[0], "publish_p99_us": b[1],
                         "loan_publish_p50_us": b[2], "loan_publish_p99_us": b[3]},
                "publish_p50_ratio": ratio, "recorder_cpu_s": cpu_s, "recorder_cpu_per_message_us": cpu_per_message_us,
                "sent": sent, "recorded": recorded, "lost": lost, "file_bytes": file_bytes, "compression": self.compression,
            });
            std::fs::write(path, serde_json::to_string_pretty(&value)?)
                .with_context(|| format!("write {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
        Ok(())
    }
}

/// Publishes `count` copies of `payload` (its first 8 bytes the message's number), one per
/// `period`, timing each.
fn publish(publisher: &mut Publisher, payload: &[u8], count: u64, period: Duration) -> Times {
    let mut times = Times::default();
    let start = Instant::now();
    for i in 0..count {
        std::thread::sleep((start + period.mul_f64(i as f64)).saturating_duration_since(Instant::now()));
        let t0 = Instant::now();
        let mut loan = publisher.loan_uninit(payload.len()).expect("a loan");
        let t1 = Instant::now();
        loan.copy_from_slice(payload);
        loan[..8.min(payload.len())].copy_from_slice(&i.to_le_bytes()[..8.min(payload.len())]);
        let t2 = Instant::now();
        loan.publish();
        let t3 = Instant::now();
        times.publish_ns.push((t3 - t0).as_nanos() as u64);
        times.loan_publish_ns.push(((t1 - t0) + (t3 - t2)).as_nanos() as u64);
    }
    times
}

/// Waits (at most a minute) until `cond` holds for every topic of `names`.
fn wait_for(
    node: &Node,
    names: &[String],
    cond: impl Fn(&inspect::TopicInfo) -> bool,
    what: &str,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut all = true;
        for name in names {
            all &= inspect::topic(node.root(), name)?.is_some_and(|t| cond(&t));
        }
        if all {
            return Ok(());
        }
        anyhow::ensure!(Instant::now() < deadline, "waited a minute for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Stops the recorder with SIGINT and waits for it; its CPU time (user + system) in seconds.
fn stop(recorder: std::process::Child) -> anyhow::Result<f64> {
    let pid = recorder.id() as i32;
    // SAFETY: kill(2) and wait4(2) on our own child, not yet reaped (std never waited for
    // it), with a status word and an rusage of our own.
    let (status, usage) = unsafe {
        libc::kill(pid, libc::SIGINT);
        let mut status = 0;
        let mut usage: libc::rusage = std::mem::zeroed();
        anyhow::ensure!(libc::wait4(pid, &mut status, 0, &mut usage) == pid, "wait for the recorder");
        (status, usage)
    };
    anyhow::ensure!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "the recorder failed ({status:#x})");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// Messages in the recording, as `ringbus mcap info --json` counts them.
fn recorded_messages(file: &Path) -> anyhow::Result<u64> {
    let me = std::env::current_exe()?;
    let out = Command::new(me).args(["mcap", "info", "--json"]).arg(file).output()?;
    anyhow::ensure!(out.status.success(), "mcap info: {}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    info["messages"].as_u64().context("mcap info --json gives messages")
}

/// `n` random bytes (xorshift64*: incompressible for the recorder's compression).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}
