//! `ringbus record`: writes the messages of topics into an MCAP file (`sink`) as they are
//! published, read by polling subscribers (`topics`), with a progress line (`progress`).

mod progress;
mod sink;
mod topics;
mod writer;

use super::numbers;
use super::output::{Failure, JsonFlag};
use super::session::Session;
use sink::{Compression, Sink, SinkOptions};
use std::path::PathBuf;
use std::time::Duration;
use topics::{Topics, Wanted};
use writer::Writer;

/// The smallest `--max-bytes`: a file holds at least a chunk.
const MIN_FILE_BYTES: u64 = 1 << 20;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    ringbus record camera/front imu -o run.mcap      # two topics until Ctrl-C\n  \
    ringbus record --all -o run.mcap --duration 30s  # every topic, also those that appear meanwhile\n  \
    ringbus record --all -o run.mcap --max-bytes 1GiB # run-000.mcap, run-001.mcap, ... of at most ~1 GiB\n  \
    ringbus record --info run.mcap                   # what a recording holds (as `ringbus mcap info`)\n  \
    ringbus replay run.mcap                          # publishes it again with its timing\n\n\
    The file is MCAP (mcap.dev): one channel per topic, log time = the publisher's timestamp\n\
    (as wall-clock ns: its monotonic clock plus the offset in the metadata), publish time = when\n\
    the recorder read it; chunks compressed and\n\
    indexed; each topic's settings in its channel's metadata, its losses in the metadata record\n\
    \"ringbus.recording\". Ctrl-C or SIGTERM finishes the file (summary and indexes). A recorder\n\
    killed outright (SIGKILL, power) leaves a file readable up to its last complete chunk: chunks\n\
    are closed at least once a second. By default the recorder is a reliable subscriber:\n\
    publishers wait rather than overwrite a message it has not read, so nothing is lost; with\n\
    --lossy it never holds them back and counts what it lost instead. It polls (every --poll),\n\
    so publishers never make a system call to wake it, and it runs 10 nice levels below the\n\
    priority it was started with, so that on a busy machine copying and compressing yield the\n\
    CPU to the programs it records (start it with `nice -n -10` to undo that).")]
pub struct RecordArgs {
    /// The topics to record (or --all).
    #[arg(required_unless_present_any = ["all", "info"], conflicts_with_all = ["all", "info"])]
    topics: Vec<String>,
    /// Every topic of the root, and every topic that appears while recording.
    #[arg(long, conflicts_with = "info")]
    all: bool,
    /// The file to write. With --max-bytes: FILE-000.mcap, FILE-001.mcap, ... (the number
    /// before the extension).
    #[arg(short = 'o', long, value_name = "FILE.mcap", required_unless_present = "info", conflicts_with = "info")]
    output: Option<PathBuf>,
    /// How chunks are compressed.
    #[arg(long, value_enum, default_value_t = Compression::Zstd)]
    compression: Compression,
    /// Stop after this long: seconds, or with a unit (500ms, 2m, 1h).
    #[arg(long, value_name = "DURATION", value_parser = numbers::seconds)]
    duration: Option<f64>,
    /// Start a new file once one holds this many bytes (at least 1 MiB; a unit is allowed:
    /// 512MiB, 2GiB). A file ends at most one message and its index past it.
    #[arg(long, value_name = "BYTES", value_parser = file_bytes)]
    max_bytes: Option<u64>,
    /// Never hold publishers back: count the messages overwritten before the recorder read
    /// them as lost instead of making publishers wait.
    #[arg(long)]
    lossy: bool,
    /// How often the recorder looks for new messages, 0.1ms to 1s (a topic needs room for
    /// this long's messages in its depth).
    #[arg(long, value_name = "DURATION", default_value = "1ms", value_parser = poll_interval)]
    poll: f64,
    /// Replace the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Print what a recording holds instead of recording (as `ringbus mcap info FILE`).
    #[arg(long, value_name = "FILE.mcap")]
    info: Option<PathBuf>,
    /// With --info: read an incomplete file up to its last complete chunk.
    #[arg(long, requires = "info")]
    partial: bool,
    #[command(flatten)]
    json: JsonFlag,
}

fn poll_interval(text: &str) -> Result<f64, String> {
    numbers::seconds_in(text, 1e-4, 1.0)
}

/// `--max-bytes`: at least [`MIN_FILE_BYTES`].
fn file_bytes(text: &str) -> Result<u64, String> {
    numbers::bytes_at_least(text, MIN_FILE_BYTES)
}

impl RecordArgs {
    /// Hands the topics' messages to `writer` until Ctrl-C or `--duration`.
    fn record(
        &self,
        session: &Session,
        topics: &mut Topics,
        writer: &Writer,
        progress: &mut progress::Progress,
    ) -> anyhow::Result<()> {
        let poll = Duration::from_secs_f64(self.poll);
        while !session.interrupted() && !session.expired() {
            topics.look(session, writer)?;
            let handed = topics.drain(writer)?;
            progress.show(topics, writer.files());
            if handed == 0 {
                std::thread::sleep(poll.min(session.slice()));
            }
        }
        topics.drain(writer)?;
        Ok(())
    }

    pub fn run(self) -> anyhow::Result<()> {
        if let Some(path) = &self.info {
            return super::mcap::info::show(path, self.partial, self.json.json);
        }
        if self.json.json {
            return Err(Failure::Usage("--json goes with --info (a recording prints a table)".into()).into());
        }
        let session = Session::new("record", self.duration)?;
        let wanted = if self.all { Wanted::All } else { Wanted::Named(self.topics.clone()) };
        let mut topics = Topics::new(wanted, self.lossy);
        let output = self.output.clone().expect("clap requires --output without --info");
        let options =
            SinkOptions { path: output, compression: self.compression, max_bytes: self.max_bytes, force: self.force };
        writer::yield_to_publishers(); // this thread, and the writing thread it starts
        let writer = Writer::start(Sink::create(options)?);
        let mut progress = progress::Progress::new();
        let recorded = self.record(&session, &mut topics, &writer, &mut progress);
        writer.set_losses(topics.losses());
        // The writing thread's error, if it stopped on one, is the cause of the other.
        let paths = writer.finish()?;
        recorded?;
        progress.report(&topics, &paths);
        Ok(())
    }
}
