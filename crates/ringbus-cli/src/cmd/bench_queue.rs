//! `ringbus bench queue` (alias `ring`): the command queue — ns per pushed command
//! with the consumer position cached and uncached, with rtrb and ArrayQueue as anchors, in
//! the same run; a markdown table on stdout, optionally JSON and an SVG plot.

use super::bench::{dedup, run_parent, worker_launcher, OutputArgs};
use super::output::{counted, Failure};
use anyhow::Result;
use ringbus_bench::queue::{self, plot, report, service, QueueConfig, Variant, COMMAND_BYTES, POP_BATCH};

pub const LONG_ABOUT: &str = "\
The command queue: what pushing one fixed-size command (a 32-byte #[repr(C)] struct)
into a bounded SPSC ring costs, in ns per pushed command, when the producer keeps a copy
of the consumer's position and loads the shared one (a cache line the consumer's core
owns) only when the copy says the ring is full, against loading it on every push call.
Variants, in the same invocation:

  cached            ringbus SPSC queue (node.queue().spsc()), Producer::set_head_cache(true);
                    the consumer is ANOTHER PROCESS (this binary re-executed)
  uncached          the same code path with set_head_cache(false): one load of the
                    consumer's position per push call; consumer process
  cached-inprocess  ringbus SPSC queue, cache on, the consumer a THREAD of this process:
                    like for like with the two anchors
  polling           as cached, but the queue is created with .wake(Wake::Never): its
                    consumer never sleeps, so no push pays the full memory fence and the
                    look at the sleepers that waking a sleeping consumer needs
  polling-uncached  polling with set_head_cache(false); consumer process
  polling-inprocess polling, cache on, consumer thread: like for like with rtrb, whose
                    consumer cannot sleep either
  rtrb              the rtrb crate's SPSC ring (push_partial_slice / pop_partial_slice),
                    consumer thread
  arrayqueue        crossbeam-queue's bounded MPMC ArrayQueue (a loop of push / pop),
                    consumer thread

