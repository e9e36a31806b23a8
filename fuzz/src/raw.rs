//! Files written whole from fuzz bytes: the kinds of segment ringbus keeps in a root and
//! their file names, and [`HeaderOverlay`], which lays a (possibly valid) segment header
//! over the bytes so that the validation behind the header is reached too.

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The kinds of file in a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum Kind {
    Topic,
    Publisher,
    Node,
    Latch,
    Semaphore,
    Queue,
    /// A segment being built (`.tmp.<random>`).
    Temp,
    /// A name ringbus does not use.
    Unknown,
}

impl Kind {
    /// The value of the header's kind field (0: none).
    pub fn code(self) -> u32 {
        match self {
            Kind::Topic => 1,
            Kind::Publisher => 2,
            Kind::Node => 3,
            Kind::Latch => 4,
            Kind::Semaphore => 5,
            Kind::Queue => 6,
            Kind::Temp | Kind::Unknown => 0,
        }
    }

    /// The size of the kind's own header (what its header_bytes field says).
    pub fn header_bytes(self) -> u32 {
        match self {
            Kind::Topic | Kind::Queue => 512,
            Kind::Publisher | Kind::Latch | Kind::Semaphore => 192,
            Kind::Node => 144,
            Kind::Temp | Kind::Unknown => 64,
        }
    }

    /// A file name of this kind. `n` = 0 names the file the scenarios open (topic
    /// `fuzz/t`, queue `fuzz/q`, latch `fuzz/l`, semaphore `fuzz/s`; a publisher in slot 0,
    /// incarnation 1, of the topic whose id is `topic_id`); other values vary the name.
    pub fn file_name(self, n: u8, topic_id: u64) -> String {
        let suffix = if n % 4 == 0 { String::new() } else { (n % 4).to_string() };
        match self {
            Kind::Topic => format!("topic.fuzz.t{suffix}"),
            Kind::Publisher => format!("pub.fuzz.t.{topic_id:016x}.{}.{}", n % 4, 1 + n / 4 % 4),
            Kind::Node => format!("node.{:016x}", n),
            Kind::Latch => format!("latch.fuzz.l{suffix}"),
            Kind::Semaphore => format!("sem.fuzz.s{suffix}"),
            Kind::Queue => format!("queue.fuzz.q{suffix}"),
            Kind::Temp => format!(".tmp.{:016x}", n),
            Kind::Unknown => format!("notes{suffix}.txt"),
        }
    }
}

/// A segment header laid over the first 64 bytes of a file: each field is the one a
/// valid segment of the file's kind has, unless the input says otherwise.
#[derive(Debug, Clone, Arbitrary)]
pub struct HeaderOverlay {
    bad_magic: bool,
    layout_version: Option<u32>,
    kind: Option<u32>,
    header_bytes: Option<u32>,
    /// `None`: the file's length.
    segment_bytes: Option<u64>,
    /// `None`: ready.
    state: Option<u32>,
    reserved: Option<u8>,
}

impl HeaderOverlay {
    /// Writes the header over `bytes` (if there is room for one).
    pub fn apply(&self, bytes: &mut [u8], kind: Kind) {
        if bytes.len() < 64 {
            return;
        }
        let len = bytes.len() as u64;
        let magic = if self.bad_magic { *b"RINGBUS?" } else { *b"RINGBUS\0" };
        bytes[0..8].copy_from_slice(&magic);
        let version = self.layout_version.unwrap_or(ringbus::diagnostics::LAYOUT_VERSION);
        bytes[8..12].copy_from_slice(&version.to_ne_bytes());
        bytes[12..16].copy_from_slice(&self.kind.unwrap_or(kind.code()).to_ne_bytes());
        bytes[16..20].copy_from_slice(&self.header_bytes.unwrap_or(kind.header_bytes()).to_ne_bytes());
        bytes[20..24].fill(0);
        bytes[24..32].copy_from_slice(&self.segment_bytes.unwrap_or(len).to_ne_bytes());
        bytes[36..60].fill(0);
        if let Some(r) = self.reserved {
            bytes[40] = r;
        }
        bytes[60..64].copy_from_slice(&self.state.unwrap_or(1).to_ne_bytes());
    }
}

/// Fuzz bytes for a whole file: the bytes, zero-padded to a chosen length, under an
/// optional header.
#[derive(Debug, Clone, Arbitrary)]
pub struct RawFile {
    pub bytes: Vec<u8>,
    /// Zeros appended (a segment's length must match its layout exactly).
    pub zeros: u16,
    pub header: Option<HeaderOverlay>,
}

impl RawFile {
    /// The file's contents as a segment of `kind`.
    pub fn contents(&self, kind: Kind) -> Vec<u8> {
        let mut bytes = self.bytes.clone();
        bytes.resize(bytes.len() + self.zeros as usize, 0);
        if let Some(header) = &self.header {
            header.apply(&mut bytes, kind);
        }
        bytes
    }
}

/// Writes a new file (mode 0600, as ringbus makes them); an existing one is left alone.
pub fn write_new(path: &Path, bytes: &[u8]) -> bool {
    let file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path);
    file.and_then(|mut f| f.write_all(bytes)).is_ok()
}
