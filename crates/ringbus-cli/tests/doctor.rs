//! Runs the built `ringbus` binary's `doctor` and `completions` and checks what they
//! report: every check on a healthy root, a FAIL with the right advice and exit status 1
//! for a root others can write into or that is a file, the backend a forced
//! `RINGBUS_WAITSET_BACKEND` gives, no root created by looking, and completion scripts for
//! every shell. Behaviour only, no timing.

mod common;

use common::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// Each command must finish within this, or the test fails (instead of hanging CI).
const WATCHDOG: Duration = Duration::from_secs(60);

const CHECKS: [&str; 7] = ["kernel", "futex_waitv", "io_uring", "shm", "root", "open_files", "tracing"];

/// `ringbus doctor --json` with `RINGBUS_ROOT=root` and `env`: its exit code and findings.
fn doctor_json(root: &Path, env: &[(&str, &str)]) -> (Option<i32>, Vec<Value>) {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus_env(&["doctor", "--json"], Some(root), env, &scratch, WATCHDOG);
    let findings = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("doctor --json printed no JSON array ({e}):\n{}\n{}", run.stdout, run.stderr));
    (run.status.code(), findings)
}

fn finding<'a>(findings: &'a [Value], check: &str) -> &'a Value {
    findings.iter().find(|f| f["check"] == check).unwrap_or_else(|| panic!("no {check} check in {findings:#?}"))
}

#[test]
fn a_fresh_root_passes_every_check_on_this_machine_with_io_uring_as_the_backend() {
    let root = root();
    let (code, findings) = doctor_json(root.path(), &[]);
    assert_eq!(code, Some(0), "{findings:#?}");
    let names: Vec<&str> = findings.iter().map(|f| f["check"].as_str().unwrap()).collect();
    assert_eq!(names, CHECKS, "every check, in order");
    for f in &findings {
        let status = f["status"].as_str().unwrap();
        assert!(["ok", "warn", "fail"].contains(&status), "{f}");
        assert!(f["detail"].as_str().is_some_and(|d| !d.is_empty()), "{f}");
        assert_eq!(f["advice"].is_null(), status == "ok", "advice exactly when not ok: {f}");
        assert_eq!(f.as_object().unwrap().len(), 4, "check, status, detail, advice: {f}");
    }
    for check in ["kernel", "futex_waitv", "io_uring", "root"] {
        assert_eq!(finding(&findings, check)["status"], "ok", "{findings:#?}");
    }
    let backend = finding(&findings, "io_uring")["detail"].as_str().unwrap();
    assert!(backend.starts_with("backend io_uring:"), "{backend}");
    let shm = finding(&findings, "shm");
    assert!(shm["status"] != "fail" && shm["detail"].as_str().unwrap().contains("tmpfs"), "{shm}");
    let root_detail = finding(&findings, "root")["detail"].as_str().unwrap();
    assert!(root_detail.contains(root.path().to_str().unwrap()), "{root_detail}");
    assert_eq!(files_in(root.path()), Vec::<String>::new(), "doctor leaves nothing in the root");
}

#[test]
fn a_missing_root_is_ok_and_is_not_created_by_looking() {
    let parent = root();
    let missing = parent.path().join("not-yet");
    let (code, findings) = doctor_json(&missing, &[]);
    assert_eq!(code, Some(0), "{findings:#?}");
    let f = finding(&findings, "root");
    assert_eq!(f["status"], "ok", "{f}");
    assert!(f["detail"].as_str().unwrap().contains("does not exist yet"), "{f}");
    assert!(!missing.exists(), "doctor created the root");
}

