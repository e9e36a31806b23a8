//! `ringbus ros2`: runs `ringbus-ros2` (crate `ringbus-ros2`), which carries topics to and
//! from ROS 2 through DDS. It is a command of its own so that the `ringbus` build does not
//! carry DDS; this one only finds it and hands over.

use anyhow::Result;

pub const LONG_ABOUT: &str = "\
Carries ringbus topics to ROS 2 nodes through DDS, and back, message bytes untouched: runs
the ringbus-ros2 command (found beside this one, else on PATH) with the same arguments.
`ringbus ros2 --help` shows its options.";

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true)]
pub struct Ros2Args {
    /// The arguments of ringbus-ros2. Example: ringbus ros2 --out camera/front=/camera/front/image_raw
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    args: Vec<String>,
}

const PROGRAM: &str = "ringbus-ros2";

impl Ros2Args {
    pub fn run(self) -> Result<()> {
        let missing = format!(
            "ringbus ros2 runs the {PROGRAM} command, which is not installed (it is a separate build: \
             DDS is heavy); install it with `cargo install --locked --path crates/ringbus-ros2`"
        );
        super::sibling::exec(PROGRAM, &self.args, &missing)
    }
}
