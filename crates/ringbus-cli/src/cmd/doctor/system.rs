//! The checks of the kernel and of this process: kernel release, `futex_waitv`, the
//! WaitSet backend (io_uring or epoll), the open-file limit and the perf tracepoint.

use super::Finding;
use ringbus::waitset::{Backend, BackendChoice};
use ringbus::{WaitSet, WaitSetError};
use rustix::io::Errno;

/// Below this, open files may run out: each publisher and subscriber holds a few.
const MIN_OPEN_FILES: u64 = 4096;

/// `major.minor` of a kernel release such as `6.8.0-45-generic`.
fn parse_release(release: &str) -> Option<(u32, u32)> {
    let mut numbers = release.split(|c: char| !c.is_ascii_digit());
    Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
}

pub fn kernel() -> Finding {
    const CHECK: &str = "kernel";
    let release = rustix::system::uname().release().to_string_lossy().into_owned();
    let Some(version) = parse_release(&release) else {
        let detail = format!("cannot read a version in the release {release:?}");
        return Finding::warn(CHECK, detail, "make sure this is Linux 5.16 or later (6.7 or later for io_uring)");
    };
    if version < (5, 16) {
        let pidfd = if version < (5, 3) { " nor pidfd (5.3)" } else { "" };
        let detail = format!("Linux {release}: no futex_waitv (5.16){pidfd}; ringbus cannot wait here");
        return Finding::fail(CHECK, detail, "upgrade to Linux 5.16 or later (6.7 or later for the io_uring backend)");
    }
    if version < (6, 7) {
        let detail = format!(
            "Linux {release}: futex_waitv (5.16) and pidfd (5.3) present; no io_uring futex operations (6.7), \
             so wait sets that watch fds use epoll and a helper thread"
        );
        return Finding::warn(CHECK, detail, "everything works; Linux 6.7 or later gives the faster io_uring backend");
    }
    let detail = format!("Linux {release}: futex_waitv (5.16), pidfd (5.3) and io_uring futex operations (6.7)");
    Finding::ok(CHECK, detail)
}

pub fn futex_waitv() -> Finding {
    const CHECK: &str = "futex_waitv";
    match ringbus::waitset::probe::futex_waitv() {
        Ok(()) => Finding::ok(CHECK, "works: a call on a word that differs returned EAGAIN at once"),
        Err(e) if Errno::from_io_error(&e) == Some(Errno::NOSYS) => Finding::fail(
            CHECK,
            format!("missing ({e}): the kernel is older than 5.16, or a seccomp profile older than the call hides it"),
            "upgrade to Linux 5.16 or later; in a container, update the runtime or allow futex_waitv in its seccomp profile",
        ),
        Err(e) => Finding::fail(
            CHECK,
            format!("refused: {e}"),
            "a seccomp filter or sandbox blocks futex_waitv: allow it (docker: --security-opt seccomp=<a profile that lists futex_waitv>)",
        ),
    }
}

/// What to do when io_uring is refused, given `kernel.io_uring_disabled`.
fn io_uring_advice(sysctl: Option<&str>) -> String {
    let how = match sysctl {
        Some("1") => "io_uring is only for CAP_SYS_ADMIN and the group in kernel.io_uring_group: add this user to that group, or `sysctl -w kernel.io_uring_disabled=0`",
        Some("2") => "io_uring is disabled for everyone: `sysctl -w kernel.io_uring_disabled=0` enables it",
        _ => "allow io_uring_setup, io_uring_enter and io_uring_register in the seccomp profile, or use Linux 6.7 or later",
    };
    format!("{how}; meanwhile wait sets that watch fds use epoll (a helper thread, one more hop per wake)")
}

/// The backend a wait set starts on, and the one it moves to to watch fds (`as_raw_fd`
/// moves it as attaching an fd does).
fn fd_backend() -> Result<(Backend, Backend), WaitSetError> {
    let set = WaitSet::new()?;
    let initial = set.backend();
    set.as_raw_fd()?;
    Ok((initial, set.backend()))
}

/// Whether this process may use io_uring, and if not why.
fn io_uring_works() -> String {
    match WaitSet::with_backend(BackendChoice::Force(Backend::IoUring)) {
        Ok(_) => "io_uring works here".to_string(),
        Err(e) => format!("io_uring is refused: {e}"),
    }
}

