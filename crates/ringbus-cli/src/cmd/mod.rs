//! The commands, one file each.

mod bench;
mod bench_fanout;
mod bench_tokens;
mod bench_wake;
mod bench_worker;
mod completions;
mod doctor;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Benchmarks: measure ringbus against baselines on this machine.
    Bench(bench::BenchArgs),
    /// Checks what ringbus needs from this machine and says how to fix each problem.
    #[command(
        long_about = doctor::LONG_ABOUT,
        after_help = "Examples:\n  \
            ringbus doctor\n  \
            ringbus doctor --json | jq '.[] | select(.status != \"ok\")'"
    )]
    Doctor(doctor::DoctorArgs),
    /// Prints a shell completion script for ringbus (bash, zsh, fish, elvish, powershell).
    #[command(
        long_about = completions::LONG_ABOUT,
        after_help = "Example:\n  \
            ringbus completions bash > ~/.local/share/bash-completion/completions/ringbus"
    )]
    Completions(completions::CompletionsArgs),
    /// Internal: a worker process of `ringbus bench` (started by it, never by hand).
    #[command(hide = true)]
    BenchWorker(bench_worker::BenchWorkerArgs),
}

impl Command {
    /// Runs the command; `cli` builds the definition of the whole command line (for
    /// `completions`).
    pub fn run(self, cli: fn() -> clap::Command) -> anyhow::Result<()> {
        match self {
            Command::Bench(args) => args.run(),
            Command::Doctor(args) => args.run(),
            Command::Completions(args) => args.run(cli()),
            Command::BenchWorker(args) => args.run(),
        }
    }
}
