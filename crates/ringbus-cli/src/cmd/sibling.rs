//! Commands of their own that `ringbus` hands over to (`ringbus bridge` runs
//! `ringbus-bridge`, `ringbus ros2` runs `ringbus-ros2`): they are separate builds so that
//! `ringbus` carries neither Zenoh nor DDS. This finds one and runs it in this process.

use anyhow::{bail, Result};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

/// `program` beside this executable, else the first on PATH.
fn find(program: &str) -> Option<PathBuf> {
    let beside = std::env::current_exe().ok()?.with_file_name(program);
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    std::iter::once(beside).chain(on_path.map(|dir| dir.join(program))).find(|p| p.is_file())
}

/// Runs `program` with `args` in place of this process (exec: signals such as Ctrl-C and
/// SIGTERM, and the exit code, are the program's own); returns only on failure.
/// `missing` says how to install it when it is not found.
pub fn exec(program: &str, args: &[String], missing: &str) -> Result<()> {
    let Some(path) = find(program) else {
        bail!("{missing}");
    };
    let error = std::process::Command::new(&path).args(args).exec();
    bail!("cannot run {}: {error}", path.display())
}
