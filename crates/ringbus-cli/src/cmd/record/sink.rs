//! Where `ringbus record` writes: an MCAP writer over the output file, one channel per
//! topic (added to each file on its first message), chunked and compressed, flushed at a
//! chunk boundary every [`FLUSH_INTERVAL`] so that a recorder killed outright leaves a file
//! readable up to then; and, with `--max-bytes`, one file after another.

use super::super::mcap::convention::{
    RecordedTopic, CLOCK, CLOCK_KEY, LOST_PREFIX, MONOTONIC_OFFSET_KEY, RECORDING_METADATA,
};
use anyhow::Context;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the current chunk is closed and written out even if it is not full: what a
/// recorder killed with SIGKILL can lose at most (plus the messages it had not read yet).
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
/// Uncompressed bytes of messages in one chunk before it is compressed and written.
const CHUNK_BYTES: u64 = 1 << 20;
/// Bytes of a message record besides its payload (opcode, length, header).
const MESSAGE_OVERHEAD_BYTES: u64 = 1 + 8 + 2 + 4 + 8 + 8;

/// The chunk compression `--compression` chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Compression {
    /// Smaller files, more CPU.
    Zstd,
    /// Faster, larger files.
    Lz4,
    /// No compression.
    None,
}

impl Compression {
    fn mcap(self) -> Option<mcap::Compression> {
        match self {
            Compression::Zstd => Some(mcap::Compression::Zstd),
            Compression::Lz4 => Some(mcap::Compression::Lz4),
            Compression::None => None,
        }
    }
}

/// One message to write: topic number `index` of the recorder, the publisher's timestamp,
/// when the recorder read it, and a copy of its payload.
pub struct Message<'a> {
    pub index: usize,
    pub log_ns: u64,
    pub record_ns: u64,
    pub data: &'a [u8],
}

/// How to name and open the files.
#[derive(Debug, Clone)]
pub struct SinkOptions {
    pub path: PathBuf,
    pub compression: Compression,
    /// `--max-bytes`: split into numbered files.
    pub max_bytes: Option<u64>,
    /// Replace files that exist (else refuse to).
    pub force: bool,
}

/// A file written through this records the highest byte reached (the file's size so far).
struct Counted<W> {
    inner: W,
    at: u64,
    end: Arc<AtomicU64>,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.at += n as u64;
        self.end.fetch_max(self.at, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for Counted<W> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.at = self.inner.seek(to)?;
        Ok(self.at)
    }
}

type McapWriter = mcap::Writer<Counted<BufWriter<File>>>;

/// One file being written.
struct OpenFile {
    writer: McapWriter,
    path: PathBuf,
    /// Bytes written to the file so far.
    end: Arc<AtomicU64>,
    /// An upper bound of what the open chunk adds when written (its messages uncompressed).
    pending_bytes: u64,
    /// Channel and next sequence number of each topic (by the recorder's index) in this file.
    channels: HashMap<usize, (u16, u32)>,
    /// Each topic's losses when this file began.
    lost_before: BTreeMap<String, u64>,
}

/// The recording's files, written one at a time.
pub struct Sink {
    options: SinkOptions,
    file: Option<OpenFile>,
    /// The files finished so far and the one being written.
    pub paths: Vec<PathBuf>,
    last_flush: Instant,
    /// Added to `CLOCK_MONOTONIC` times to make the file's wall-clock times (see
    /// `writer::realtime_offset_ns`); written into each file's metadata.
    realtime_offset_ns: u64,
}

impl Sink {
    pub fn create(options: SinkOptions) -> anyhow::Result<Sink> {
        let realtime_offset_ns = super::writer::realtime_offset_ns();
        let mut sink = Sink { options, file: None, paths: Vec::new(), last_flush: Instant::now(), realtime_offset_ns };
        sink.open(BTreeMap::new())?;
        Ok(sink)
    }

    pub fn realtime_offset_ns(&self) -> u64 {
        self.realtime_offset_ns
    }

    /// The name of file number `index` of a split recording: `rec.mcap` → `rec-000.mcap`.
    pub fn split_name(path: &Path, index: usize) -> PathBuf {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let extension = path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or("mcap".into());
        path.with_file_name(format!("{stem}-{index:03}.{extension}"))
    }

    fn open(&mut self, lost_before: BTreeMap<String, u64>) -> anyhow::Result<()> {
        let path = match self.options.max_bytes {
            Some(_) => Self::split_name(&self.options.path, self.paths.len()),
            None => self.options.path.clone(),
        };
        let file = create_file(&path, self.options.force)?;
        let end = Arc::new(AtomicU64::new(0));
        let counted = Counted { inner: BufWriter::with_capacity(1 << 20, file), at: 0, end: end.clone() };
        let writer = mcap::WriteOptions::new()
            .compression(self.options.compression.mcap())
            .chunk_size(Some(CHUNK_BYTES))
            .library(format!("ringbus record {}", env!("CARGO_PKG_VERSION")))
            .create(counted)
            .with_context(|| format!("start {}", path.display()))?;
        self.paths.push(path.clone());
        let channels = HashMap::new();
        self.file = Some(OpenFile { writer, path, end, pending_bytes: 0, channels, lost_before });
        Ok(())
    }

