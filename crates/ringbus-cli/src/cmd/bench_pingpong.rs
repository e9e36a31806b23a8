//! `ringbus bench pingpong`: the latency of one message, two ends pinned to two CPUs
//! publishing to each other, busy-polling or asleep, against two atomics ping-ponged on two
//! cache lines in the same run; a markdown table on stdout, optionally JSON and an SVG plot.

use super::bench::{dedup, run_parent, worker_launcher, OutputArgs};
use super::output::counted;
use anyhow::Result;
use ringbus_bench::pingpong::{self, plot, report, PingpongConfig, WakeMode, MAX_ROUNDS};

pub const LONG_ABOUT: &str = "\
The latency of one message when nothing else is going on, the number low-latency users
compare first. Two ends pinned to two CPUs (--cpus A,B): the initiator, a thread of this
process, publishes on one topic and waits for the echo on another; the echo end (a thread,
or with --processes this binary re-executed) waits on the first topic and publishes on the
second. Rows, in the same run:

  floor            two 64-bit words on two cache lines: each end stores the round number
                   on its own line and spins until the other's says it; nothing else.
                   The least a message between these two CPUs can cost
  ringbus never    Publisher::loan_uninit(size) then publish() (the loan is not written),
                   the waiting end spinning on Subscriber::take() (a Wake::Never
                   subscriber: nothing ever sleeps or makes a system call); the sample is
                   dropped at once
  ringbus-take-with
          never    as ringbus never, but the waiting end reads each message in place with
                   Subscriber::take_with(|bytes| ...): no pin, so it writes nothing the
                   publisher reads (busy-poll only)
  ringbus on-data  the same as ringbus never, but the waiting end sleeps in
                   Subscriber::receive() (a Wake::OnData subscriber) and every publish
                   wakes it: what a wake-up adds

Every round is checked: the message received in round k is its publisher's message k and
none was lost (the floor: the word says k), so a lost or repeated message fails the run. A round trip is timed
from one initiator publish to the next on CLOCK_MONOTONIC (one clock read per round, in
every row alike); one way = round trip / 2. Each run first makes a tenth as many unmeasured
rounds (at least 100). Per row: the round trip's p50, p99 and mean over the measured rounds,
the median of each over --repeat passes; every pass measures the floor and every row, in
reverse order on odd passes, and the ratios to the floor are the median over passes of the
ratio within each (so a slow stretch of a shared machine slows both sides of it). Payload
sizes are what each loan asks for; as nothing is copied, 1 MiB should cost what 8 bytes do.
The target is busy-poll one-way p50 (take) within 2.5x the floor at 8 B and 4 KiB.

Both ends spin at 100% of a CPU while measuring; on a machine with two CPUs, anything else
that runs (a compiler) lands on one of them and shows in p99. Files: a fresh directory
ringbus-bench-* under $RINGBUS_ROOT if set, else under /dev/shm, removed at the end (also on
error or Ctrl-C; one left by a killed run is removed by the next).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench pingpong --quick                 # a few seconds: floor, busy-poll and on-data at 8 B, 4 KiB, 1 MiB
  ringbus bench pingpong                         # 200000 rounds per busy-poll run, 5 passes (about half a minute)
  ringbus bench pingpong --wake never --size 8 --repeat 9 --cpus 0,1
  ringbus bench pingpong --processes --json pingpong.json --plot pingpong.svg";

const ROUNDS: u64 = 200_000;
const QUICK_ROUNDS: u64 = 20_000;
const ON_DATA_ROUNDS: u64 = 5_000;
const QUICK_ON_DATA_ROUNDS: u64 = 500;
const REPEAT: u32 = 5;

/// The shared options (`OutputArgs`), worded for this command.
const JSON_HELP: &str = "Also write the rows as a JSON array to FILE. Example: --json pingpong.json";
const PLOT_HELP: &str = "Also draw one-way p50 and mean per row as an SVG bar chart. Example: --plot pingpong.svg";
const QUICK_HELP: &str = "20000 busy-poll and 500 on-data rounds, one pass (unless --rounds, --on-data-rounds or \
    --repeat say otherwise): a few seconds; too short for figures to quote. Example: --quick";

