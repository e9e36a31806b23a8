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

/// A `ringbus` command running in the background (a live participant for the test), its
/// stdout in a file. Killed with SIGKILL if still running when dropped, and by the kernel
/// if the test process dies.
pub struct Background {
    pub child: std::process::Child,
    out: std::path::PathBuf,
}

impl Background {
    pub fn start(args: &[&str], root: &Path, scratch: &tempfile::TempDir, name: &str) -> Background {
        Self::start_program(Path::new(env!("CARGO_BIN_EXE_ringbus")), args, &[], root, scratch, name)
    }

    /// [`Background::start`] of any program, with extra environment variables.
    pub fn start_program(
        program: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        root: &Path,
        scratch: &tempfile::TempDir,
        name: &str,
    ) -> Background {
        let out = scratch.path().join(format!("{name}.stdout"));
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(env.iter().copied())
            .env("RINGBUS_ROOT", root)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(Stdio::inherit());
        // SAFETY: prctl is async-signal-safe; it only asks the kernel to SIGKILL the child
        // when the test process dies, so a failed test leaves no process behind.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        Background { child: command.spawn().expect("start the ringbus binary"), out }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stdout(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap()
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid, which it keeps until we reap it.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// Waits for it to exit, failing after `limit`.
    pub fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(start.elapsed() < limit, "watchdog: background ringbus still running after {limit:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for `cond`, failing after `limit` with `what`.
pub fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `ringbus ARGS --json` (with root), parsed; fails unless it exits 0.
pub fn json(args: &[&str], root: &Path, scratch: &tempfile::TempDir) -> serde_json::Value {
    let run = ringbus(args, Some(root), scratch, Duration::from_secs(60));
    assert!(run.status.success(), "ringbus {args:?} failed: {}{}", run.stdout, run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("ringbus {args:?}: {e}: {}", run.stdout))
}
