//! `ringbus bench fanout`: one publisher, N subscriber processes, every transport through
//! the same harness; a markdown table and a verdict computed from it on stdout (or the
//! table in a file and the verdict on stdout), optionally JSON and an SVG plot.

use super::bench::{dedup, worker_launcher, OutputArgs};
use anyhow::{bail, Context, Result};
use ringbus_bench::config::{self, parse_size, parse_subs, Transport};
use ringbus_bench::{fanout, report, FanoutConfig};
use std::fmt::Write as _;
use std::path::PathBuf;

pub const LONG_ABOUT: &str = "\
Publish latency and end-to-end latency against the number of subscriber processes, for
ringbus and for baselines measured in the same run through the same harness (Agnocast's
fan-out experiment). This process publishes; each subscriber is a separate process (this
binary re-executed) blocked waiting for data.

Transports:
  ringbus          subscribers asleep in receive(); a publish is loan_uninit + 16-byte header
                   + publish(): one futex wake for any number of sleepers
  ringbus-reliable the same with the first K subscribers reliable (--reliable K, below); only
                   measured with --reliable
  ringbus-polling  subscribers never woken (Wake::Never), polling take() every 1 ms; publishing
                   makes no system call (e2e is dominated by the poll period)
  eventfd          payload written in place in a 64-slot shared-memory ring, then one write()
                   per subscriber eventfd
  futex            same ring, then ringbus's wake protocol and nothing else of ringbus: one
                   shared futex word per topic, a sleepers count, wake 2 and a relay token for
                   the first woken to wake the rest (--direct-wakes applies): the floor of
                   ringbus's design on this machine. ringbus rows show their e2e p50 over its,
                   and its own rows their ratios to eventfd
  mq               same ring, then one mq_send() per subscriber POSIX message queue
  uds              one AF_UNIX datagram (a full copy of the payload) per subscriber
  idle-floor       no transport, no subscriber: each tick writes one cache line of a private
                   buffer. After the same idle, the least any publish can cost on this machine;
                   ringbus rows show their publish p50 as a multiple of it

Measured per publish: t1 - t0 around the publish call, and the exact number of system calls
the publishing thread made in between (perf tracepoint raw_syscalls:sys_enter; needs root or
kernel.perf_event_paranoid=-1, otherwise reported as n/a). Per subscriber and message: e2e =
its CLOCK_MONOTONIC once it has the payload minus t0. \"last e2e\" is, per message, the slowest
subscriber. Each scenario first sends --warmup unmeasured messages.

Repetitions: with --repeat N the whole sweep runs N times, pass after pass (fresh subscriber
processes each time), every other pass backwards (so no pass starts right after the heaviest
scenario, and each pair of transports runs in both orders). A row then shows the median of
each figure over the passes, and its ratios are the median of the ratios within one pass,
where ringbus and eventfd ran seconds apart: on a shared machine that is what keeps a slow
stretch from landing on one side only.

Topics: with --topics T, every tick publishes one message on each of the T topics, and
subscriber i listens to topic i % T (so with T > N some topics have no subscriber). Topic t's
e2e starts at its own t0, after the publishes of topics 0..t, so a slow publisher makes its
later topics' e2e look short; the table then adds \"tick e2e\", measured from the first
topic's t0 of the same tick (JSON tick_e2e_p50_us, tick_e2e_p99_us, tick_e2e_p50_vs_eventfd).

Reliable subscribers: with --reliable K, a ringbus-reliable row is measured next to each
ringbus row, moments apart in every pass, the same in every way except that the first K
subscriber processes of the scenario open their topic reliable (TopicBuilder::reliable;
with --topics, one per topic in turn): the publisher never overwrites a message they have
not taken, and its loan waits for room instead (WhenFull::Wait, the default). Its extra
columns: reliable subs (K); blocked, the measured publishes whose loan had to wait (0 while
the subscribers keep up; a wait counts in its publish time); and its publish p50 and e2e p50
over the ringbus row's, each the median of the ratios within one pass (JSON reliable_subs,
blocked, blocked_ns, publish_p50_vs_ringbus, e2e_p50_vs_ringbus; other rows have none of
these keys). K must be at most the smallest --subs; 0, the default, measures none.

Verdict: the report ends with a few lines computed from this run's rows (smallest payload):
publish p50 against N for ringbus and eventfd, system calls per publish, e2e p50 over
eventfd's and over the futex floor's at each N (on par: within 10%), what polling
subscribers cost to publish to, and how the largest payload compares. It says where ringbus
is not ahead. With --markdown FILE the table goes to FILE and stdout gets only the verdict.";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench fanout --quick
  ringbus bench fanout --quick --markdown fanout.md --json fanout.json
  ringbus bench fanout --subs 16 --count 200 --rate 200 --size 64,1MiB
  ringbus bench fanout --topics 10 --subs 4,8,16,32,64,128 --json fanout.json --plot fanout.svg
  ringbus bench fanout --transports ringbus,eventfd --subs 2 --count 20 --rate 500
  ringbus bench fanout --transports ringbus,eventfd --subs 16,64,128 --size 64 --repeat 7
  ringbus bench fanout --transports ringbus,futex,eventfd --subs 16 --size 64 --repeat 5
  ringbus bench fanout --transports ringbus,eventfd --subs 1,16 --size 64 --reliable 1 --repeat 5
  ringbus bench fanout --topics 10 --subs 16,64,128 --size 64 --transports ringbus,eventfd --direct-wakes 16";

