//! The bench's handle on its subscriber processes: starts them, waits until they are
//! ready or done (bounded, noticing any that died), and kills and reaps every one still
//! running when dropped — on every exit path, errors included.

use crate::config::WorkerLauncher;
use crate::interrupt;
use crate::results::ResultsFile;
use crate::worker::WorkerSpec;
use anyhow::{bail, Context, Result};
use std::io::Read;
use std::os::fd::RawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct Workers {
    children: Vec<Option<Child>>,
}

impl Workers {
    /// Starts one process per spec; `inherit` is the fd that child alone keeps across exec.
    pub(crate) fn spawn(launcher: &WorkerLauncher, specs: Vec<(WorkerSpec, Option<RawFd>)>) -> Result<Workers> {
        let mut workers = Workers { children: Vec::with_capacity(specs.len()) };
        for (spec, inherit) in specs {
            let mut cmd = Command::new(&launcher.program);
            cmd.args(&launcher.args)
                .arg(serde_json::to_string(&spec)?)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            if let Some(fd) = inherit {
                // SAFETY: runs in the child between fork and exec; fcntl is async-signal-safe
                // and the closure neither allocates nor takes locks.
                unsafe {
                    cmd.pre_exec(move || match libc::fcntl(fd, libc::F_SETFD, 0) {
                        -1 => Err(std::io::Error::last_os_error()),
                        _ => Ok(()),
                    })
                };
            }
            let child = cmd.spawn().with_context(|| {
                format!("cannot start subscriber process {} ({})", spec.index, launcher.program.display())
            })?;
            workers.children.push(Some(child));
        }
        Ok(workers)
    }

    /// Fails if a subscriber process exited before it was meant to.
    fn check_alive(&mut self) -> Result<()> {
        for (i, slot) in self.children.iter_mut().enumerate() {
            if let Some(child) = slot {
                if let Some(status) = child.try_wait()? {
                    let why = stderr_of(child);
                    *slot = None;
                    bail!("subscriber process {i} exited early ({status}): {why}");
                }
            }
        }
        Ok(())
    }

    /// Waits until all `n` subscribers announced readiness and `settled()` holds.
    pub(crate) fn wait_ready(
        &mut self,
        results: &ResultsFile,
        n: u64,
        settled: &dyn Fn() -> bool,
        limit: Duration,
    ) -> Result<()> {
        let start = Instant::now();
        let mut polls = 0u64;
        loop {
            let ready = results.ready();
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
                    "only {ready} of {n} subscriber processes {what} after {limit:?}; \
                     the machine may be overloaded: try fewer --subs or --topics"
                );
            }
            polls += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Waits (at most `limit`) for every subscriber to exit, and fails if one failed.
    pub(crate) fn wait_exit(&mut self, limit: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            let mut running = 0;
            for (i, slot) in self.children.iter_mut().enumerate() {
                let Some(child) = slot else { continue };
                match child.try_wait()? {
                    None => running += 1,
                    Some(status) => {
                        let why = if status.success() { String::new() } else { stderr_of(child) };
                        *slot = None;
                        check_status(i, status, &why)?;
                    }
                }
            }
            if running == 0 {
                return Ok(());
            }
            interrupt::check()?;
            if start.elapsed() > limit {
                bail!(
                    "{running} subscriber processes had not received the last message {limit:?} after it was \
                     published; some messages were lost, or the machine is overloaded (try a lower --rate)"
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

fn check_status(i: usize, status: ExitStatus, why: &str) -> Result<()> {
    if status.success() {
        Ok(())
    } else {
        bail!("subscriber process {i} failed ({status}): {why}")
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
