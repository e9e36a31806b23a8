//! Shared helpers of the integration tests: an isolated root per test, child processes
//! re-executed from the test binary itself, and a watchdog.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh `RINGBUS_ROOT` on tmpfs, removed (with everything in it) when dropped.
pub struct TestRoot {
    dir: tempfile::TempDir,
}

impl TestRoot {
    pub fn new() -> TestRoot {
        let dir = tempfile::Builder::new().prefix("ringbus-test-").tempdir_in("/dev/shm").expect("tmpfs at /dev/shm");
        TestRoot { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn node(&self, name: &str) -> ringbus::Node {
        ringbus::Node::with_root(name, self.path()).expect("node")
    }

    /// Names of the files in the root.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(self.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        v.sort();
        v
    }

    pub fn file_path(&self, prefix: &str) -> PathBuf {
        let name = self
            .files()
            .into_iter()
            .find(|f| f.starts_with(prefix))
            .unwrap_or_else(|| panic!("no file {prefix}* in {:?}", self.files()));
        self.path().join(name)
    }
}

/// Environment variable naming the child role a re-executed test binary plays.
pub const CHILD_ENV: &str = "RINGBUS_TEST_CHILD";

/// Runs the test function `entry` of this same test binary in a child process, with
/// `RINGBUS_TEST_CHILD=role` and extra environment.
pub fn spawn_child(entry: &str, role: &str, root: &Path, env: &[(&str, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([entry, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, role)
        .env("RINGBUS_ROOT", root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    // SAFETY: prctl is async-signal-safe; it only asks the kernel to SIGKILL the child when
    // this test process dies, so a failed test never leaves children behind.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    cmd.spawn().expect("spawn child")
}

/// The role this process was started for, if it is a child.
pub fn child_role() -> Option<String> {
    std::env::var(CHILD_ENV).ok()
}

pub fn env_u64(name: &str) -> u64 {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} not set")).parse().unwrap()
}

/// Fails the test (instead of hanging CI) if `f` runs longer than `limit`; a panic in `f`
/// is passed on as is.
pub fn with_watchdog<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sends before it ends"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("watchdog: {what} did not finish within {limit:?}"),
    }
}

/// Reads the child's stdout up to its line `marker` (the test harness prints its own
/// lines first).
pub fn read_until_line(out: &mut impl std::io::BufRead, marker: &str) {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "child exited before printing {marker:?}");
        if line.trim_end().ends_with(marker) {
            return;
        }
    }
}

/// Waits for `cond`, failing after `limit` with `what`.
pub fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits for a child with a deadline; kills it and fails if it overruns.
pub fn wait_child(mut child: Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("watchdog: {what} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A few `AtomicU32`s in a file on tmpfs mapped `MAP_SHARED`: counters and words that
/// test processes share outside ringbus. Unmapped and removed when the creator drops it.
pub struct SharedWords {
    ptr: *mut std::sync::atomic::AtomicU32,
    path: PathBuf,
    owner: bool,
}

pub const SHARED_WORDS: usize = 1024;

impl SharedWords {
    pub fn create() -> SharedWords {
        let path = tempfile::Builder::new().prefix("ringbus-words-").tempfile_in("/dev/shm").unwrap().into_temp_path();
        let path = path.keep().unwrap();
        Self::map(path, true)
    }

    pub fn open(path: &Path) -> SharedWords {
        Self::map(path.to_path_buf(), false)
    }

    fn map(path: PathBuf, owner: bool) -> SharedWords {
        use std::os::fd::AsRawFd;
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        file.set_len((SHARED_WORDS * 4) as u64).unwrap();
        // SAFETY: a fresh shared mapping of a file we just sized; nothing else in this
        // process aliases it; it is unmapped in Drop.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                SHARED_WORDS * 4,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        assert_ne!(ptr, libc::MAP_FAILED);
        SharedWords { ptr: ptr.cast(), path, owner }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn word(&self, i: usize) -> &std::sync::atomic::AtomicU32 {
        assert!(i < SHARED_WORDS);
        // SAFETY: in bounds of the live mapping, 4-aligned (page-aligned base); AtomicU32
        // is valid for any bit pattern and shared mutation goes through atomics only.
        unsafe { &*self.ptr.add(i) }
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once; no reference outlives self.
        unsafe { libc::munmap(self.ptr.cast(), SHARED_WORDS * 4) };
        if self.owner {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A private tmpfs mount for one test, unmounted when dropped.
pub struct Mount(pub tempfile::TempDir);

impl Mount {
    pub fn tmpfs(options: &str) -> Mount {
        Mount::try_tmpfs(options).expect("this test mounts a tmpfs and needs root (CI runs as root)")
    }

    /// [`Mount::tmpfs`], or `None` where mounting is not allowed (not root, no `mount`),
    /// said on stderr: the caller skips its test.
    pub fn try_tmpfs(options: &str) -> Option<Mount> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", options, "tmpfs"]).arg(dir.path()).status();
        match mounted {
            Ok(status) if status.success() => Some(Mount(dir)),
            other => {
                eprintln!("skipped: cannot mount a tmpfs ({other:?}); this test needs root");
                None
            }
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}
