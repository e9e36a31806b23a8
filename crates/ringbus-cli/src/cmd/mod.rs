//! The commands, one file each; `output` and `json` hold what they share.

mod bench;
mod bench_fanout;
mod bench_memory;
mod bench_pingpong;
mod bench_polling;
mod bench_queue;
mod bench_record;
mod bench_route;
mod bench_tokens;
mod bench_wake;
mod bench_worker;
mod bridge;
mod clean;
mod completions;
mod doctor;
mod echo;
mod handoff;
mod hz;
mod info;
mod json;
mod list;
mod mcap;
mod numbers;
pub mod output;
mod publish;
mod record;
mod replay;
mod ros2;
mod route;
mod session;
mod sibling;
mod top;

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// List topics, nodes, latches, semaphores, command queues, and files that do not belong.
    List(list::ListArgs),
    /// Show one topic: settings, publishers, subscribers (lag, lost, held), wake statistics.
    Info(info::InfoArgs),
    /// Print a topic's messages as they arrive (text, hex or JSON).
    Echo(echo::EchoArgs),
    /// Publish a message (from an argument, a file or stdin) once, N times or at a rate.
    Pub(publish::PubArgs),
    /// Measure a topic's message rate and inter-arrival jitter.
    Hz(hz::HzArgs),
    /// Record topics into an MCAP file (until Ctrl-C, --duration, or in several files).
    Record(record::RecordArgs),
    /// Remove what dead processes left behind (dead nodes, unused topics, stale files).
    Clean(clean::CleanArgs),
    /// A live view of topics and subscribers: rates, bandwidth, lag, drops, wake system calls.
    Top(top::TopArgs),
    /// A MAVLink router between UDP, TCP and ringbus topics; `route ctl` talks to a running one.
    #[command(long_about = route::LONG_ABOUT)]
    Route(route::RouteArgs),
    /// Carries topics to other machines through Eclipse Zenoh (runs ringbus-bridge).
    #[command(long_about = bridge::LONG_ABOUT)]
    Bridge(bridge::BridgeArgs),
    /// Publish a recording again with its timing (--rate, --loop, --start/--end, --topics, --remap).
    Replay(replay::ReplayArgs),
    /// Commands on MCAP recordings: `mcap info FILE`.
    Mcap(mcap::McapArgs),
    /// Carries topics to and from ROS 2 nodes through DDS (runs ringbus-ros2).
    #[command(long_about = ros2::LONG_ABOUT)]
    Ros2(ros2::Ros2Args),
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
            Command::List(args) => args.run(),
            Command::Info(args) => args.run(),
            Command::Echo(args) => args.run(),
            Command::Pub(args) => args.run(),
            Command::Hz(args) => args.run(),
            Command::Record(args) => args.run(),
            Command::Replay(args) => args.run(),
            Command::Mcap(args) => args.run(),
            Command::Clean(args) => args.run(),
            Command::Top(args) => args.run(),
            Command::Route(args) => args.run(),
            Command::Bridge(args) => args.run(),
            Command::Ros2(args) => args.run(),
            Command::Bench(args) => args.run(),
            Command::Doctor(args) => args.run(),
            Command::Completions(args) => args.run(cli()),
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