pub fn io_uring() -> Finding {
    const CHECK: &str = "io_uring";
    const ENV: &str = "RINGBUS_WAITSET_BACKEND";
    let forced = std::env::var(ENV).ok().filter(|v| !v.is_empty());
    let forced_note = forced.as_deref().map(|v| format!(" ({ENV}={v})")).unwrap_or_default();
    let sysctl = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").ok().map(|s| s.trim().to_string());
    let sysctl_note = sysctl.as_deref().map(|v| format!("; kernel.io_uring_disabled = {v}")).unwrap_or_default();
    let restricted = matches!(sysctl.as_deref(), Some("1" | "2"));
    let (initial, backend) = match fd_backend() {
        Ok(backends) => backends,
        Err(e) => {
            let advice = match forced {
                Some(_) => format!("unset {ENV} (or set it to io_uring or epoll)"),
                None => format!("neither io_uring nor epoll works here; {}", io_uring_advice(sysctl.as_deref())),
            };
            return Finding::fail(CHECK, format!("a wait set cannot watch fds{forced_note}: {e}{sysctl_note}"), advice);
        }
    };
    let detail = format!("backend {}{forced_note}: wait sets that watch fds sleep in it{sysctl_note}", backend.name());
    match backend {
        // A value the core does not know leaves the choice on Auto, which starts on futex.
        _ if forced.is_some() && initial == Backend::Futex => Finding::warn(
            CHECK,
            format!("{detail}; {ENV} is ignored: it is not futex, io_uring or epoll"),
            format!("unset {ENV}, or set it to io_uring or epoll"),
        ),
        Backend::IoUring if restricted => Finding::warn(
            CHECK,
            format!("{detail}; other users fall back to epoll"),
            "`sysctl -w kernel.io_uring_disabled=0` lets every user have io_uring",
        ),
        Backend::IoUring => Finding::ok(CHECK, detail),
        Backend::Epoll if forced.is_some() && !restricted => {
            Finding::ok(CHECK, format!("{detail}; {}", io_uring_works()))
        }
        Backend::Epoll => {
            Finding::warn(CHECK, format!("{detail}; {}", io_uring_works()), io_uring_advice(sysctl.as_deref()))
        }
        Backend::Futex => Finding::fail(CHECK, detail, "report this ringbus bug: as_raw_fd left the wait set on futex"),
    }
}

pub fn open_files() -> Finding {
    const CHECK: &str = "open_files";
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    let show = |n: Option<u64>| n.map_or("unlimited".to_string(), |n| n.to_string());
    let detail = format!("soft limit {}, hard limit {}", show(limit.current), show(limit.maximum));
    let Some(soft) = limit.current.filter(|&soft| soft < MIN_OPEN_FILES) else {
        return Finding::ok(CHECK, detail);
    };
    let detail = format!("{detail}: below {MIN_OPEN_FILES}, and each publisher and subscriber holds a few fds");
    let advice = match limit.maximum {
        Some(hard) if hard <= soft => format!(
            "the hard limit is {hard}: raise it (docker --ulimit nofile=65536:65536, systemd LimitNOFILE=65536, \
             or /etc/security/limits.conf), then ulimit -n 65536"
        ),
        Some(hard) => format!("ulimit -n {hard}"),
        None => "ulimit -n 65536".to_string(),
    };
    Finding::warn(CHECK, detail, advice)
}

pub fn tracing() -> Finding {
    const CHECK: &str = "tracing";
    match ringbus::diagnostics::SyscallCounter::for_this_thread() {
        Ok(_) => Finding::ok(CHECK, "`ringbus bench fanout` can count system calls (raw_syscalls:sys_enter)"),
        Err(e) => Finding::warn(
            CHECK,
            format!("`ringbus bench fanout` will report system calls as n/a: {e}"),
            "only that benchmark needs it: run it as root, or `sysctl -w kernel.perf_event_paranoid=-1` with tracefs mounted",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_gives_major_and_minor() {
        assert_eq!(parse_release("6.8.0-45-generic"), Some((6, 8)));
        assert_eq!(parse_release("5.15.167.4-microsoft-standard-WSL2"), Some((5, 15)));
        assert_eq!(parse_release("6.18"), Some((6, 18)));
        assert_eq!(parse_release("6"), None);
        assert_eq!(parse_release("linux"), None);
    }

    #[test]
    fn io_uring_advice_names_what_the_sysctl_needs() {
        assert!(io_uring_advice(Some("1")).contains("io_uring_group"));
        assert!(io_uring_advice(Some("2")).contains("io_uring_disabled=0"));
        assert!(io_uring_advice(None).contains("seccomp"));
    }
}
