//! `ringbus bench`: the group of benchmarks, and what their commands share.

use super::bench_fanout::FanoutArgs;
use super::bench_memory::MemoryArgs;
use super::bench_pingpong::PingpongArgs;
use super::bench_polling::PollingArgs;
use super::bench_queue::QueueArgs;
use super::bench_record::RecordBenchArgs;
use super::bench_route::RouteBenchArgs;
use super::bench_tokens::TokensArgs;
use super::bench_wake::WakeArgs;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus bench fanout --quick --json fanout.json --plot fanout.svg\n  \
    ringbus bench tokens --quick --json tokens.json --plot tokens.svg\n  \
    ringbus bench wake --quick --json wake.json --plot wake.svg\n  \
    ringbus bench polling --quick --json polling.json --plot polling.svg\n  \
    ringbus bench queue --quick --json queue.json --plot queue.svg\n  \
    ringbus bench route --quick --json route.json --plot route.svg\n  \
    ringbus bench memory --quick --json memory.json --plot memory.svg\n  \
    ringbus bench pingpong --quick --json pingpong.json --plot pingpong.svg\n  \
    ringbus bench record --quick --json record.json")]
pub struct BenchArgs {
    #[command(subcommand)]
    which: Which,
}

#[derive(Debug, clap::Subcommand)]
enum Which {
    /// Publish and end-to-end latency vs number of subscriber processes, ringbus vs baselines.
    #[command(long_about = super::bench_fanout::LONG_ABOUT)]
    Fanout(FanoutArgs),
    /// Job tokens for P worker processes: make's jobserver pipe vs ringbus Semaphore (CPU, wall, switches).
    #[command(long_about = super::bench_tokens::LONG_ABOUT)]
    Tokens(TokensArgs),
    /// Wake latency p50/p99 and waiter CPU per wake for each WaitSet backend (futex, futex_waitv, io_uring, epoll).
    #[command(long_about = super::bench_wake::LONG_ABOUT)]
    Wake(WakeArgs),
    /// A ROS-style node: per-message callbacks vs a timer that takes what it needs (CPU, wake-ups, context switches).
    #[command(long_about = super::bench_polling::LONG_ABOUT)]
    Polling(PollingArgs),
    /// Command queue push cost: cached vs uncached consumer position, with rtrb and ArrayQueue as anchors.
    #[command(long_about = super::bench_queue::LONG_ABOUT, visible_alias = "ring")]
    Queue(QueueArgs),
    /// MAVLink routing cost: lock-free link table vs one behind a mutex, 1-2 threads, with and without link churn; UDP frames/s.
    #[command(long_about = super::bench_route::LONG_ABOUT)]
    Route(RouteBenchArgs),
    /// Shared memory a publisher holds vs bytes in flight (tiny, camera, point cloud); on-demand vs preallocated latency.
    #[command(long_about = super::bench_memory::LONG_ABOUT)]
    Memory(MemoryArgs),
    /// One message's latency: two ends on two CPUs publishing to each other, busy-poll or woken, vs a cache-line floor.
    #[command(long_about = super::bench_pingpong::LONG_ABOUT)]
    Pingpong(PingpongArgs),
    /// What `ringbus record` costs: publish times with and without it, its CPU per message, messages lost.
    #[command(long_about = super::bench_record::LONG_ABOUT)]
    Record(RecordBenchArgs),
}

impl BenchArgs {
    pub fn run(self) -> anyhow::Result<()> {
        match self.which {
            Which::Fanout(args) => args.run(),
            Which::Tokens(args) => args.run(),
            Which::Wake(args) => args.run(),
            Which::Polling(args) => args.run(),
            Which::Queue(args) => args.run(),
            Which::Route(args) => args.run(),
            Which::Memory(args) => args.run(),
            Which::Pingpong(args) => args.run(),
            Which::Record(args) => args.run(),
        }
    }
}

/// What every bench command shares on its command line, declared once and flattened into
/// each (`#[command(flatten)]`): where to write the rows besides the table, and whether to
/// run a short sweep. A command words an option for itself with
/// `#[command(mut_arg("quick", |a| a.help(...)))]`.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// Also write the rows as a JSON array to FILE. Example: --json out.json
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Also draw the results as an SVG figure (see above). Example: --plot out.svg
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// A short run: enough to check it all works, too short for figures to quote. Example: --quick
    #[arg(long)]
    pub quick: bool,
}

impl OutputArgs {
    /// Writes the results where `--json` and `--plot` asked (each optional), saying so on
    /// stderr: how every bench command ends.
    pub fn write<A, B>(
        &self,
        write_json: impl FnOnce(&Path) -> Result<(), A>,
        draw: impl FnOnce(&Path) -> Result<(), B>,
    ) -> anyhow::Result<()>
    where
        anyhow::Error: From<A> + From<B>,
    {
        if let Some(path) = &self.json {
            write_json(path)?;
            eprintln!("wrote {}", path.display());
        }
        if let Some(path) = &self.plot {
            draw(path)?;
            eprintln!("wrote {}", path.display());
        }
        Ok(())
    }
}

