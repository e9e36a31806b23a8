//! Job tokens without a pipe: `P` worker processes share `T` tokens of a [`Semaphore`],
//! the way make's jobserver shares bytes of a pipe — but `post` wakes exactly one
//! sleeper instead of every process polling the pipe.
//!
//! `cargo run --example jobs [workers] [tokens] [jobs]` (defaults 8, 2, 200).

use ringbus::{Node, Semaphore};
use std::process::Command;
use std::time::{Duration, Instant};

fn run_jobs(sem: &Semaphore, jobs: u32) {
    for _ in 0..jobs {
        sem.wait(); // take a token (sleeps if none is free)
        let start = Instant::now();
        while start.elapsed() < Duration::from_micros(200) {
            std::hint::spin_loop(); // "compile a file"
        }
        sem.post().expect("a token we took"); // give it back: wakes one sleeper, if any
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let node = Node::new("jobs")?;
    if args.get(1).map(String::as_str) == Some("worker") {
        let sem = node.semaphore("example/jobs", 0)?;
        run_jobs(&sem, args[2].parse()?);
        return Ok(());
    }
    let arg = |i: usize, default: u32| args.get(i).map_or(Ok(default), |a| a.parse());
    let (workers, tokens, jobs) = (arg(1, 8)?, arg(2, 2)?, arg(3, 200)?);
    let sem = node.semaphore("example/jobs", tokens)?;
    let started = Instant::now();
    let children: Vec<_> = (0..workers)
        .map(|_| Command::new(&args[0]).args(["worker", &(jobs / workers).to_string()]).spawn())
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
    assert_eq!(sem.value(), tokens, "every token came back");
    sem.unlink();
    Ok(())
}