/// Quick mode: three passes of 50 messages (150 per point, as many as one pass of 150 but
/// with ratios paired per pass), paced fast enough for the whole default sweep to finish
/// in under a minute on two cores.
const QUICK_COUNT: u64 = 50;
const QUICK_REPEAT: u32 = 3;
const QUICK_RATE_HZ: f64 = 500.0;
/// In quick mode, payloads above this are measured only for these transports (uds copies
/// the payload once per subscriber, ~16 ms per publish at 1MiB × 64; ringbus-polling's
/// e2e is its poll period whatever the size).
const QUICK_LARGE_BYTES: u64 = 64 << 10;
const QUICK_LARGE: [Transport; 4] = [Transport::Ringbus, Transport::RingbusReliable, Transport::Eventfd, Transport::Mq];

/// The shared options (`OutputArgs`), worded for this command.
const JSON_HELP: &str = "Also write the rows as a JSON array to FILE. Example: --json fanout.json";
const PLOT_HELP: &str =
    "Also draw publish p50 and e2e p50 vs subscribers (log scale) as SVG. Example: --plot fanout.svg";
const QUICK_HELP: &str = "Fewer messages at a faster rate in three passes, and payloads over 64KiB only for ringbus, \
    eventfd and mq (unless --transports is given): the default sweep in under a minute. Example: --quick";

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("json", |a| a.help(JSON_HELP)),
    mut_arg("plot", |a| a.help(PLOT_HELP)),
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct FanoutArgs {
    /// Subscriber process counts to sweep, comma-separated, each 1 to 1024. Example: --subs 1,8,64
    #[arg(long, value_name = "N,..", value_delimiter = ',', value_parser = parse_subs, default_value = "1,4,16,64,128")]
    subs: Vec<u32>,

    /// Topics published per tick; subscriber i listens to topic i % T. Example: --topics 10
    #[arg(long, value_name = "T", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    topics: u32,

    /// Ticks per second (each tick: one message per topic) [default: 100, --quick: 500]. Example: --rate 200
    #[arg(long, value_name = "HZ")]
    rate: Option<f64>,

    /// Payload sizes, comma-separated, in B/KiB/MiB/GiB (at least 16 B: the header). Example: --size 64,4KiB,1MiB
    #[arg(long, value_name = "SIZE,..", value_delimiter = ',', value_parser = parse_size, default_value = "64,1MiB")]
    size: Vec<u64>,

    /// Measured messages per topic, scenario and repetition [default: 500, --quick: 50]. Example: --count 1000
    #[arg(long, value_name = "N")]
    count: Option<u64>,

    /// Run the whole sweep N times, pass after pass. Each figure is then the median over the
    /// passes and each ratio the median of the ratios within one pass (both sides of a ratio
    /// measured minutes apart on a shared machine can see different loads) [default: 1,
    /// --quick: 3]. Example: --repeat 5
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: Option<u32>,

    /// Unmeasured messages sent first in each scenario (page faults, cold caches). Example: --warmup 50
    #[arg(long, value_name = "N", default_value_t = 20)]
    warmup: u64,

    /// ringbus publishers wake up to K sleeping subscribers themselves; with more asleep, the
    /// first of the K to run wakes the rest (TopicBuilder::direct_wakes) [default: the library's, 2]. Example: --direct-wakes 16
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1024))]
    direct_wakes: Option<u32>,

    /// Also measure ringbus-reliable, right after ringbus: the same run with K of the
    /// subscriber processes reliable (see above); K at most the smallest --subs, 0: none. Example: --reliable 1
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1024))]
    reliable: u32,

    /// Transports to measure, comma-separated (see above). Example: --transports ringbus,eventfd
    #[arg(
        long,
        value_name = "NAME,..",
        value_delimiter = ',',
        default_value = "ringbus,ringbus-polling,futex,eventfd,mq,uds,idle-floor"
    )]
    transports: Vec<Transport>,

    /// Write the whole report (the table, its notes and the verdict) to FILE instead of
    /// stdout, which then gets only the verdict and where the table is. Example: --markdown fanout.md
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,

    #[command(flatten)]
    output: OutputArgs,
}