/// `v` without repeats, in its order (a list option given twice the same value runs once).
pub fn dedup<T: PartialEq + Copy>(v: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for &x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// How a bench starts its worker processes: this executable, `bench-worker SPEC`; `what`
/// names them in the error if this executable cannot be found.
pub fn worker_launcher(what: &str) -> anyhow::Result<ringbus_bench::WorkerLauncher> {
    let program = std::env::current_exe().with_context(|| format!("cannot find this executable to start {what}"))?;
    Ok(ringbus_bench::WorkerLauncher { program, args: vec!["bench-worker".into()] })
}

/// CPUs this process may run on (what `--cpus` may name).
pub fn machine_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Parses `--cpus A,B` (`form` names the two, e.g. `"P,C"`): two CPU numbers below `cpus`.
pub fn cpu_pair(s: &str, form: &str, cpus: usize) -> Result<(u32, u32), String> {
    let parse = |t: &str| -> Result<u32, String> {
        let cpu: u32 = t.trim().parse().map_err(|_| format!("--cpus {s:?}: expected two CPU numbers, e.g. 0,1"))?;
        if cpu as usize >= cpus {
            return Err(format!("--cpus {s:?}: CPU {cpu} does not exist; this machine has CPUs 0 to {}", cpus - 1));
        }
        Ok(cpu)
    };
    let (a, b) = s.split_once(',').ok_or_else(|| format!("--cpus {s:?}: expected {form}, e.g. 0,1"))?;
    Ok((parse(a)?, parse(b)?))
}

/// Parses `--cpus A,B` like [`cpu_pair`], for two ends that both spin: two different CPUs.
pub fn two_cpus(s: &str, form: &str, cpus: usize) -> Result<(u32, u32), String> {
    let (a, b) = cpu_pair(s, form, cpus)?;
    if a == b {
        return Err(format!("--cpus {s:?}: both ends spin; give them two different CPUs"));
    }
    Ok((a, b))
}

/// Where a bench's run directory goes: `$RINGBUS_ROOT` (created and checked like a
/// ringbus root) if set, else `/dev/shm`.
pub fn run_parent() -> anyhow::Result<PathBuf> {
    match std::env::var_os(ringbus::ROOT_ENV).filter(|p| !p.is_empty()) {
        Some(p) => Ok(ringbus::Root::open(PathBuf::from(p))?.path().to_path_buf()),
        None => Ok(PathBuf::from("/dev/shm")),
    }
}

/// Runs a bench: Ctrl-C handled (the bench stops its workers and removes its files), its
/// progress bar on stderr while `measure` runs, cleared afterwards. `percent`: the bar says
/// how far in percent (benches that count ticks), else in runs done.
pub fn measure<T>(percent: bool, measure: impl FnOnce(&mut Bar) -> anyhow::Result<T>) -> anyhow::Result<T> {
    ringbus_bench::interrupt::install().context("cannot install the Ctrl-C handler")?;
    let mut bar = Bar::new(percent);
    let result = measure(&mut bar);
    bar.bar.finish_and_clear();
    result
}

/// How every bench's report starts: its title, the machine, the command line.
pub fn print_header(name: &str) {
    print!("{}", header(name));
}

/// [`print_header`]'s text.
pub fn header(name: &str) -> String {
    format!(
        "## ringbus bench {name}\n\n- machine: {}\n- command: `{}`\n",
        ringbus_bench::report::Machine::this(),
        ringbus_bench::report::command_line()
    )
}

/// A bench's progress bar on stderr (hidden when stderr is not a terminal).
pub struct Bar {
    bar: indicatif::ProgressBar,
}

impl Bar {
    fn new(percent: bool) -> Bar {
        use std::io::IsTerminal;
        let bar = if std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(0)
        } else {
            indicatif::ProgressBar::hidden()
        };
        let template = match percent {
            true => "[{elapsed_precise}] {bar:30} {percent:>3}% {msg}",
            false => "[{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
        };
        let style = indicatif::ProgressStyle::with_template(template).expect("a valid template").progress_chars("=> ");
        bar.set_style(style);
        Bar { bar }
    }
}

impl ringbus_bench::driver::Progress for Bar {
    fn length(&mut self, steps: u64) {
        self.bar.set_length(steps);
    }

    fn at(&mut self, done: u64, what: &str) {
        self.bar.set_position(done);
        self.bar.set_message(what.to_string());
    }

    fn tick(&mut self) {
        self.bar.inc(1);
    }

    fn note(&mut self, text: &str) {
        self.bar.suspend(|| eprintln!("{text}"));
    }
}