#[test]
fn a_root_others_can_write_into_fails_with_chmod_advice_and_exit_status_1() {
    let (root, scratch) = (root(), tempfile::tempdir().unwrap());
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let run = ringbus(&["doctor"], Some(root.path()), &scratch, WATCHDOG);
    assert_eq!(run.status.code(), Some(1), "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), CHECKS.len(), "one line per check:\n{}", run.stdout);
    assert!(lines.iter().all(|l| ["OK ", "WARN ", "FAIL "].iter().any(|s| l.starts_with(s))), "{}", run.stdout);
    assert!(!run.stdout.contains('\x1b'), "no colour when stdout is not a terminal");
    let fail = lines.iter().find(|l| l.starts_with("FAIL") && l.contains(" root ")).expect("a FAIL root line");
    assert!(fail.contains(&format!("chmod 700 {}", root.path().display())), "{fail}");
    assert!(run.stderr.contains("failed: root"), "{}", run.stderr);
}

#[test]
fn a_root_that_is_a_regular_file_fails() {
    let parent = root();
    let file = parent.path().join("file");
    std::fs::write(&file, b"").unwrap();
    let (code, findings) = doctor_json(&file, &[]);
    assert_eq!(code, Some(1), "{findings:#?}");
    let f = finding(&findings, "root");
    assert_eq!(f["status"], "fail", "{f}");
    assert!(f["detail"].as_str().unwrap().contains("not a directory"), "{f}");
    assert!(f["advice"].as_str().unwrap().contains("RINGBUS_ROOT"), "{f}");
    let others: Vec<&Value> = findings.iter().filter(|f| f["status"] == "fail" && f["check"] != "root").collect();
    assert!(others.is_empty(), "only the root fails: {others:#?}");
}

#[test]
fn a_forced_backend_is_what_doctor_reports() {
    let root = root();
    let (code, findings) = doctor_json(root.path(), &[("RINGBUS_WAITSET_BACKEND", "epoll")]);
    assert_eq!(code, Some(0), "{findings:#?}");
    let f = finding(&findings, "io_uring");
    assert_eq!(f["status"], "ok", "{f}");
    assert!(f["detail"].as_str().unwrap().starts_with("backend epoll (RINGBUS_WAITSET_BACKEND=epoll)"), "{f}");

    // futex cannot watch fds: every wait set that attaches one would fail.
    let (code, findings) = doctor_json(root.path(), &[("RINGBUS_WAITSET_BACKEND", "futex")]);
    assert_eq!(code, Some(1), "{findings:#?}");
    let f = finding(&findings, "io_uring");
    assert_eq!(f["status"], "fail", "{f}");
    assert!(f["advice"].as_str().unwrap().contains("unset RINGBUS_WAITSET_BACKEND"), "{f}");

    // A name the core does not know is ignored: a warning, not a failure.
    let (code, findings) = doctor_json(root.path(), &[("RINGBUS_WAITSET_BACKEND", "uringg")]);
    assert_eq!(code, Some(0), "{findings:#?}");
    let f = finding(&findings, "io_uring");
    assert_eq!(f["status"], "warn", "{f}");
    assert!(f["detail"].as_str().unwrap().contains("is ignored"), "{f}");
}

#[test]
fn completions_print_a_script_for_every_shell_without_the_hidden_worker() {
    let scratch = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = ringbus(&["completions", shell], None, &scratch, WATCHDOG);
        assert!(run.status.success(), "completions {shell} ({}):\n{}", run.status, run.stderr);
        for word in ["ringbus", "doctor", "completions", "bench"] {
            assert!(run.stdout.contains(word), "no {word:?} in the {shell} script:\n{}", run.stdout);
        }
        assert!(!run.stdout.contains("bench-worker"), "the hidden bench-worker in the {shell} script");
    }
}

#[test]
fn an_unknown_shell_is_refused_with_the_list_of_shells() {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["completions", "nosuchshell"], None, &scratch, WATCHDOG);
    assert!(!run.status.success(), "{}", run.stdout);
    assert_eq!(run.stdout, "", "no script");
    assert!(run.stderr.contains("invalid value 'nosuchshell'"), "{}", run.stderr);
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        assert!(run.stderr.contains(shell), "{shell} not offered:\n{}", run.stderr);
    }
}

#[test]
fn help_says_how_to_install_completions_and_lists_both_commands() {
    let scratch = tempfile::tempdir().unwrap();
    let run = ringbus(&["completions", "--help"], None, &scratch, WATCHDOG);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stdout.contains("ringbus completions bash > ~/.local/share/bash-completion/completions/ringbus"));
    let run = ringbus(&["--help"], None, &scratch, WATCHDOG);
    assert!(run.stdout.contains("ringbus doctor") && run.stdout.contains("ringbus completions bash"), "{}", run.stdout);
}
