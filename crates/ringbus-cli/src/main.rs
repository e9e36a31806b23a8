//! `ringbus`: the command-line companion of the ringbus library. One module per command
//! under `cmd/`.

mod cmd;

use clap::{CommandFactory, Parser};
use std::process::ExitCode;

/// ringbus — zero-copy publish/subscribe over Linux shared memory.
#[derive(Debug, Parser)]
#[command(
    name = "ringbus",
    version,
    about = "ringbus — zero-copy publish/subscribe over Linux shared memory",
    after_help = "Examples:\n  \
        ringbus pub demo/tick hi --rate 100 &        # a publisher at 100 Hz (Ctrl-C or kill %1 to stop)\n  \
        ringbus hz demo/tick                         # its measured rate and jitter\n  \
        ringbus list                                 # topics, nodes, latches, semaphores, queues\n  \
        ringbus info demo/tick                       # who publishes, who lags, who loses messages\n  \
        ringbus top                                  # live rates, lag and wake system calls; q quits\n  \
        ringbus clean --dry-run                      # what dead processes left behind\n  \
        ringbus bench fanout --quick                 # every transport, 1..128 subscribers, in under a minute\n  \
        ringbus bench fanout --subs 16 --size 64,1MiB --json out.json --plot out.svg\n  \
        ringbus bench fanout --help                  # every option of the fan-out benchmark\n  \
        ringbus bench tokens --quick                 # make's jobserver pipe vs ringbus Semaphore, 8 and 16 workers\n  \
        ringbus bench wake --quick                   # WaitSet wake latency: futex, futex_waitv, io_uring, epoll\n  \
        ringbus bench polling --quick                # a ROS-style node: per-message callbacks vs a timer that polls\n  \
        ringbus bench queue --quick                  # command queue push cost: cached vs uncached head, rtrb, ArrayQueue\n  \
        ringbus bench pingpong --quick               # one message between two pinned CPUs, busy-poll and woken, vs a cache-line floor\n  \
        ringbus record --all -o run.mcap --duration 10s   # every topic into an MCAP file (Foxglove, ROS 2 bags)\n  \
        ringbus replay run.mcap                      # published again, with the recorded timing\n  \
        ringbus doctor                               # what this machine lacks for ringbus, and how to fix it\n  \
        ringbus completions bash > ~/.local/share/bash-completion/completions/ringbus"
)]
struct Cli {
    /// The ringbus root directory [default: $RINGBUS_ROOT, else /dev/shm/ringbus-$UID].
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    // SAFETY: called first, before any thread exists; restores the default action so
    // that `ringbus list | head` ends quietly instead of panicking on a closed pipe.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::parse();
    if let Some(root) = &cli.root {
        // Before any thread starts; every command and worker then finds it the usual way.
        std::env::set_var(ringbus::ROOT_ENV, root);
    }
    match cli.command.run(Cli::command) {
        Ok(()) => ExitCode::SUCCESS,
        // Ctrl-C while a join waited for a stopped participant's lock: stopped as asked.
        Err(e) if matches!(e.downcast_ref(), Some(ringbus::OpenError::Interrupted { .. })) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            match e.downcast_ref::<cmd::output::Failure>() {
                Some(failure) => ExitCode::from(failure.exit_code()),
                // The command's --timeout passed while a join waited for a lock.
                None if matches!(e.downcast_ref(), Some(ringbus::OpenError::LockTimedOut { .. })) => ExitCode::from(4),
                None => ExitCode::FAILURE,
            }
        }
    }
}
