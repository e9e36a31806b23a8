//! `ringbus bench tokens`: P worker processes share T job tokens through make's jobserver
//! pipe and through a ringbus Semaphore, in the same run; a markdown table on stdout,
//! optionally JSON and an SVG plot.

use super::bench::{dedup, worker_launcher, OutputArgs};
use super::output::counted;
use anyhow::{bail, Result};
use ringbus_bench::tokens::{self, report, Mechanism, TokensConfig, MAX_TOKENS, MAX_WORKERS};

pub const LONG_ABOUT: &str = "\
The build-tool case: P worker processes (this binary re-executed) share T job tokens and
together run J short jobs; a worker claims a job, takes a token, runs the job (a CPU-bound
spin of --job-us on the monotonic clock, like compiling a tiny file) and gives the token
back, until all J jobs are claimed. Both mechanisms run in the same invocation:

  pipe       GNU make's jobserver: one pipe pre-filled with T bytes, inherited by every
             worker; the read side is O_NONBLOCK; take = poll(POLLIN) then read 1 byte
             (EAGAIN: another worker won the race, poll again); give = write the byte back.
             Every write wakes every poller: the thundering herd.
  semaphore  ringbus::Semaphore: take = wait() (FUTEX_WAIT), give = post() (FUTEX_WAKE of
             exactly one sleeper, no system call when nobody sleeps).

Measured per run: wall time from the start signal (all workers released by one latch) to
the last worker leaving its loop, on CLOCK_MONOTONIC; the workers' user and system CPU time
and voluntary + involuntary context switches from getrusage(RUSAGE_SELF), taken by each
worker right after the start and right after its loop and summed, so process start-up and
exit count for neither mechanism. The kernel keeps total CPU time exactly but splits it into
user and system time by sampling timer ticks, so the split is an estimate over many ticks;
use more --jobs (or --repeat) for steadier figures. Semaphore rows also give the futex wake
calls made by post() and the sleepers they woke (woken <= wake calls: no herd); pipe rows
give the reads that lost the race (failed takes).

Every run is checked: exactly J jobs ran, every token came back, and no more than T workers
ever held a token at once. Rows are per (workers, mechanism), the median of --repeat runs
(the mechanisms' order alternating between repetitions), with semaphore / pipe ratios of
system CPU and wall time per worker count, each the median over repetitions of the ratio
within one repetition (where the two runs are adjacent in time).

Files: a fresh directory ringbus-bench-* under $RINGBUS_ROOT if set, else under /dev/shm,
removed at the end (also on error or Ctrl-C; one left by a killed run is removed by the next).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench tokens --quick
  ringbus bench tokens                                  # 8, 16, 32 workers, 2 tokens, 20000 jobs of 50 µs, 3 runs
  ringbus bench tokens --workers 16 --tokens 4 --jobs 20000 --repeat 3 --json tokens.json --plot tokens.svg";

/// Default jobs per run: about half a second of jobs on two tokens, some hundred timer
/// ticks per run, which the user/system split is sampled from.
const JOBS: u64 = 20_000;
const REPEAT: u32 = 3;
/// Quick mode: the whole sweep in about a second.
const QUICK_WORKERS: [u32; 2] = [8, 16];
const QUICK_JOBS: u64 = 400;

fn parse_workers(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| format!("worker count {s:?} is not a number"))?;
    if !(1..=MAX_WORKERS).contains(&n) {
        return Err(format!("worker count {n}: must be 1 to {MAX_WORKERS}"));
    }
    Ok(n)
}

/// The shared options (`OutputArgs`), worded for this command.
const JSON_HELP: &str = "Also write the rows as a JSON array to FILE. Example: --json tokens.json";
const PLOT_HELP: &str =
    "Also draw system CPU, wall time and context switches per job vs workers as SVG. Example: --plot tokens.svg";
const QUICK_HELP: &str =
    "8 and 16 workers, 400 jobs, one run each (unless --workers, --jobs or --repeat say otherwise): \
    about a second; too short for steady CPU figures, enough to check it all works. Example: --quick";

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("json", |a| a.help(JSON_HELP)),
    mut_arg("plot", |a| a.help(PLOT_HELP)),
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct TokensArgs {
    /// Worker process counts to sweep, comma-separated, each 1 to 1024 [default: 8,16,32; --quick: 8,16]. Example: --workers 8,64
    #[arg(long, value_name = "P,..", value_delimiter = ',', value_parser = parse_workers)]
    workers: Vec<u32>,

    /// Tokens shared by the workers (jobs running at once), 1 to 4096. Example: --tokens 4
    #[arg(long, value_name = "T", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=MAX_TOKENS as i64))]
    tokens: u32,

    /// Jobs per run, shared by its workers [default: 20000; --quick: 400]. Example: --jobs 50000
    #[arg(long, value_name = "J")]
    jobs: Option<u64>,

    /// Length of one job in microseconds (a CPU-bound spin; 0: the protocol alone). Example: --job-us 200
    #[arg(long, value_name = "US", default_value_t = 50, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    job_us: u64,

    /// Runs of each (workers, mechanism), 1 to 100; rows report the median [default: 3; --quick: 1]. Example: --repeat 5
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: Option<u32>,

    /// Mechanisms to measure, comma-separated (see above). Example: --mechanisms semaphore
    #[arg(long, value_name = "NAME,..", value_delimiter = ',', default_value = "pipe,semaphore")]
    mechanisms: Vec<Mechanism>,

    #[command(flatten)]
    output: OutputArgs,
}

impl TokensArgs {
    fn config(&self) -> Result<TokensConfig> {
        let workers = match (&self.workers[..], self.output.quick) {
            ([], true) => QUICK_WORKERS.to_vec(),
            ([], false) => vec![8, 16, 32],
            (given, _) => dedup(given),
        };
        let jobs = self.jobs.unwrap_or(if self.output.quick { QUICK_JOBS } else { JOBS });
        if !(1..=100_000_000).contains(&jobs) {
            bail!("--jobs {jobs}: must be 1 to 100000000");
        }
        Ok(TokensConfig {
            workers,
            mechanisms: dedup(&self.mechanisms),
            tokens: self.tokens,
            jobs,
            job_us: self.job_us,
            repeat: self.repeat.unwrap_or(if self.output.quick { 1 } else { REPEAT }),
            dir: super::bench::run_parent()?,
            worker: worker_launcher("worker processes")?,
        })
    }

    pub fn run(self) -> Result<()> {
        let config = self.config()?;
        let rows = super::bench::measure(false, |bar| tokens::run(&config, bar))?;
        super::bench::print_header("tokens");
        println!(
            "- {} of {} µs per run, {}; CPU and context switches summed over the workers; median of {}",
            counted(config.jobs, "job"),
            config.job_us,
            counted(config.tokens.into(), "token"),
            counted(config.repeat.into(), "run")
        );
        println!(
            "- user/system split: sampled by the kernel from timer ticks (their sum is exact); \
             wall: start signal to the last worker's end of loop\n"
        );
        print!("{}", report::markdown(&rows));
        if rows.iter().any(|r| r.sys_cpu_vs_pipe.is_some()) {
            println!();
            print!("{}", report::ratios(&rows));
        }
        self.output.write(|path| ringbus_bench::report::write_json(&rows, path), |path| tokens::plot::draw(&rows, path))
    }
}
