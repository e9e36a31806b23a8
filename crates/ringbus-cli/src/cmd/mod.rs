//! The commands, one file each.

mod bench;
mod bench_fanout;
mod bench_tokens;
mod bench_wake;
mod bench_worker;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Benchmarks: measure ringbus against baselines on this machine.
    Bench(bench::BenchArgs),
    /// Internal: a worker process of `ringbus bench` (started by it, never by hand).
    #[command(hide = true)]
    BenchWorker(bench_worker::BenchWorkerArgs),
}

impl Command {
    pub fn run(self) -> anyhow::Result<()> {
        match self {
            Command::Bench(args) => args.run(),
            Command::BenchWorker(args) => args.run(),
        }
    }
}