The producer (a thread of this process) is pinned to CPU P and the consumer (process or
thread) to CPU C (--cpus P,C, default 0,1), both before the start. Per run: the consumer
spins, never sleeping, popping up to 64 commands per call (Consumer::pop_batch,
pop_partial_slice, or a loop of ArrayQueue::pop) and checking that command k carries
sequence k and an intact check word; the producer pushes --batch commands per call
(Producer::push_batch, push_partial_slice, or a loop of ArrayQueue::push until one is
refused). The producer first pushes a warm-up (10% of --commands, at most 100000,
unmeasured), then times --commands pushes on CLOCK_MONOTONIC. A call that finds the ring
full is retried at once in a spin loop and its time counts: then the consumer's speed is
the limit. Reported per command: ns/push = the producer's elapsed time / --commands; head
reads = Producer::head_reads() over the measured pushes (ringbus only); push calls (1/batch
plus retries and partial pushes); full retries. Rows are per (variant, batch), the median
of --repeat runs (the variants' order alternating between repetitions), with min and max.

Every run is checked: the consumer saw every sequence number once, in order, intact (the
bench fails otherwise); uncached made exactly one head read per push call and cached at
most one. Ratios per batch: cached / uncached, polling / polling-uncached, and
cached-inprocess and polling-inprocess / rtrb ns/push, each the median over repetitions of
the ratio within one repetition (where the two runs are adjacent in time). Targets,
reported as measured for both kinds of queue: cached (or polling) <= 0.6x its uncached
twin at batch 1 with the consumer on the other CPU; head reads < 5% of pushes; ringbus
in-process ns/push <= rtrb's.

Then, unless --calls 0: request/response round trips through ringbus::service: a server
process pinned to CPU C answers u64 -> u64 and sleeps on its request queue between calls;
a client in this process, pinned to CPU P, times each Client::call from before the request
is pushed to the answer popped (two cross-process wake-ups per call), after a tenth as many
unmeasured calls; p50, p99 and max. In --json this is one more row, variant service.

Files: a fresh directory ringbus-bench-* under $RINGBUS_ROOT if set, else under /dev/shm,
removed at the end (also on error or Ctrl-C; one left by a killed run is removed by the next).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench queue --quick                # 8 variants x batches 1,8,64, 200000 commands, 1 run each
  ringbus bench queue                        # 2000000 commands, 11 runs each (about a minute)
  ringbus bench queue --cpus 2,3 --batch 1 --variants cached,uncached --json queue.json --plot queue.svg";

const COMMANDS: u64 = 2_000_000;
const QUICK_COMMANDS: u64 = 200_000;
const REPEAT: u32 = 11;
/// Service round trips timed after the ring runs.
const CALLS: u64 = 20_000;
const QUICK_CALLS: u64 = 2_000;
/// Unmeasured commands first: this share of --commands, at most `MAX_WARMUP`.
const WARMUP_DIVISOR: u64 = 10;
const MAX_WARMUP: u64 = 100_000;

/// Parses a batch size: 1 to the largest capacity (checked against --capacity later).
fn parse_batch(s: &str) -> Result<u32, String> {
    let bounds = || format!("batch {s:?}: must be 1 to the ring's capacity, e.g. 1,8,64");
    let b: u32 = s.trim().parse().map_err(|_| bounds())?;
    if !(1..=queue::MAX_CAPACITY).contains(&b) {
        return Err(bounds());
    }
    Ok(b)
}

/// Parses a capacity: a power of two that a ringbus queue accepts.
fn parse_capacity(s: &str) -> Result<u32, String> {
    let (lo, hi) = (queue::MIN_CAPACITY, queue::MAX_CAPACITY);
    let bounds = || format!("capacity {s:?}: must be a power of two from {lo} to {hi}, e.g. 1024");
    let c: u32 = s.trim().parse().map_err(|_| bounds())?;
    if !c.is_power_of_two() || !(lo..=hi).contains(&c) {
        return Err(bounds());
    }
    Ok(c)
}

/// Parses `P,C`: the producer's CPU and the consumer's, two different CPUs of this machine.
fn parse_cpus(s: &str) -> Result<(u32, u32), String> {
    parse_cpus_of(s, super::bench::machine_cpus())
}

fn parse_cpus_of(s: &str, cpus: usize) -> Result<(u32, u32), String> {
    super::bench::two_cpus(s, "P,C", cpus)
}

/// The shared options (`OutputArgs`), worded for this command.
const QUICK_HELP: &str = "200000 commands, one run each (unless --commands or --repeat say otherwise): a few seconds; \
    enough to check it all works, too short for figures to quote. Example: --quick";

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct QueueArgs {
    /// Variants to measure, comma-separated (see above). Example: --variants cached,uncached
    #[arg(
        long,
        value_name = "NAME,..",
        value_delimiter = ',',
        default_value = "cached,uncached,cached-inprocess,polling,polling-uncached,polling-inprocess,rtrb,arrayqueue"
    )]
    variants: Vec<Variant>,

    /// Commands per push call, comma-separated, each 1 to the capacity. Example: --batch 1,16
    #[arg(long, value_name = "N,..", value_delimiter = ',', default_value = "1,8,64", value_parser = parse_batch)]
    batch: Vec<u32>,

    /// Commands the ring holds, a power of two from 2 to 16777216. Example: --capacity 4096
    #[arg(long, value_name = "N", default_value = "1024", value_parser = parse_capacity)]
    capacity: u32,

    /// Measured commands per run, 1000 to 1000000000 [default: 2000000, --quick: 200000]. Example: --commands 5000000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1000..=1_000_000_000))]
    commands: Option<u64>,

    /// Runs of each (variant, batch), 1 to 100; rows report the median [default: 11, --quick: 1]. Example: --repeat 9
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: Option<u32>,

    /// Pin the producer to CPU P and the consumer to CPU C (two different CPUs). Example: --cpus 2,3
    #[arg(long, value_name = "P,C", default_value = "0,1", value_parser = parse_cpus)]
    cpus: (u32, u32),

    /// Service round trips to time after the ring runs (0: none) [default: 20000, --quick: 2000]. Example: --calls 100000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    calls: Option<u64>,

    #[command(flatten)]
    output: OutputArgs,
}

