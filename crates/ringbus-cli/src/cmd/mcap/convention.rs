//! How a ringbus recording lays out what it knows in MCAP's records, so that `record`
//! writes and `replay` and `mcap info` read the same names:
//!
//! - one channel per topic, named as the topic; untyped topics have no schema and the
//!   message encoding [`BYTES_ENCODING`]; typed topics a schema named as the payload type
//!   (encoding [`POD_ENCODING`], data `{"size":..,"align":..}` as JSON) and that message
//!   encoding too;
//! - the topic's settings in the channel's metadata ([`SETTING_KEYS`], decimal text), so a
//!   replay can create the topic as it was;
//! - a metadata record [`RECORDING_METADATA`] with each topic's losses
//!   (`lost.<topic>`), the clock of the timestamps (wall-clock time: the publishers'
//!   monotonic timestamps shifted by one offset, [`MONOTONIC_OFFSET_KEY`]).
//!
//! Everything read back is untrusted: [`RecordedTopic::from_channel`] checks every value
//! against the library's limits and says which key of which channel is wrong.

use super::super::numbers;
use ringbus::inspect::{TopicInfo, TopicSettings};
use std::collections::BTreeMap;

/// Message encoding of an untyped topic's channel: the payload bytes as published.
pub const BYTES_ENCODING: &str = "ringbus.bytes";
/// Schema and message encoding of a typed topic's channel: the bytes of one value of the
/// plain-data type the schema names.
pub const POD_ENCODING: &str = "ringbus.pod";
/// The metadata record a recording ends with.
pub const RECORDING_METADATA: &str = "ringbus.recording";
/// In [`RECORDING_METADATA`]: messages a topic lost while recorded, as `lost.<topic>`.
pub const LOST_PREFIX: &str = "lost.";
/// In [`RECORDING_METADATA`]: which clock log and publish times are on.
pub const CLOCK_KEY: &str = "clock";
pub const CLOCK: &str =
    "CLOCK_REALTIME nanoseconds: the publishers' CLOCK_MONOTONIC timestamps plus monotonic_offset_ns";
/// In [`RECORDING_METADATA`]: what was added to `CLOCK_MONOTONIC` times (the wall clock
/// minus the monotonic clock when the recording began): subtract it to get the
/// publishers' own timestamps back.
pub const MONOTONIC_OFFSET_KEY: &str = "monotonic_offset_ns";

const PAYLOAD_TYPE: &str = "ringbus.payload_type";
const PAYLOAD_SIZE: &str = "ringbus.payload_size";
const PAYLOAD_ALIGN: &str = "ringbus.payload_align";
/// The untyped topics' payload type name (as `ringbus::inspect` reports it).
const BYTES_TYPE: &str = "bytes";

/// The channel metadata keys of a topic's settings, in the order they are checked.
pub const SETTING_KEYS: [&str; 9] = [
    "ringbus.max_publishers",
    "ringbus.max_subscribers",
    "ringbus.depth",
    "ringbus.history",
    "ringbus.max_held",
    "ringbus.chunks",
    "ringbus.max_payload_bytes",
    "ringbus.pool_bytes",
    "ringbus.preallocate",
];

/// A payload type as a topic declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadType {
    pub name: String,
    pub size: u64,
    pub align: u32,
}

/// What a recording keeps of a topic: its settings and its payload type (`None`: bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedTopic {
    pub settings: TopicSettings,
    pub payload: Option<PayloadType>,
}

impl RecordedTopic {
    pub fn of(info: &TopicInfo) -> RecordedTopic {
        let payload = (info.payload_type != BYTES_TYPE).then(|| PayloadType {
            name: info.payload_type.clone(),
            size: info.payload_size,
            align: info.payload_align,
        });
        RecordedTopic { settings: info.settings, payload }
    }

