//! `ringbus bench polling`: a node that reads topics in a 10 Hz timer, with per-message
//! callbacks and with a timer that takes what it needs, in the same run; a markdown table
//! on stdout, optionally JSON and an SVG plot.

use super::bench::{dedup, run_parent, worker_launcher, OutputArgs};
use super::output::counted;
use anyhow::Result;
use ringbus_bench::config::{format_size, parse_size};
use ringbus_bench::polling::{self, plot, report, PollingConfig, Scenario, MAX_PAYLOAD_BYTES, MIN_PAYLOAD_BYTES};

pub const LONG_ABOUT: &str = "\
A typical ROS 2 node: it receives topics and processes them in a 10 Hz timer that reads
the latest sample of each and publishes their sum on topic D. Two styles, in the same
invocation, one line apart in the node's code (the subscribers' wake mode):

  callback  inputs opened Wake::OnData: the node's executor wakes for every message and
            queues it; the timer reads the queue (what ROS 2 nodes do by default)
  polling   inputs opened Wake::Never: nothing wakes the node between ticks; the timer
            reads the newest sample straight from shared memory

Scenarios (--scenario):

  three-topics  topics A at 10 Hz, B at 30 Hz, C at 50 Hz (90 messages/s)
  scaled        20 topics at rates spread evenly from 100 to 1000 Hz (11000 messages/s)

Per run (scenario, style, repetition), in a fresh ringbus root: this process publishes
every topic of the scenario from one thread on absolute due times (message k of a topic is
due at t0 + k / rate; it sleeps until the next due time and publishes everything due, so
no drift accumulates), --size bytes per message, for the whole run. It starts ONE
subscriber process (this binary re-executed) running the node on a ringbus::Executor,
waits until its executor is built, and opens the window with a start latch. The
subscriber first runs whatever queued up before the start, then reads the publishers'
counters (ringbus::inspect), its executor's counters and getrusage(RUSAGE_SELF), runs
spin_for(--duration), and reads them again in the reverse order, so the reads fall
outside the CPU window.

Measured, in the subscriber process over the window: user + system CPU time (the kernel
keeps the sum exactly and splits it by sampling timer ticks), voluntary context switches
(each sleep), executor wake-ups (waits that returned with work: a timer tick or
messages), timer calls, messages delivered by wake-ups; from the publishers' shared
counters: messages published and wake system calls made (FUTEX_WAKE because a subscriber
slept). Rows are per (scenario, style), the median of --repeat runs (the styles' order
alternating between repetitions), with polling / callback ratios of CPU time and
wake-ups per second, each the median over repetitions of the ratio within one repetition
(where the two runs are adjacent in time).

Every run is checked: the timer ran 10 times a second (within 2 plus 1 per second); in the
polling style the publishers made no wake system call and the node woke only for its
timer. These are behaviour checks, not speed claims.

Files: a fresh directory ringbus-bench-* under $RINGBUS_ROOT if set, else under /dev/shm,
removed at the end (also on error or Ctrl-C; one left by a killed run is removed by the next).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench polling --quick                      # both scenarios, 1 s windows, 1 run each (about 5 s)
  ringbus bench polling                              # 5 s windows, 3 runs each (about 65 s)
  ringbus bench polling --scenario scaled --size 4KiB --duration 10 --json polling.json --plot polling.svg";

/// The shared options (`OutputArgs`), worded for this command.
const QUICK_HELP: &str = "1 s windows, one run each (unless --duration or --repeat say otherwise): about 5 s; \
    too short for steady CPU figures, enough to check it all works. Example: --quick";

const DURATION_S: f64 = 5.0;
const QUICK_DURATION_S: f64 = 1.0;
const REPEAT: u32 = 3;

/// Parses a window length: seconds, `5`, `2.5`, `5s`, `500ms` or `1m`; 0.5 s to 1 hour.
fn parse_duration(s: &str) -> Result<f64, String> {
    super::numbers::seconds_in(s, 0.5, 3600.0)
}

/// The first name of `three-topics`, still accepted so that scripts written with it keep
/// working; never printed (not in the help, nor in the error that lists the scenarios).
const THREE_TOPICS_OLD_NAME: &str = "figure-1";

/// Parses a scenario name (or the old name of `three-topics`).
fn parse_scenario(s: &str) -> Result<Scenario, String> {
    if s == THREE_TOPICS_OLD_NAME {
        return Ok(Scenario::ThreeTopics);
    }
    s.parse()
}

