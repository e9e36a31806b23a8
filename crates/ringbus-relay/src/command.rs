//! The life of a bridge command: the mappings it is given, the wait for Ctrl-C or SIGTERM,
//! the lines it prints, its exit codes (0 stopped, 1 error, 2 bad usage).

use crate::{Direction, Pair};
use anyhow::{Context, Result};
use std::process::ExitCode;

/// The mappings given as `--out`, `--in` and `--both`, each read by `parse`, then merged
/// ([`crate::mapping::merge`]), with the note of each; `nothing` is the error when none is
/// given.
pub fn mappings<M: Pair>(
    out: &[String],
    incoming: &[String],
    both: &[String],
    parse: impl Fn(&str, Direction) -> Result<M, String>,
    nothing: impl std::fmt::Display,
) -> Result<(Vec<M>, Vec<Option<String>>), String> {
    let groups = [(out, Direction::Out), (incoming, Direction::In), (both, Direction::Both)];
    let mut given = Vec::new();
    for (specs, direction) in groups {
        for spec in specs {
            given.push(parse(spec, direction)?);
        }
    }
    match crate::mapping::merge(&given) {
        merged if merged.is_empty() => Err(format!("{nothing} (see --help)")),
        merged => Ok(merged.into_iter().unzip()),
    }
}

/// Once the bridge has started: prints `ready` (its ready lines), waits for Ctrl-C or
/// SIGTERM, stops the bridge with `stop` and prints what it returns (the counters, final
/// once every mapping has stopped).
pub fn until_stopped(ready: Vec<String>, stop: impl FnOnce() -> Vec<String>) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .context("cannot install the Ctrl-C handler")?;
    for line in ready {
        println!("{line}");
    }
    let _ = rx.recv();
    for line in stop() {
        println!("{line}");
    }
    Ok(())
}

/// The ready line of each mapping: `  TOPIC -> NAME`, and what was merged into it, if
/// anything (the notes of [`crate::mapping::merge`]).
pub fn mapping_lines<M: std::fmt::Display>(mappings: &[M], notes: &[Option<String>]) -> Vec<String> {
    let note = |i: usize| notes.get(i).cloned().flatten();
    let line = |(i, m): (usize, &M)| match note(i) {
        Some(note) => format!("  {m} ({note})"),
        None => format!("  {m}"),
    };
    mappings.iter().enumerate().map(line).collect()
}

/// The command's exit: `usage` is its arguments, read (an error: `error: …` on stderr, exit
/// 2); `run` runs the bridge on them until it stops (exit 0) or fails (the error and its
/// causes on stderr, exit 1).
pub fn exit<C>(usage: Result<C, String>, run: impl FnOnce(&C) -> Result<()>) -> ExitCode {
    let config = match usage {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