impl QueueArgs {
    fn config(&self) -> Result<QueueConfig> {
        if let Some(b) = self.batch.iter().find(|&&b| b > self.capacity) {
            let why = format!("--batch {b}: larger than the ring (--capacity {}); use 1 to {0}", self.capacity);
            return Err(Failure::Usage(why).into());
        }
        let commands = self.commands.unwrap_or(if self.output.quick { QUICK_COMMANDS } else { COMMANDS });
        Ok(QueueConfig {
            variants: dedup(&self.variants),
            batches: dedup(&self.batch),
            capacity: self.capacity,
            commands,
            warmup: (commands / WARMUP_DIVISOR).min(MAX_WARMUP),
            repeat: self.repeat.unwrap_or(if self.output.quick { 1 } else { REPEAT }),
            cpus: self.cpus,
            dir: run_parent()?,
            worker: worker_launcher("the consumer process")?,
        })
    }

    pub fn run(self) -> Result<()> {
        use ringbus_bench::driver::Progress as _;
        let config = self.config()?;
        let calls = self.calls.unwrap_or(if self.output.quick { QUICK_CALLS } else { CALLS });
        let (rows, service) = super::bench::measure(false, |bar| {
            let rows = queue::run(&config, bar)?;
            let service = match calls {
                0 => None,
                _ => Some(service::run(&config, calls, &mut |text| bar.note(text))?),
            };
            Ok((rows, service))
        })?;
        super::bench::print_header("queue");
        println!(
            "- {} measured commands of {COMMAND_BYTES} B per run after {} unmeasured, ring capacity {}, median of {}; \
             producer pinned to CPU {}, consumer to CPU {}, popping up to {POP_BATCH} per call, never sleeping",
            config.commands,
            config.warmup,
            config.capacity,
            counted(config.repeat.into(), "run"),
            config.cpus.0,
            config.cpus.1
        );
        println!(
            "- ns/push: the producer's wall time over all measured pushes ÷ commands, full-ring retries included; \
             head reads: loads of the consumer's position (ringbus only); rtrb: push_partial_slice, \
             ArrayQueue: a loop of push; ratios (below the table): within each repetition, then the median\n"
        );
        print!("{}", report::markdown(&rows));
        let ratios = report::ratios(&rows);
        if !ratios.is_empty() {
            println!();
            print!("{ratios}");
        }
        for target in report::targets(&rows) {
            println!("\n{target}");
        }
        if let Some(row) = &service {
            println!(
                "\n### Request/response round trip (`ringbus::service`, u64 → u64)\n\n\
                 - client in this process on CPU {}, server process on CPU {}, the server asleep between calls \
                 (two cross-process wake-ups per call); after {} unmeasured calls\n",
                config.cpus.0,
                config.cpus.1,
                row.calls / 10
            );
            print!("{}", service::markdown(row));
        }
        self.output.write(|path| report::write_json(&rows, service.as_ref(), path), |path| plot::draw(&rows, path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_capacities_and_cpus_parse_within_bounds() {
        assert_eq!(parse_batch("64"), Ok(64));
        assert!(parse_batch("0").unwrap_err().contains("1 to the ring's capacity"));
        assert!(parse_batch("x").is_err());
        assert_eq!(parse_capacity("1024"), Ok(1024));
        assert!(parse_capacity("1000").unwrap_err().contains("power of two from 2 to 16777216"));
        assert!(parse_capacity("1").is_err());
        assert_eq!(parse_cpus_of("0,1", 2), Ok((0, 1)));
        assert_eq!(parse_cpus_of(" 3 , 1", 4), Ok((3, 1)));
        assert!(parse_cpus_of("0,99", 2).unwrap_err().contains("CPU 99 does not exist; this machine has CPUs 0 to 1"));
        assert!(parse_cpus_of("1,1", 2).unwrap_err().contains("two different CPUs"));
        assert!(parse_cpus_of("0", 2).unwrap_err().contains("expected P,C"));
    }
}