/// Parses a payload size within the bench's bounds.
fn parse_payload(s: &str) -> Result<u64, String> {
    let bounds =
        || format!("size {s:?}: must be {MIN_PAYLOAD_BYTES} B to {}, e.g. 256 or 4KiB", format_size(MAX_PAYLOAD_BYTES));
    let bytes = parse_size(s).map_err(|_| bounds())?;
    if !(MIN_PAYLOAD_BYTES..=MAX_PAYLOAD_BYTES).contains(&bytes) {
        return Err(bounds());
    }
    Ok(bytes)
}

#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP, mut_arg("quick", |a| a.help(QUICK_HELP)))]
pub struct PollingArgs {
    /// Scenarios to measure, comma-separated (see above). Example: --scenario three-topics
    #[arg(
        long,
        value_name = "NAME,..",
        value_delimiter = ',',
        default_value = "three-topics,scaled",
        value_parser = parse_scenario
    )]
    scenario: Vec<Scenario>,

    /// Payload of every input message, 16 B to 64KiB. Example: --size 4KiB
    #[arg(long, value_name = "BYTES", default_value = "256", value_parser = parse_payload)]
    size: u64,

    /// Measured window of every run, in seconds (also 500ms, 2.5s, 1m) [default: 5; --quick: 1]. Example: --duration 10
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    duration: Option<f64>,

    /// Runs of each (scenario, style), 1 to 100; rows report the median [default: 3; --quick: 1]. Example: --repeat 5
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: Option<u32>,

    #[command(flatten)]
    output: OutputArgs,
}

impl PollingArgs {
    fn config(&self) -> Result<PollingConfig> {
        let seconds = self.duration.unwrap_or(if self.output.quick { QUICK_DURATION_S } else { DURATION_S });
        Ok(PollingConfig {
            scenarios: dedup(&self.scenario),
            payload_bytes: self.size,
            duration_ns: (seconds * 1e9) as u64,
            repeat: self.repeat.unwrap_or(if self.output.quick { 1 } else { REPEAT }),
            dir: run_parent()?,
            worker: worker_launcher("the subscriber")?,
        })
    }

    pub fn run(self) -> Result<()> {
        let config = self.config()?;
        let rows = super::bench::measure(false, |bar| polling::run(&config, bar))?;
        super::bench::print_header("polling");
        let backend = rows.first().map_or("?", |r| r.backend.as_str());
        println!(
            "- {} s windows, payload {}, timer {} Hz, median of {}; one subscriber process \
             (executor on the {backend} wait set); CPU, context switches and wake-ups are the subscriber's",
            config.duration_ns as f64 / 1e9,
            format_size(config.payload_bytes),
            polling::TIMER_HZ,
            counted(config.repeat.into(), "run")
        );
        println!(
            "- callback: inputs Wake::OnData (woken per message); polling: Wake::Never (the timer reads shared memory)\n"
        );
        print!("{}", report::markdown(&rows));
        let ratios = report::ratios(&rows);
        if !ratios.is_empty() {
            println!();
            print!("{ratios}");
        }
        self.output.write(|path| ringbus_bench::report::write_json(&rows, path), |path| plot::draw(&rows, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_sizes_parse_within_bounds() {
        assert_eq!(parse_duration("5"), Ok(5.0));
        assert_eq!(parse_duration("2.5s"), Ok(2.5));
        assert_eq!(parse_duration("500ms"), Ok(0.5));
        assert!(parse_duration("0.1").unwrap_err().contains("0.5 s to 3600 s"));
        assert_eq!(parse_duration("1m"), Ok(60.0));
        assert!(parse_duration("soon").unwrap_err().contains("500ms"));
        assert_eq!(parse_payload("4KiB"), Ok(4096));
        assert!(parse_payload("8").unwrap_err().contains("16 B to 64KiB"));
        assert!(parse_payload("1MiB").is_err());
    }

    #[test]
    fn scenarios_parse_by_name_and_the_old_name_still_works() {
        assert_eq!(parse_scenario("three-topics"), Ok(Scenario::ThreeTopics));
        assert_eq!(parse_scenario("scaled"), Ok(Scenario::Scaled));
        assert_eq!(parse_scenario(THREE_TOPICS_OLD_NAME), Ok(Scenario::ThreeTopics));
        let unknown = parse_scenario("nope").unwrap_err();
        assert!(unknown.contains("three-topics, scaled") && !unknown.contains(THREE_TOPICS_OLD_NAME), "{unknown}");
    }
}
