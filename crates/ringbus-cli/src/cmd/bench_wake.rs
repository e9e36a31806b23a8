//! `ringbus bench wake`: wake latency and waiter CPU per wake for every WaitSet backend
//! in the same run; a markdown table on stdout, optionally JSON and an SVG plot.

use super::bench::{dedup, worker_launcher, OutputArgs};
use anyhow::{bail, Result};
use ringbus_bench::wake::{self, plot, report, WakeBackend, WakeConfig, MAX_COUNT};

pub const LONG_ABOUT: &str = "\
What multiplexing costs: how long a wake takes to reach a process asleep in a ringbus
WaitSet, and how much CPU the sleeper spends per wake, for each backend in the same run.
One waiter process per backend (this binary re-executed) sleeps in WaitSet::wait; this
process wakes the waiters in turn, one wake every 1/--rate s (slow enough that each is
asleep every time), until each had --count measured wakes. Taking turns wake by wake puts
every backend through the same spells of a noisy machine.

  futex        1 shared-memory word; the wait is a plain FUTEX_WAIT (the baseline)
  futex_waitv  8 words, one futex_waitv over all of them; each wake changes a different
               word, round-robin
  io_uring     1 word plus a UDP socket bound on 127.0.0.1 that never receives, attached
               readable: FUTEX_WAITV and POLL_ADD in one ring
  epoll        the same word and socket on the epoll backend: a helper thread sleeps in
               futex_waitv and signals an eventfd the waiter's epoll_wait watches

One wake: the waiter marks itself asleep on a shared board and this process waits until
/proc shows it sleeping in the kernel; then t0 = CLOCK_MONOTONIC, t0 is stored next to the
word, the word is changed (Release) and ringbus::wake(word, 1) is called. The waiter's
latency is its CLOCK_MONOTONIC when wait() has returned the word's event, minus t0: the
wake system call, the scheduler, the backend's return path and the wait set's bookkeeping.
Waiter CPU per wake is getrusage(RUSAGE_SELF) user + system time (every thread of the
waiter, the epoll helper included) over the measured wakes, divided by their number.
Each waiter first gets --warmup unmeasured wakes. Ratios: each p50 / the futex p50; the
target is io_uring (with its fd) within 1.3x of futex at p50.

Placement matters as much as the backend: a wake that crosses CPUs (to an idle one, in a
VM an IPI to a halted vCPU) costs several times one that stays on the waker's CPU, and
unpinned, the scheduler decides that differently from run to run. --cpus W,S pins this
process (the waker) to CPU W and the waiter (with any thread its wait set starts) to S:
--cpus 0,1 measures cross-CPU wakes, --cpus 0,0 same-CPU ones.

A backend this machine refuses (io_uring under seccomp or kernel.io_uring_disabled) is
reported as skipped. Files: a fresh directory ringbus-bench-* under $RINGBUS_ROOT if set,
else under /dev/shm, removed at the end (also on error or Ctrl-C; one left by a killed run
is removed by the next).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench wake                     # 4 backends, 2000 wakes each, 1000 wakes/s in all (about 9 s)
  ringbus bench wake --quick
  ringbus bench wake --cpus 0,1          # waker on CPU 0, waiter on CPU 1: every wake crosses CPUs
  ringbus bench wake --backends futex,io_uring --count 5000 --json wake.json --plot wake.svg";

/// Quick mode: enough wakes for a stable median, the four backends in about 1.5 seconds.
const QUICK_COUNT: u64 = 300;

/// The shared options (`OutputArgs`), worded for this command.
const JSON_HELP: &str = "Also write the rows as a JSON array to FILE. Example: --json wake.json";
const PLOT_HELP: &str = "Also draw wake latency p50 and p99 per backend as an SVG bar chart. Example: --plot wake.svg";
const QUICK_HELP: &str = "300 wakes per backend (unless --count says otherwise): about 1.5 seconds. Example: --quick";

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("json", |a| a.help(JSON_HELP)),
    mut_arg("plot", |a| a.help(PLOT_HELP)),
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct WakeArgs {
    /// Backends to measure, comma-separated (see above). Example: --backends futex,io_uring
    #[arg(long, value_name = "NAME,..", value_delimiter = ',', default_value = "futex,futex_waitv,io_uring,epoll")]
    backends: Vec<WakeBackend>,

    /// Measured wakes per backend, 1 to 1000000 [default: 2000, --quick: 300]. Example: --count 5000
    #[arg(long, value_name = "N")]
    count: Option<u64>,

    /// Wakes per second over all backends (they take turns), 1 to 10000; low enough that each waiter sleeps. Example: --rate 500
    #[arg(long, value_name = "HZ", default_value_t = 1000.0)]
    rate: f64,

    /// Unmeasured wakes first in each backend (page faults, cold caches), up to 100000. Example: --warmup 100
    #[arg(long, value_name = "N", default_value_t = 50)]
    warmup: u64,

    /// Pin the waker (this process) to CPU W and the waiter to CPU S [default: unpinned]. Example: --cpus 0,1
    #[arg(long, value_name = "W,S", value_parser = parse_cpus)]
    cpus: Option<(u32, u32)>,

    #[command(flatten)]
    output: OutputArgs,
}

/// Parses `W,S`: two CPU numbers.
fn parse_cpus(s: &str) -> Result<(u32, u32), String> {
    super::bench::cpu_pair(s, "W,S", super::bench::machine_cpus())
}

impl WakeArgs {
    fn config(&self) -> Result<WakeConfig> {
        if !(self.rate.is_finite() && (1.0..=10_000.0).contains(&self.rate)) {
            bail!("--rate {}: must be 1 to 10000 Hz", self.rate);
        }
        let count = self.count.unwrap_or(if self.output.quick { QUICK_COUNT } else { 2000 });
        if !(1..=MAX_COUNT).contains(&count) {
            bail!("--count {count}: must be 1 to {MAX_COUNT}");
        }
        if self.warmup > 100_000 {
            bail!("--warmup {}: must be at most 100000", self.warmup);
        }
        Ok(WakeConfig {
            backends: dedup(&self.backends),
            count,
            warmup: self.warmup,
            rate_hz: self.rate,
            cpus: self.cpus,
            dir: super::bench::run_parent()?,
            worker: worker_launcher("the waiter process")?,
        })
    }

    pub fn run(self) -> Result<()> {
        let config = self.config()?;
        let outcome = super::bench::measure(true, |bar| wake::run(&config, bar))?;
        super::bench::print_header("wake");
        let placement = match config.cpus {
            Some((w, s)) => format!("waker pinned to CPU {w}, waiter to CPU {s}"),
            None => "waker and waiter unpinned".into(),
        };
        println!(
            "- {} measured wakes per backend after {} warm-up, the backends taking turns at {} wakes/s in all, \
             each waiter asleep in the kernel before its wake; {placement}; times in µs; ratio: p50 ÷ futex p50\n",
            config.count, config.warmup, config.rate_hz
        );
        print!("{}", report::markdown(&outcome.rows));
        if let Some(target) = report::target(&outcome.rows) {
            println!("\n{target}");
        }
        for note in report::notes(&outcome.rows) {
            println!("\nnote: {note}");
        }
        for (b, why) in &outcome.skipped {
            println!("\nskipped {b}: {why}");
        }
        self.output.write(
            |path| ringbus_bench::report::write_json(&outcome.rows, path),
            |path| plot::draw(&outcome.rows, path),
        )
    }
}
