//! Job tokens without a pipe: `P` worker processes share `T` tokens of a [`Semaphore`],
//! the way make's jobserver shares bytes of a pipe — but `post` wakes exactly one
//! sleeper instead of every process polling the pipe.
//!
//! ```sh
//! cargo run -p ringbus --example job_tokens [-- WORKERS TOKENS JOBS]   # default 8 2 200
//! ```
//!
//! The workers are this program started again (`--worker JOBS`); each job holds a token for
//! 200 µs. Uses `$RINGBUS_ROOT` if set, else a directory of its own under /dev/shm, removed
//! at the end.

mod support;

use ringbus::{Node, Semaphore};
use std::process::Command;
use std::time::{Duration, Instant};
use support::ExampleRoot;

fn run_jobs(sem: &Semaphore, jobs: u32) -> Result<(), Box<dyn std::error::Error>> {
    for _ in 0..jobs {
        sem.wait(); // take a token (sleeps if none is free)
        let start = Instant::now();
        while start.elapsed() < Duration::from_micros(200) {
            std::hint::spin_loop(); // "compile a file"
        }
        sem.post()?; // give it back: wakes one sleeper, if any
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--worker") {
        let node = Node::new("job-worker")?; // the root the parent passed in $RINGBUS_ROOT
        let sem = node.semaphore("example/jobs", 0)?; // opens the parent's: the count stays
        return run_jobs(&sem, args.get(2).ok_or("--worker needs a job count")?.parse()?);
    }
    let arg = |i: usize, default: u32| args.get(i).map_or(Ok(default), |a| a.parse());
    let (workers, tokens, jobs) = (arg(1, 8)?, arg(2, 2)?, arg(3, 200)?);
    if workers == 0 || tokens == 0 {
        return Err("at least one worker and one token".into());
    }
    let root = ExampleRoot::new();
    let node = Node::with_root("jobs", &root.path)?;
    let sem = node.semaphore("example/jobs", tokens)?;
    let started = Instant::now();
    let children: Vec<_> = (0..workers)
        .map(|_| {
            Command::new(std::env::current_exe()?)
                .args(["--worker", &(jobs / workers).to_string()])
                .env("RINGBUS_ROOT", &root.path)
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    for mut child in children {
        if !child.wait()?.success() {
            return Err("a worker failed".into());
        }
    }
    let stats = sem.stats();
    println!(
        "{workers} workers ran {} jobs with {tokens} tokens in {:?}; {} posts woke a sleeper ({} woken), {} found nobody asleep",
        jobs / workers * workers,
        started.elapsed(),
        stats.wake_calls,
        stats.woken,
        stats.skipped
    );
    if sem.value() != tokens {
        return Err(format!("{} tokens came back, not {tokens}", sem.value()).into());
    }
    sem.unlink(); // named objects persist until unlinked
    Ok(())
}