impl FanoutArgs {
    fn config(&self, transports_given: bool) -> Result<FanoutConfig> {
        let rate_hz = self.rate.unwrap_or(if self.output.quick { QUICK_RATE_HZ } else { 100.0 });
        if !(rate_hz.is_finite() && (0.1..=100_000.0).contains(&rate_hz)) {
            bail!("--rate {rate_hz}: must be 0.1 to 100000 Hz");
        }
        let count = self.count.unwrap_or(if self.output.quick { QUICK_COUNT } else { 500 });
        if count == 0 {
            bail!("--count must be at least 1");
        }
        let quick_filter = self.output.quick && !transports_given;
        let keep = |t: Transport, bytes: u64| !quick_filter || bytes <= QUICK_LARGE_BYTES || QUICK_LARGE.contains(&t);
        let transports = with_reliable(dedup(&self.transports), self.reliable, &self.subs)?;
        let scenarios = config::plan(&transports, &self.subs, self.topics, &self.size, keep);
        let worker = worker_launcher("subscriber processes")?;
        let repeat = self.repeat.unwrap_or(if self.output.quick { QUICK_REPEAT } else { 1 });
        Ok(FanoutConfig {
            scenarios,
            rate_hz,
            count,
            warmup: self.warmup,
            repeat,
            direct_wakes: self.direct_wakes,
            reliable: self.reliable,
            worker,
        })
    }

    pub fn run(self) -> Result<()> {
        let transports_given = std::env::args().any(|a| a == "--transports" || a.starts_with("--transports="));
        let config = self.config(transports_given)?;
        let outcome = super::bench::measure(true, |bar| fanout::run(&config, bar))?;
        let verdict = fanout::verdict::lines(&outcome.rows).join("\n");
        let report = format!("{}\n{verdict}\n", report_text(&config, &outcome));
        match &self.markdown {
            Some(path) => {
                std::fs::write(path, &report).with_context(|| format!("cannot write {}", path.display()))?;
                println!("{verdict}");
                let json = self.output.json.as_ref().map_or_else(String::new, |j| format!(" (JSON: {})", j.display()));
                println!("Full table: {}{json}", path.display());
            }
            None => print!("{report}"),
        }
        self.output
            .write(|path| report::write_json(&outcome.rows, path), |path| fanout::plot::draw(&outcome.rows, path))
    }
}

/// The report before the verdict: the header, the table, its notes.
fn report_text(config: &FanoutConfig, outcome: &fanout::Outcome) -> String {
    let mut out = super::bench::header("fanout");
    let _ = writeln!(
        out,
        "- {} measured messages per topic at {} Hz after {} warm-up, in each of {} {}; times in µs; \
         ratios: ringbus (and futex) ÷ eventfd{}\n",
        config.count,
        config.rate_hz,
        config.warmup,
        config.repeat,
        if config.repeat == 1 { "pass" } else { "passes" },
        if config.repeat == 1 {
            ""
        } else {
            " (figures: median over the passes; ratios: median of the ratios within each pass; msgs: all passes)"
        }
    );
    if let Some(k) = config.direct_wakes {
        let _ = writeln!(out, "- ringbus publishers wake up to {k} sleeping subscribers themselves (--direct-wakes)\n");
    }
    if config.reliable > 0 {
        let _ = writeln!(
            out,
            "- ringbus-reliable: ringbus with {} of the subscriber processes reliable (--reliable); \
             blocked: measured publishes that waited for one; ratios: ringbus-reliable ÷ ringbus{}\n",
            config.reliable,
            if config.repeat == 1 { "" } else { " (median of the ratios within each pass)" }
        );
    }
    out += &fanout::report::markdown(&outcome.rows);
    for note in fanout::report::notes(&outcome.rows) {
        let _ = writeln!(out, "\nnote: {note}");
    }
    for (s, why) in &outcome.skipped {
        let _ = writeln!(out, "\nskipped {s}: {why}");
    }
    if let Some(why) = &outcome.syscalls_unavailable {
        let _ = writeln!(out, "\nsystem calls not counted: {why}");
    }
    out
}

/// `transports` with ringbus-reliable measured right after ringbus (or last, without it)
/// when `reliable` subscribers are asked for, which every count of `subs` must have room for.
fn with_reliable(mut transports: Vec<Transport>, reliable: u32, subs: &[u32]) -> Result<Vec<Transport>> {
    let named = transports.contains(&Transport::RingbusReliable);
    if reliable == 0 {
        if named {
            bail!("ringbus-reliable needs --reliable K: how many subscriber processes are reliable, e.g. --reliable 1");
        }
        return Ok(transports);
    }
    if let Some(&n) = subs.iter().filter(|&&n| n < reliable).min() {
        bail!("--reliable {reliable}: more than the {n} subscriber processes of --subs {n}; K is at most the smallest --subs");
    }
    if !named {
        let after = transports.iter().position(|&t| t == Transport::Ringbus).map_or(transports.len(), |i| i + 1);
        transports.insert(after, Transport::RingbusReliable);
    }
    Ok(transports)
}
