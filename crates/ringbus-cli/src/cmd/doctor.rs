//! `ringbus doctor`: checks what ringbus needs from this machine (kernel, system calls,
//! the shared-memory filesystem, the root directory, limits) and says what to do about
//! each problem. The checks live in `doctor/system.rs` (kernel and process) and
//! `doctor/storage.rs` (the filesystem and the root); this file runs them and prints.

mod storage;
mod system;

use super::output::{colour_enabled, counted, paint_when, Colour, JsonFlag};
use anyhow::bail;

pub const LONG_ABOUT: &str = "\
Checks what ringbus needs from this machine and, for each problem, says what to do. One
line per check: OK, WARN (works, but slower or fragile) or FAIL (ringbus will not work).

  kernel       the kernel release: 5.16 for futex_waitv, 6.7 for io_uring futex
               operations (else wait sets with fds use epoll), pidfd since 5.3
  futex_waitv  a real futex_waitv call that cannot block
  io_uring     which backend a WaitSet that watches fds will use (io_uring or epoll),
               RINGBUS_WAITSET_BACKEND and kernel.io_uring_disabled
  shm          the filesystem of the ringbus root: tmpfs, its size and free space
  root         the root directory ($RINGBUS_ROOT or /dev/shm/ringbus-<uid>): a
               directory we own that others cannot write into (never created here)
  open_files   the open-file limit (RLIMIT_NOFILE)
  tracing      whether `ringbus bench fanout` can count system calls (perf tracepoint)

Exit status: 0 if no check failed (warnings included), 1 if any did. Colour only on a
terminal, and never with NO_COLOR set.";

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// `--json`: a JSON array of {check, status, detail, advice} instead of the table.
    #[command(flatten)]
    json: JsonFlag,
}

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }

    /// The colour of its label.
    fn colour(self) -> Colour {
        match self {
            Status::Ok => Colour::Green,
            Status::Warn => Colour::Yellow,
            Status::Fail => Colour::Red,
        }
    }
}

/// What one check found, and what to do about it when it is not OK (a JSON object of
/// these four fields in this order).
#[derive(Debug, serde::Serialize)]
pub struct Finding {
    pub check: &'static str,
    pub status: Status,
    pub detail: String,
    pub advice: Option<String>,
}

impl Finding {
    pub fn ok(check: &'static str, detail: impl Into<String>) -> Finding {
        Finding { check, status: Status::Ok, detail: detail.into(), advice: None }
    }

    pub fn warn(check: &'static str, detail: impl Into<String>, advice: impl Into<String>) -> Finding {
        Finding { check, status: Status::Warn, detail: detail.into(), advice: Some(advice.into()) }
    }

    pub fn fail(check: &'static str, detail: impl Into<String>, advice: impl Into<String>) -> Finding {
        Finding { check, status: Status::Fail, detail: detail.into(), advice: Some(advice.into()) }
    }
}

/// Every check, in the order they are printed.
fn findings() -> Vec<Finding> {
    let root = ringbus::Root::default_path();
    let root = std::path::absolute(&root).unwrap_or(root);
    vec![
        system::kernel(),
        system::futex_waitv(),
        system::io_uring(),
        storage::shm(&root),
        storage::root(&root),
        system::open_files(),
        system::tracing(),
    ]
}

impl DoctorArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let findings = findings();
        if self.json.json {
            println!("{}", json(&findings));
        } else {
            print!("{}", table(&findings, colour_enabled()));
        }
        let failed: Vec<&str> = findings.iter().filter(|f| f.status == Status::Fail).map(|f| f.check).collect();
        if !failed.is_empty() {
            bail!("{} failed: {}", counted(failed.len() as u64, "check"), failed.join(", "));
        }
        Ok(())
    }
}

fn json(findings: &[Finding]) -> String {
    serde_json::to_string_pretty(findings).expect("strings always serialize")
}

/// One line per check: status, check, finding, then `→ advice` when not OK.
fn table(findings: &[Finding], colour: bool) -> String {
    let width = findings.iter().map(|f| f.check.len()).max().unwrap_or(0);
    let mut out = String::new();
    for f in findings {
        let label = format!("{:<4}", f.status.label());
        let label = paint_when(colour, &label, f.status.colour());
        let advice = f.advice.as_deref().map(|a| format!(" → {a}")).unwrap_or_default();
        out += &format!("{label}  {:<width$}  {}{advice}\n", f.check, f.detail);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_one_line_per_check_and_colours_only_when_asked() {
        let findings = [Finding::ok("kernel", "fine"), Finding::fail("root", "mode 777", "chmod 700 /r")];
        let plain = table(&findings, false);
        assert_eq!(plain, "OK    kernel  fine\nFAIL  root    mode 777 → chmod 700 /r\n");
        let coloured = table(&findings, true);
        assert!(coloured.starts_with("\x1b[32mOK  \x1b[0m  kernel") && coloured.contains("\x1b[31mFAIL\x1b[0m"));
    }

    #[test]
    fn json_has_the_four_fields_with_a_null_advice_when_ok() {
        let rows: serde_json::Value = serde_json::from_str(&json(&[Finding::ok("kernel", "fine")])).unwrap();
        assert_eq!(rows, serde_json::json!([{"check": "kernel", "status": "ok", "detail": "fine", "advice": null}]));
    }
}
