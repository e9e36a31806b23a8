//! Reading a recording, which is untrusted input: its start and end are checked first
//! (empty, not MCAP, another MCAP version, incomplete), then its records are read in file
//! order, chunk CRCs checked, each record at most [`MAX_RECORD_BYTES`], so memory stays
//! bounded by the largest message whatever the file says. Every error names the file, the
//! byte where reading stopped, and what to do.

use anyhow::Context;
use mcap::records::Record;
use mcap::sans_io::linear_reader::{LinearReadEvent, LinearReader, LinearReaderOptions};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

/// The largest record a recording may hold: the largest ringbus message and room for its
/// header. A larger one is refused before anything is allocated for it.
pub const MAX_RECORD_BYTES: usize = ringbus::MAX_PAYLOAD_BYTES as usize + (1 << 20);

/// MCAP's magic bytes: `\x89MCAP`, the format version (`0`), `\r\n`.
const MAGIC_PREFIX: &[u8] = b"\x89MCAP";
const VERSION: u8 = b'0';

/// How reading a file ended.
#[derive(Debug, Default)]
pub struct ScanEnd {
    /// Why the file could not be read to its end (with `--partial`), `None` if it was.
    pub damage: Option<String>,
}

/// Checks the file's first and last bytes; an incomplete file is an error unless
/// `partial`. Returns whether it is complete (ends with MCAP's closing magic bytes).
pub fn check(path: &Path, partial: bool) -> anyhow::Result<bool> {
    let mut file = File::open(path).with_context(|| format!("open {}", path.display()))?;
    let len = file.metadata().with_context(|| format!("read {}", path.display()))?.len();
    let name = path.display();
    if len == 0 {
        anyhow::bail!("{name} is empty, not an MCAP recording");
    }
    let mut head = [0u8; 8];
    let got = read_up_to(&mut file, &mut head).with_context(|| format!("read {name}"))?;
    if !head[..got].starts_with(MAGIC_PREFIX) || got < mcap::MAGIC.len() {
        anyhow::bail!("{name} is not an MCAP file: it does not begin with MCAP's magic bytes");
    }
    if head[5] != VERSION || head[..] != *mcap::MAGIC {
        anyhow::bail!(
            "{name} is an MCAP file of another format version ({:?}); this ringbus reads version 0 only",
            head[5] as char
        );
    }
    let complete = ends_with_magic(&mut file, len).with_context(|| format!("read {name}"))?;
    if !partial && !complete {
        anyhow::bail!("{name} is incomplete: {INCOMPLETE}; {RECOVER}");
    }
    Ok(complete)
}

/// Why a file lacks its end, and what to do about it.
const INCOMPLETE: &str =
    "it lacks MCAP's closing records (the recorder was killed, or the disk filled, before it finished the file)";
const RECOVER: &str = "add --partial to read its messages up to the last complete chunk, or rewrite it as a \
     complete file with Foxglove's `mcap recover`";

fn ends_with_magic(file: &mut File, len: u64) -> std::io::Result<bool> {
    let magic_len = mcap::MAGIC.len() as u64;
    if len < 2 * magic_len {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - magic_len))?;
    let mut tail = [0u8; 8];
    file.read_exact(&mut tail)?;
    Ok(tail[..] == *mcap::MAGIC)
}

/// Reads into `buf` until it is full or the file ends; how many bytes were read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// Checks the file (see [`check`]), then calls `on_record` with each record in file order,
/// those inside chunks decompressed, until it breaks or the file ends. A damaged file is an
/// error; with `partial`, reading stops there and [`ScanEnd::damage`] says why.
pub fn scan(
    path: &Path,
    partial: bool,
    mut on_record: impl FnMut(Record<'_>) -> anyhow::Result<ControlFlow<()>>,
) -> anyhow::Result<ScanEnd> {
    let complete = check(path, partial)?;
    let mut file = File::open(path).with_context(|| format!("open {}", path.display()))?;
    let options = LinearReaderOptions::default()
        .with_emit_chunks(false)
        .with_validate_chunk_crcs(true)
        .with_record_length_limit(MAX_RECORD_BYTES);
    let mut reader = LinearReader::new_with_options(options);
    let mut offset = 0u64;
    while let Some(event) = reader.next_event() {
        let failure = match event {
            Ok(LinearReadEvent::ReadRequest(need)) => {
                let read = file.read(reader.insert(need)).with_context(|| format!("read {}", path.display()))?;
                reader.notify_read(read);
                offset += read as u64;
                continue;
            }
            Ok(LinearReadEvent::Record { opcode, data }) => match mcap::parse_record(opcode, data) {
                Ok(record) => {
                    if on_record(record)?.is_break() {
                        return Ok(ScanEnd::default());
                    }
                    continue;
                }
                Err(e) => e,
            },
            Err(e) => e,
        };
        let why = damage(&failure, offset);
        if partial {
            return Ok(ScanEnd { damage: Some(why) });
        }
        anyhow::bail!("{} is damaged: {why}; {RECOVER}", path.display());
    }
    let damage = (!complete).then(|| format!("{INCOMPLETE}; it ends after byte {offset}"));
    Ok(ScanEnd { damage })
}

/// What went wrong, where, in words.
fn damage(e: &mcap::McapError, offset: u64) -> String {
    match e {
        mcap::McapError::UnexpectedEof => {
            format!("it ends inside a record (read up to byte {offset}): {INCOMPLETE}")
        }
        other => format!("{other} (read up to byte {offset})"),
    }
}

/// The channels a file declares: from its summary if it has one, else (an incomplete file
/// read with `partial`) from a reading of the whole file.
pub fn channels(path: &Path, partial: bool) -> anyhow::Result<Vec<mcap::records::Channel>> {
    if check(path, partial)? {
        if let Some(summary) = summary(path)? {
            let mut channels: Vec<mcap::records::Channel> = summary
                .channels
                .values()
                .map(|c| mcap::records::Channel {
                    id: c.id,
                    schema_id: c.schema.as_ref().map_or(0, |s| s.id),
                    topic: c.topic.clone(),
                    message_encoding: c.message_encoding.clone(),
                    metadata: c.metadata.clone(),
                })
                .collect();
            channels.sort_by_key(|c| c.id);
            return Ok(channels);
        }
    }
    let mut channels = std::collections::BTreeMap::new();
    scan(path, partial, |record| {
        if let Record::Channel(c) = record {
            channels.entry(c.id).or_insert(c);
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(channels.into_values().collect())
}

/// The file's summary section, `None` if it has none.
fn summary(path: &Path) -> anyhow::Result<Option<mcap::Summary>> {
    use mcap::sans_io::summary_reader::{SummaryReadEvent, SummaryReader, SummaryReaderOptions};
    let name = path.display();
    let mut file = File::open(path).with_context(|| format!("open {name}"))?;
    let len = file.metadata().with_context(|| format!("read {name}"))?.len();
    let options = SummaryReaderOptions::default().with_file_size(len).with_record_length_limit(MAX_RECORD_BYTES);
    let mut reader = SummaryReader::new_with_options(options);
    while let Some(event) = reader.next_event() {
        match event.map_err(|e| anyhow::anyhow!("{name} is damaged: its summary cannot be read: {e}; {RECOVER}"))? {
            SummaryReadEvent::ReadRequest(n) => {
                let read = file.read(reader.insert(n)).with_context(|| format!("read {name}"))?;
                reader.notify_read(read);
            }
            SummaryReadEvent::SeekRequest(to) => {
                let at = file.seek(to).with_context(|| format!("read {name}"))?;
                reader.notify_seeked(at);
            }
        }
    }
    Ok(reader.finish())
}
