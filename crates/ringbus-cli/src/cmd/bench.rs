//! `ringbus bench`: the group of benchmarks.

use super::bench_fanout::FanoutArgs;
use super::bench_tokens::TokensArgs;
use super::bench_wake::WakeArgs;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus bench fanout --quick --json fanout.json --plot fanout.svg\n  \
    ringbus bench tokens --quick --json tokens.json --plot tokens.svg\n  \
    ringbus bench wake --quick --json wake.json --plot wake.svg")]
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
}

impl BenchArgs {
    pub fn run(self) -> anyhow::Result<()> {
        match self.which {
            Which::Fanout(args) => args.run(),
            Which::Tokens(args) => args.run(),
            Which::Wake(args) => args.run(),
        }
    }
}
