//! `ringbus mcap`: commands on MCAP recordings. `convention` says how a recording keeps
//! topics in MCAP's records, `read` reads a file as untrusted input, `info` summarises one.

pub mod convention;
pub mod info;
pub mod read;

use super::output::JsonFlag;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct McapArgs {
    #[command(subcommand)]
    command: McapCommand,
}

#[derive(Debug, clap::Subcommand)]
enum McapCommand {
    /// What a recording holds: its channels (topics), messages, bytes, rates, duration and
    /// losses.
    #[command(after_help = "Examples:\n  \
        ringbus mcap info run.mcap\n  \
        ringbus mcap info run.mcap --json | jq '.channels[] | {topic, messages, lost}'\n  \
        ringbus mcap info crashed.mcap --partial   # a file whose recorder was killed\n\n\
        Reads the whole file (every chunk is decompressed and its CRC checked). A file that is\n\
        empty, not MCAP, of another MCAP version, incomplete or damaged is an error (exit 1)\n\
        that says what is wrong; --partial reads an incomplete one up to its last complete chunk.")]
    Info(InfoArgs),
}

#[derive(Debug, clap::Args)]
struct InfoArgs {
    /// The recording.
    file: PathBuf,
    /// Read an incomplete or damaged file up to where it ends or the damage begins.
    #[arg(long)]
    partial: bool,
    #[command(flatten)]
    json: JsonFlag,
}

impl McapArgs {
    pub fn run(self) -> anyhow::Result<()> {
        match self.command {
            McapCommand::Info(args) => info::show(&args.file, args.partial, args.json.json),
        }
    }
}
