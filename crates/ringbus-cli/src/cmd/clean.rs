//! `ringbus clean`: reclaim what dead processes left in the root, while live ones run on.

use super::output::{print_json, JsonFlag};
use ringbus::CleanOptions;
use serde_json::json;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus clean --dry-run       # what would be removed, and why\n  \
    ringbus clean                 # remove it\n  \
    ringbus clean --foreign       # also remove files that are not ringbus segments of this version\n\n\
    Safe while processes run: a file is removed only when the OS lock its owner held is\n\
    free (the owner died), under the topic's or queue's own lock; live topics are never\n\
    touched. A queue goes only when it is empty and no producer or consumer holds it; one\n\
    that still holds commands is kept for its next consumer. Latches and semaphores are\n\
    kept: remove them by name (Latch::unlink, Semaphore::unlink).")]
pub struct CleanArgs {
    /// Say what would be removed; remove nothing.
    #[arg(long)]
    dry_run: bool,
    /// Also remove foreign files, corrupted segments and segments of another ringbus
    /// version: what `ringbus list problems` shows. A symbolic link is removed itself,
    /// never followed; a directory with what it holds (links in it removed, not followed).
    /// Only when no process of another ringbus version uses this root.
    #[arg(long)]
    foreign: bool,
    #[command(flatten)]
    json: JsonFlag,
}

impl CleanArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let Some(root) = super::existing_root()? else {
            if self.json.json {
                print_json(&json!({ "dry_run": self.dry_run, "removed": [], "skipped": [] }));
            } else {
                println!("nothing to clean: {} does not exist", ringbus::Root::default_path().display());
            }
            return Ok(());
        };
        let report = ringbus::clean_with(&root, CleanOptions { dry_run: self.dry_run, foreign: self.foreign })?;
        if self.json.json {
            let list = |v: &[(std::path::PathBuf, String)]| {
                v.iter().map(|(path, reason)| json!({ "path": path, "reason": reason })).collect::<Vec<_>>()
            };
            print_json(&json!({
                "dry_run": self.dry_run, "removed": list(&report.removed), "skipped": list(&report.skipped),
            }));
            return Ok(());
        }
        let verb = if self.dry_run { "would remove" } else { "removed" };
        for (path, reason) in &report.removed {
            println!("{verb} {}: {reason}", path.display());
        }
        let hint = if self.foreign { "" } else { " (`ringbus clean --foreign` removes it)" };
        for (path, reason) in &report.skipped {
            println!("left {}: {reason}{hint}", path.display());
        }
        if report.removed.is_empty() && report.skipped.is_empty() {
            println!("nothing to clean in {}", root.path().display());
        }
        Ok(())
    }
}
