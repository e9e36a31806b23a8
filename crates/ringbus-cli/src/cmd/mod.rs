//! The commands, one file each; `output` and `json` hold what they share.

mod bench;
mod bench_fanout;
mod bench_tokens;
mod bench_wake;
mod bench_worker;
mod info;
mod json;
mod list;
pub mod output;
mod top;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// List topics, nodes, latches, semaphores, and files that do not belong.
    List(list::ListArgs),
    /// Show one topic: settings, publishers, subscribers (lag, lost, held), wake statistics.
    Info(info::InfoArgs),
    /// A live view of topics and subscribers: rates, bandwidth, lag, drops, wake system calls.
    Top(top::TopArgs),
    /// Benchmarks: measure ringbus against baselines on this machine.
    Bench(bench::BenchArgs),
    /// Internal: a worker process of `ringbus bench` (started by it, never by hand).
    #[command(hide = true)]
    BenchWorker(bench_worker::BenchWorkerArgs),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::List(args) => args.run(),
            Command::Info(args) => args.run(),
            Command::Top(args) => args.run(),
            Command::Bench(args) => args.run(),
            Command::BenchWorker(args) => args.run(),
        }
    }
}

/// The root (`--root`, `$RINGBUS_ROOT` or the default), checked; `None` if it does not
/// exist yet (nothing has run). Never creates it: looking must not change anything.
pub fn existing_root() -> anyhow::Result<Option<ringbus::Root>> {
    let path = ringbus::Root::default_path();
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    Ok(Some(ringbus::Root::open(path)?))
}
