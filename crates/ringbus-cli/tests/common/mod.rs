//! What the CLI tests share: running the built `ringbus` binary under a watchdog, and a
//! fresh root on tmpfs.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Run {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `ringbus args...` (with `RINGBUS_ROOT=root` if given), output in files in
/// `scratch`, killed and failed after `watchdog` (instead of hanging CI).
pub fn ringbus(args: &[&str], root: Option<&Path>, scratch: &tempfile::TempDir, watchdog: Duration) -> Run {
    ringbus_env(args, root, &[], scratch, watchdog)
}

/// [`ringbus()`] with extra environment variables, set after the runner's own (so
/// `RINGBUS_WAITSET_BACKEND`, which [`ringbus()`] removes, can be set here).
pub fn ringbus_env(
    args: &[&str],
    root: Option<&Path>,
    env: &[(&str, &str)],
    scratch: &tempfile::TempDir,
    watchdog: Duration,
) -> Run {
    let out = scratch.path().join("stdout");
    let err = scratch.path().join("stderr");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ringbus"));
    command
        .args(args)
        .env_remove("RINGBUS_WAITSET_BACKEND")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    if let Some(root) = root {
        command.env("RINGBUS_ROOT", root);
    }
    command.envs(env.iter().copied());
    let mut child = command.spawn().expect("start the ringbus binary");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > watchdog {
            let _ = child.kill();
            let _ = child.wait();
            panic!("watchdog: `ringbus {}` still running after {watchdog:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run { status, stdout: std::fs::read_to_string(out).unwrap(), stderr: std::fs::read_to_string(err).unwrap() }
}

/// A fresh root on tmpfs, as the benches' runs need.
pub fn root() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm").expect("tmpfs at /dev/shm")
}

pub fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect()
}
