//! `ringbus bench`: the group of benchmarks.

use super::bench_fanout::FanoutArgs;

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  ringbus bench fanout --quick --json fanout.json --plot fanout.svg")]
pub struct BenchArgs {
    #[command(subcommand)]
    which: Which,
}

#[derive(Debug, clap::Subcommand)]
enum Which {
    /// Publish and end-to-end latency vs number of subscriber processes, ringbus vs baselines.
    #[command(long_about = super::bench_fanout::LONG_ABOUT)]
    Fanout(FanoutArgs),
}

impl BenchArgs {
    pub fn run(self) -> anyhow::Result<()> {
        match self.which {
            Which::Fanout(args) => args.run(),
        }
    }
}
