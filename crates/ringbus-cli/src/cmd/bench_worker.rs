//! `ringbus bench-worker SPEC` (hidden): one worker process of a benchmark. The bench
//! re-executes this binary with it; the spec says what to do and where to record.

#[derive(Debug, clap::Args)]
pub struct BenchWorkerArgs {
    /// The JSON spec written by the bench.
    spec: String,
}

impl BenchWorkerArgs {
    pub fn run(self) -> anyhow::Result<()> {
        ringbus_bench::worker_main::run(&self.spec)
    }
}
