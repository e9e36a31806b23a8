//! Launching worker processes, the bench's side (what runs inside one is
//! [`crate::worker_main`]): starts them, waits until they are ready or done (bounded,
//! noticing any that died), and kills and reaps every one still running when dropped — on
//! every exit path, errors included.

use crate::config::WorkerLauncher;
use crate::interrupt;
use crate::worker_main::WorkerJob;
use anyhow::{bail, Context, Result};
use std::io::Read;
use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How to start one worker process.
#[derive(Debug)]
pub(crate) struct Launch {
    /// The spec handed to [`crate::worker_main::run`].
    pub arg: String,
    /// Fds that this child alone keeps across exec (their close-on-exec flag is cleared
    /// in the child only).
    pub inherit: Vec<RawFd>,
}

impl Launch {
    /// A process for `job`, keeping `inherit` across exec.
    pub(crate) fn new(job: WorkerJob, inherit: Vec<RawFd>) -> Result<Launch> {
        Ok(Launch { arg: job.into_arg()?, inherit })
    }
}

#[derive(Debug)]
pub(crate) struct Workers {
    children: Vec<Option<Child>>,
    /// What the processes are, for messages: "subscriber", "worker".
    role: &'static str,
}

impl Workers {
    /// Starts one process per launch.
    pub(crate) fn spawn(launcher: &WorkerLauncher, role: &'static str, launches: Vec<Launch>) -> Result<Workers> {
        let mut workers = Workers { children: Vec::with_capacity(launches.len()), role };
        for (i, launch) in launches.into_iter().enumerate() {
            let mut cmd = Command::new(&launcher.program);
            cmd.args(&launcher.args).arg(launch.arg).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
            if !launch.inherit.is_empty() {
                let fds = launch.inherit;
                // SAFETY: runs in the child between fork and exec; fcntl is async-signal-safe
                // and the closure neither allocates nor takes locks (it only reads `fds`).
                unsafe {
                    cmd.pre_exec(move || {
                        for &fd in &fds {
                            if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                                return Err(std::io::Error::last_os_error());
                            }
                        }
                        Ok(())
                    })
                };
            }
            let child = cmd
                .spawn()
                .with_context(|| format!("cannot start {role} process {i} ({})", launcher.program.display()))?;
            workers.children.push(Some(child));
        }
        Ok(workers)
    }

    /// Fails if a process exited before it was meant to.
    fn check_alive(&mut self) -> Result<()> {
        for (i, slot) in self.children.iter_mut().enumerate() {
            if let Some(child) = slot {
                if let Some(status) = child.try_wait()? {
                    let why = stderr_of(child);
                    *slot = None;
                    bail!("{} process {i} exited early ({status}): {why}", self.role);
                }
            }
        }
        Ok(())
    }

    /// Waits until `ready()` reaches `n` and `settled()` holds; `hint` ends the message
    /// when they take longer than `limit`.
    pub(crate) fn wait_ready(
        &mut self,
        ready: &dyn Fn() -> u64,
        n: u64,
        settled: &dyn Fn() -> bool,
        limit: Duration,
        hint: &str,
    ) -> Result<()> {
        let start = Instant::now();
        let mut polls = 0u64;
        loop {
            let ready = ready();
            if ready >= n && settled() {
                return Ok(());
            }
            interrupt::check()?;
            if polls.is_multiple_of(16) {
                self.check_alive()?;
            }
            if start.elapsed() > limit {
                let what = if ready < n { "announced they were ready" } else { "were asleep waiting for data" };
                bail!(
                    "only {ready} of {n} {} processes {what} after {limit:?}; the machine may be overloaded: {hint}",
                    self.role
                );
            }
            polls += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Reaps the processes that exited, failing if one failed; returns how many still run.
    pub(crate) fn reap_exited(&mut self) -> Result<usize> {
        let mut running = 0;
        for (i, slot) in self.children.iter_mut().enumerate() {
            let Some(child) = slot else { continue };
            match child.try_wait()? {
                None => running += 1,
                Some(status) => {
                    let why = if status.success() { String::new() } else { stderr_of(child) };
                    *slot = None;
                    check_status(self.role, i, status, &why)?;
                }
            }
        }
        Ok(running)
    }

    /// Waits (at most `limit`) for every process to exit, and fails if one failed; `hint`
    /// says what a timeout means.
    pub(crate) fn wait_exit(&mut self, limit: Duration, hint: &str) -> Result<()> {
        let start = Instant::now();
        loop {
            let running = self.reap_exited()?;
            if running == 0 {
                return Ok(());
            }
            interrupt::check()?;
            if start.elapsed() > limit {
                bail!("{running} {} processes were still running {limit:?} after the end: {hint}", self.role);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

fn check_status(role: &str, i: usize, status: ExitStatus, why: &str) -> Result<()> {
    if status.success() {
        Ok(())
    } else {
        bail!("{role} process {i} failed ({status}): {why}")
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    match text.trim() {
        "" => "it printed nothing".into(),
        t => t.to_string(),
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Kill all first, then reap: one slow exit does not delay the others' kill.
        for child in self.children.iter_mut().flatten() {
            let _ = child.kill();
        }
        for child in self.children.iter_mut().flatten() {
            let _ = child.wait();
        }
    }
}