    fn current(&mut self) -> &mut OpenFile {
        self.file.as_mut().expect("a sink always has a file open until finished")
    }

    /// Writes one message of `name` (recorded as `topic`).
    pub fn write(&mut self, name: &str, topic: &RecordedTopic, message: &Message<'_>) -> anyhow::Result<()> {
        let (index, data) = (message.index, message.data);
        let file = self.current();
        let (channel_id, sequence) = match file.channels.get(&index) {
            Some(&c) => c,
            None => (add_channel(&mut file.writer, name, topic)?, 0),
        };
        file.channels.insert(index, (channel_id, sequence.wrapping_add(1)));
        let header = mcap::records::MessageHeader {
            channel_id,
            sequence,
            log_time: message.log_ns,
            publish_time: message.record_ns,
        };
        let before = file.end.load(Ordering::Relaxed);
        file.writer.write_to_known_channel(&header, data).with_context(|| format!("write {}", file.path.display()))?;
        // The writer wrote out the chunk (this message in it) if the file grew.
        file.pending_bytes = if file.end.load(Ordering::Relaxed) != before {
            0
        } else {
            file.pending_bytes + data.len() as u64 + MESSAGE_OVERHEAD_BYTES
        };
        Ok(())
    }

    /// Whether the current file has reached `--max-bytes` (counting the open chunk as if
    /// it were not compressed).
    pub fn full(&self) -> bool {
        let Some(file) = &self.file else { return false };
        self.options.max_bytes.is_some_and(|max| file.end.load(Ordering::Relaxed) + file.pending_bytes >= max)
    }

    /// Finishes the current file and starts the next; `lost` is each topic's losses so far.
    pub fn split(&mut self, lost: &BTreeMap<String, u64>) -> anyhow::Result<()> {
        self.finish_file(lost)?;
        self.open(lost.clone())
    }

    /// Closes the open chunk if [`FLUSH_INTERVAL`] has passed since the last time.
    pub fn flush_if_due(&mut self) -> anyhow::Result<()> {
        if self.last_flush.elapsed() < FLUSH_INTERVAL {
            return Ok(());
        }
        self.last_flush = Instant::now();
        let file = self.current();
        file.writer.flush().with_context(|| format!("write {}", file.path.display()))?;
        file.pending_bytes = 0;
        Ok(())
    }

    /// Finishes the last file: its losses, summary, indexes and closing magic.
    pub fn finish(mut self, lost: &BTreeMap<String, u64>) -> anyhow::Result<Vec<PathBuf>> {
        self.finish_file(lost)?;
        Ok(self.paths)
    }

    fn finish_file(&mut self, lost: &BTreeMap<String, u64>) -> anyhow::Result<()> {
        let Some(mut file) = self.file.take() else { return Ok(()) };
        let mut metadata = BTreeMap::from([
            (CLOCK_KEY.to_string(), CLOCK.to_string()),
            (MONOTONIC_OFFSET_KEY.to_string(), self.realtime_offset_ns.to_string()),
        ]);
        for (topic, total) in lost {
            let here = total - file.lost_before.get(topic).copied().unwrap_or(0).min(*total);
            metadata.insert(format!("{LOST_PREFIX}{topic}"), here.to_string());
        }
        let path = file.path.clone();
        let record = mcap::records::Metadata { name: RECORDING_METADATA.into(), metadata };
        file.writer.write_metadata(&record).with_context(|| format!("write {}", path.display()))?;
        file.writer.finish().with_context(|| format!("finish {}", path.display()))?;
        let mut inner = file.writer.into_inner();
        inner.flush().with_context(|| format!("write {}", path.display()))?;
        Ok(())
    }
}

/// Creates the file, refusing to replace one unless `force`.
fn create_file(path: &Path, force: bool) -> anyhow::Result<File> {
    let mut options = File::options();
    options.write(true);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            anyhow::anyhow!("{} exists; choose another name, or add --force to replace it", path.display())
        }
        _ => anyhow::Error::new(e).context(format!("create {}", path.display())),
    })
}

/// Adds topic `name`'s channel (and its payload type's schema) to the file.
fn add_channel(writer: &mut McapWriter, name: &str, topic: &RecordedTopic) -> anyhow::Result<u16> {
    let schema_id = match &topic.payload {
        Some(p) => {
            writer.add_schema(&p.name, super::super::mcap::convention::POD_ENCODING, &RecordedTopic::schema_data(p))?
        }
        None => 0,
    };
    Ok(writer.add_channel(schema_id, name, topic.message_encoding(), &topic.channel_metadata())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_files_are_numbered_before_the_extension() {
        assert_eq!(Sink::split_name(Path::new("/tmp/run.mcap"), 0), Path::new("/tmp/run-000.mcap"));
        assert_eq!(Sink::split_name(Path::new("run"), 12), Path::new("run-012.mcap"));
        assert_eq!(Sink::split_name(Path::new("run.mcap"), 1234), Path::new("run-1234.mcap"));
    }
}
