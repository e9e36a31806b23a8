//! `ringbus bridge`: runs `ringbus-bridge` (crate `ringbus-zenoh`), which carries topics to
//! other machines through Eclipse Zenoh. It is a command of its own so that the `ringbus`
//! build does not carry Zenoh; this one only finds it and hands over.

use anyhow::{bail, Result};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

pub const LONG_ABOUT: &str = "\
Carries ringbus topics to other machines through Eclipse Zenoh, and back: runs the
ringbus-bridge command (found beside this one, else on PATH) with the same arguments.
`ringbus bridge --help` shows its options.";

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct BridgeArgs {
    /// The arguments of ringbus-bridge. Example: ringbus bridge --both camera/front --listen tcp/0.0.0.0:7447
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    args: Vec<String>,
}

const PROGRAM: &str = "ringbus-bridge";

/// `ringbus-bridge` beside this executable, else the first on PATH.
fn find() -> Option<PathBuf> {
    let beside = std::env::current_exe().ok()?.with_file_name(PROGRAM);
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    std::iter::once(beside).chain(on_path.map(|dir| dir.join(PROGRAM))).find(|p| p.is_file())
}

impl BridgeArgs {
    pub fn run(self) -> Result<()> {
        let Some(program) = find() else {
            bail!(
                "ringbus bridge runs the {PROGRAM} command, which is not installed (it is a separate build: \
                 Zenoh is heavy); install it with `cargo install --locked --path crates/ringbus-zenoh`"
            );
        };
        // exec: signals (Ctrl-C, SIGTERM) and the exit code are the bridge's own.
        let error = std::process::Command::new(&program).args(&self.args).exec();
        bail!("cannot run {}: {error}", program.display())
    }
}