    /// The channel's message encoding.
    pub fn message_encoding(&self) -> &'static str {
        if self.payload.is_some() {
            POD_ENCODING
        } else {
            BYTES_ENCODING
        }
    }

    /// The schema's data for a typed topic.
    pub fn schema_data(payload: &PayloadType) -> Vec<u8> {
        serde_json::json!({ "size": payload.size, "align": payload.align }).to_string().into_bytes()
    }

    /// The channel metadata that records this topic.
    pub fn channel_metadata(&self) -> BTreeMap<String, String> {
        let s = &self.settings;
        let values: [u64; 9] = [
            s.max_publishers.into(),
            s.max_subscribers.into(),
            s.depth.into(),
            s.history.into(),
            s.max_held.into(),
            s.chunks.into(),
            s.max_payload_bytes,
            s.pool_bytes,
            s.preallocate.into(),
        ];
        let mut map: BTreeMap<String, String> =
            SETTING_KEYS.iter().zip(values).map(|(k, v)| (k.to_string(), v.to_string())).collect();
        if let Some(p) = &self.payload {
            map.insert(PAYLOAD_TYPE.into(), p.name.clone());
            map.insert(PAYLOAD_SIZE.into(), p.size.to_string());
            map.insert(PAYLOAD_ALIGN.into(), p.align.to_string());
        }
        map
    }

    /// Reads a channel's metadata back, every value checked against the library's limits.
    /// `Ok(None)`: the channel has none of ringbus's keys (another program wrote it).
    pub fn from_channel(topic: &str, metadata: &BTreeMap<String, String>) -> anyhow::Result<Option<RecordedTopic>> {
        if !SETTING_KEYS.iter().any(|k| metadata.contains_key(*k)) {
            return Ok(None);
        }
        let value = |key: &str, parse: fn(&str) -> Result<u64, String>| -> anyhow::Result<u64> {
            let text =
                metadata.get(key).ok_or_else(|| anyhow::anyhow!("channel {topic:?} lacks the metadata key {key:?}"))?;
            parse(text).map_err(|e| anyhow::anyhow!("channel {topic:?}, metadata {key:?}: {e}"))
        };
        let [publishers, subscribers, depth, history, held, chunks, max_payload, pool, preallocate] = SETTING_KEYS;
        let settings = TopicSettings {
            max_publishers: value(publishers, |s| numbers::max_publishers(s).map(u64::from))? as u32,
            max_subscribers: value(subscribers, |s| numbers::max_subscribers(s).map(u64::from))? as u32,
            depth: value(depth, |s| numbers::depth(s).map(u64::from))? as u32,
            history: value(history, |s| numbers::history(s).map(u64::from))? as u32,
            max_held: value(held, |s| numbers::max_held(s).map(u64::from))? as u32,
            chunks: value(chunks, |s| numbers::chunks(s).map(u64::from))? as u32,
            max_payload_bytes: value(max_payload, numbers::max_payload_bytes)?,
            pool_bytes: value(pool, numbers::pool_bytes)?,
            preallocate: value(preallocate, |s| numbers::flag(s).map(u64::from))? == 1,
        };
        let payload = match metadata.get(PAYLOAD_TYPE) {
            None => None,
            Some(name) => Some(PayloadType {
                name: payload_name(topic, name)?,
                size: value(PAYLOAD_SIZE, numbers::max_payload_bytes)?,
                align: value(PAYLOAD_ALIGN, |s| numbers::alignment(s).map(u64::from))? as u32,
            }),
        };
        Ok(Some(RecordedTopic { settings, payload }))
    }
}

/// A payload type name from a file: 1 to 256 bytes, no control characters.
fn payload_name(topic: &str, name: &str) -> anyhow::Result<String> {
    if name.is_empty() || name.len() > 256 || name.chars().any(char::is_control) {
        anyhow::bail!("channel {topic:?}, metadata {PAYLOAD_TYPE:?}: not a type name (1 to 256 printable bytes)");
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(payload: Option<PayloadType>) -> RecordedTopic {
        let settings = TopicSettings {
            max_publishers: 4,
            max_subscribers: 16,
            depth: 64,
            history: 2,
            max_held: 4,
            chunks: 129,
            max_payload_bytes: 1 << 20,
            pool_bytes: 1 << 30,
            preallocate: false,
        };
        RecordedTopic { settings, payload }
    }

    #[test]
    fn settings_survive_the_channel_metadata() {
        for payload in [None, Some(PayloadType { name: "geometry.Pose".into(), size: 16, align: 8 })] {
            let topic = recorded(payload);
            let back = RecordedTopic::from_channel("t", &topic.channel_metadata()).unwrap();
            assert_eq!(back, Some(topic));
        }
        assert_eq!(RecordedTopic::from_channel("t", &BTreeMap::new()).unwrap(), None);
    }

    #[test]
    fn values_out_of_range_name_the_key() {
        for (key, bad) in [
            ("ringbus.depth", "3"),
            ("ringbus.max_payload_bytes", "99999999999"),
            ("ringbus.preallocate", "2"),
            ("ringbus.max_publishers", "-1"),
            ("ringbus.chunks", "x"),
        ] {
            let mut metadata = recorded(None).channel_metadata();
            metadata.insert(key.into(), bad.into());
            let e = RecordedTopic::from_channel("t", &metadata).unwrap_err().to_string();
            assert!(e.contains(key), "{key}: {e}");
        }
        let mut metadata = recorded(None).channel_metadata();
        metadata.remove("ringbus.depth");
        assert!(RecordedTopic::from_channel("t", &metadata).unwrap_err().to_string().contains("lacks"));
        metadata = recorded(None).channel_metadata();
        metadata.insert("ringbus.payload_type".into(), "\x1b[2J".into());
        metadata.insert("ringbus.payload_size".into(), "8".into());
        metadata.insert("ringbus.payload_align".into(), "8".into());
        assert!(RecordedTopic::from_channel("t", &metadata).is_err());
    }
}
