//! `ringbus bridge`: runs `ringbus-bridge` (crate `ringbus-zenoh`), which carries topics to
//! other machines through Eclipse Zenoh. It is a command of its own so that the `ringbus`
//! build does not carry Zenoh; this one only finds it and hands over.

use anyhow::Result;

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

impl BridgeArgs {
    pub fn run(self) -> Result<()> {
        let missing = format!(
            "ringbus bridge runs the {PROGRAM} command, which is not installed (it is a separate build: \
             Zenoh is heavy); install it with `cargo install --locked --path crates/ringbus-zenoh`"
        );
        super::sibling::exec(PROGRAM, &self.args, &missing)
    }
}