/// Parses `A,B`: the initiator's CPU and the echo end's, two different CPUs of this machine.
fn parse_cpus(s: &str) -> Result<(u32, u32), String> {
    super::bench::two_cpus(s, "A,B", super::bench::machine_cpus())
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("json", |a| a.help(JSON_HELP)),
    mut_arg("plot", |a| a.help(PLOT_HELP)),
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct PingpongArgs {
    /// How the waiting end waits, comma-separated: never (spins on take) or on-data (sleeps in receive). Example: --wake never
    #[arg(long, value_name = "MODE,..", value_delimiter = ',', default_value = "never,on-data")]
    wake: Vec<WakeMode>,

    /// Bytes per message, comma-separated, in B/KiB/MiB/GiB (loans are not written). Example: --size 8,4KiB,1MiB
    #[arg(long, value_name = "SIZE,..", value_delimiter = ',', value_parser = ringbus_bench::config::parse_loan_size, default_value = "8,4KiB,1MiB")]
    size: Vec<u64>,

    /// Measured round trips per busy-poll run (and the floor's), 1 to 50000000 [default: 200000, --quick: 20000]. Example: --rounds 1000000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_ROUNDS))]
    rounds: Option<u64>,

    /// Measured round trips per on-data run, 1 to 50000000 [default: 5000, --quick: 500]. Example: --on-data-rounds 20000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_ROUNDS))]
    on_data_rounds: Option<u64>,

    /// Passes over every row, 1 to 100; rows report the median [default: 5, --quick: 1]. Example: --repeat 9
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: Option<u32>,

    /// Pin the initiator to CPU A and the echo end to CPU B (two different CPUs). Example: --cpus 2,3
    #[arg(long, value_name = "A,B", default_value = "0,1", value_parser = parse_cpus)]
    cpus: (u32, u32),

    /// The echo end is another process (this binary re-executed) instead of a thread. Example: --processes
    #[arg(long)]
    processes: bool,

    #[command(flatten)]
    output: OutputArgs,
}

impl PingpongArgs {
    fn config(&self) -> Result<PingpongConfig> {
        let quick = self.output.quick;
        Ok(PingpongConfig {
            wakes: dedup(&self.wake),
            sizes: dedup(&self.size),
            rounds: self.rounds.unwrap_or(if quick { QUICK_ROUNDS } else { ROUNDS }),
            on_data_rounds: self.on_data_rounds.unwrap_or(if quick { QUICK_ON_DATA_ROUNDS } else { ON_DATA_ROUNDS }),
            repeat: self.repeat.unwrap_or(if quick { 1 } else { REPEAT }),
            cpus: self.cpus,
            processes: self.processes,
            dir: run_parent()?,
            worker: worker_launcher("the echo process")?,
        })
    }

    pub fn run(self) -> Result<()> {
        let config = self.config()?;
        let rows = super::bench::measure(false, |bar| pingpong::run(&config, bar))?;
        super::bench::print_header("pingpong");
        println!(
            "- initiator pinned to CPU {}, echo end ({}) to CPU {}; {} busy-poll and {} on-data round trips per run \
             after a tenth as many unmeasured; median of {}; loans not written",
            config.cpus.0,
            if config.processes { "a process" } else { "a thread" },
            config.cpus.1,
            config.rounds,
            config.on_data_rounds,
            counted(config.repeat.into(), "run"),
        );
        println!(
            "- one way = round trip ÷ 2; ratios: one-way ÷ the floor's (two atomics on two cache lines) in the same \
             pass, then the median over passes\n"
        );
        print!("{}", report::markdown(&rows));
        if let Some(target) = report::target(&rows) {
            println!("\n{target}");
        }
        self.output.write(|path| ringbus_bench::report::write_json(&rows, path), |path| plot::draw(&rows, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_ends_need_two_cpus() {
        assert!(parse_cpus("0,0").unwrap_err().contains("two different CPUs"));
        assert!(parse_cpus("0").is_err());
    }
}
