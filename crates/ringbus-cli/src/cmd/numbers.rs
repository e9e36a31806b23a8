//! Range-checked parsers of the commands' numeric options. A value out of range is refused
//! while the command line is parsed (exit 2, the message giving the range), never replaced
//! by a default, passed on to fail later, or left to overflow. Topic settings use the
//! library's own limits. Durations are seconds or carry a unit (`500ms`, `2m`).

use std::fmt::Display;
use std::str::FromStr;

/// The longest time an option may give: about 31 years.
const MAX_SECONDS: f64 = 1e9;
/// The slowest and fastest rates an option may give (one message in 11.6 days; a billion
/// per second).
const MIN_HERTZ: f64 = 1e-6;
const MAX_HERTZ: f64 = 1e9;

/// Parses a duration: positive, at most [`MAX_SECONDS`]. See [`seconds_in`] for the forms.
pub fn seconds(s: &str) -> Result<f64, String> {
    seconds_in(s, 0.0, MAX_SECONDS)
}

/// Parses a duration from `lo` to `hi` seconds (above 0 when `lo` is 0): a plain number is
/// seconds (`2.5`), or a number followed by a unit, `ms`, `s`, `m` (minutes) or `h`
/// (`500ms`, `1s`, `2m`, `1.5h`).
pub fn seconds_in(s: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let within = |v: f64| (if lo == 0.0 { v > 0.0 } else { v >= lo }) && v <= hi;
    match duration(s) {
        Some(v) if within(v) => Ok(v),
        _ => {
            let from = if lo == 0.0 { "above 0 s".to_string() } else { shown_seconds(lo) };
            Err(format!(
                "{s:?} is not a duration from {from} to {}: seconds (2.5) or a number with ms, s, m or h (500ms, 1s, 2m)",
                shown_seconds(hi)
            ))
        }
    }
}

/// The seconds `s` says (see [`seconds_in`]), if it is a number with or without a unit; the
/// range is the caller's to check (NaN and infinities included).
fn duration(s: &str) -> Option<f64> {
    // (unit, seconds per unit as a fraction: 100ms is 100 / 1000 = 0.1 exactly, as 0.1 is)
    const UNITS: [(&str, f64, f64); 4] = [("ms", 1.0, 1000.0), ("s", 1.0, 1.0), ("m", 60.0, 1.0), ("h", 3600.0, 1.0)];
    let t = s.trim();
    let (number, times, per) =
        UNITS.iter().find_map(|&(unit, times, per)| Some((t.strip_suffix(unit)?, times, per))).unwrap_or((t, 1.0, 1.0));
    let number = number.trim_end();
    // A unit needs a number before it, and `f64` would take "inf" and "nan" with a unit too.
    if !number.ends_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    number.parse::<f64>().ok().map(|v| v * times / per)
}

/// `3600` → `3600 s`, `1e9` → `1e9 s`.
fn shown_seconds(v: f64) -> String {
    if v >= 1e6 {
        format!("{v:e} s")
    } else {
        format!("{v} s")
    }
}

/// Parses a rate in hertz: from [`MIN_HERTZ`] to [`MAX_HERTZ`].
pub fn hertz(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (MIN_HERTZ..=MAX_HERTZ).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a rate from {MIN_HERTZ:e} to {MAX_HERTZ:e} per second")),
    }
}

/// Parses a whole number of `what` from `lo` to `hi`.
fn whole<T: FromStr + PartialOrd + Display>(s: &str, what: &str, lo: T, hi: T) -> Result<T, String> {
    match s.trim().parse::<T>() {
        Ok(v) if lo <= v && v <= hi => Ok(v),
        _ => Err(format!("{s:?} is not a number of {what} from {lo} to {hi}")),
    }
}

/// `--count`: how many messages, at least one.
pub fn count(s: &str) -> Result<u64, String> {
    whole(s, "messages", 1, u64::MAX)
}

/// `--max-payload-bytes`: 1 byte to the library's largest payload (1 GiB).
pub fn max_payload_bytes(s: &str) -> Result<u64, String> {
    whole(s, "bytes", 1, ringbus::MAX_PAYLOAD_BYTES)
}

/// `--pool-bytes`: 1 byte to the library's largest pool (16 TiB); the library then checks
/// it holds at least one payload.
pub fn pool_bytes(s: &str) -> Result<u64, String> {
    whole(s, "bytes", 1, ringbus::MAX_POOL_BYTES)
}

/// `--max-subscribers`: 1 to the library's limit (1024).
pub fn max_subscribers(s: &str) -> Result<u32, String> {
    whole(s, "subscribers", 1, ringbus::MAX_SUBSCRIBERS)
}

/// `--wait-subscribers`: 0 to the most subscribers a topic can have.
pub fn subscribers_to_wait_for(s: &str) -> Result<u32, String> {
    whole(s, "subscribers", 0, ringbus::MAX_SUBSCRIBERS)
}

/// `--depth`: a power of two from 1 to the library's limit (65536).
pub fn depth(s: &str) -> Result<u32, String> {
    power_of_two(s, ringbus::MAX_DEPTH)
}

/// Parses a power of two from 1 to `hi`.
fn power_of_two(s: &str, hi: u32) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if n.is_power_of_two() && n <= hi => Ok(n),
        _ => Err(format!("{s:?} is not a power of two from 1 to {hi}")),
    }
}

/// `--history`: 0 to the largest depth (the library then checks it is at most the depth).
pub fn history(s: &str) -> Result<u32, String> {
    whole(s, "messages", 0, ringbus::MAX_DEPTH)
}

/// A number of bytes (`64`, `4KiB`, `512MiB`, `2GiB`) of at least `lo`.
pub fn bytes_at_least(s: &str, lo: u64) -> Result<u64, String> {
    match ringbus_bench::config::parse_bytes(s)? {
        n if n >= lo => Ok(n),
        _ => Err(format!("{s:?} is less than {} bytes", lo)),
    }
}

/// Most publishers of a topic: 1 to the library's limit (64).
pub fn max_publishers(s: &str) -> Result<u32, String> {
    whole(s, "publishers", 1, ringbus::MAX_PUBLISHERS)
}

/// Samples one subscriber may hold: 1 to the library's limit (256).
pub fn max_held(s: &str) -> Result<u32, String> {
    whole(s, "samples", 1, ringbus::MAX_HELD)
}

/// Payload chunks per publisher: 2 to the library's limit (2^20; the library then checks
/// the topic's depth fits).
pub fn chunks(s: &str) -> Result<u32, String> {
    whole(s, "chunks", 2, ringbus::MAX_CHUNKS)
}

/// A payload type's alignment: a power of two from 1 to 4096.
pub fn alignment(s: &str) -> Result<u32, String> {
    power_of_two(s, 4096)
}

/// A yes/no recorded as `0` or `1`.
pub fn flag(s: &str) -> Result<bool, String> {
    match s.trim() {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("{s:?} is neither 0 nor 1")),
    }
}

/// `--expiry-ms`: at least 1 ms (0 would forget every route at once).
pub fn expiry_ms(s: &str) -> Result<u64, String> {
    whole(s, "milliseconds", 1, u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_inclusive_and_refusals_give_them() {
        assert_eq!(max_payload_bytes("1"), Ok(1));
        assert_eq!(max_payload_bytes("1073741824"), Ok(1 << 30));
        assert_eq!(max_payload_bytes("0").unwrap_err(), "\"0\" is not a number of bytes from 1 to 1073741824");
        assert!(max_payload_bytes("1073741825").is_err() && max_payload_bytes("-1").is_err());
        assert_eq!((depth("1"), depth("65536")), (Ok(1), Ok(65536)));
        for bad in ["0", "3", "131072", "x"] {
            assert!(depth(bad).unwrap_err().contains("power of two from 1 to 65536"), "{bad}");
        }
        assert_eq!((subscribers_to_wait_for("0"), max_subscribers("1024")), (Ok(0), Ok(1024)));
        assert!(max_subscribers("0").is_err() && max_subscribers("1025").is_err());
        assert!(count("0").is_err() && expiry_ms("0").is_err());
    }

    #[test]
    fn durations_take_a_unit_or_mean_seconds() {
        for (text, want) in [
            ("1", 1.0),
            ("2.5", 2.5),
            ("1e3", 1e3),
            ("1s", 1.0),
            ("500ms", 0.5),
            ("2m", 120.0),
            ("1.5h", 5400.0),
            (" 3 s ", 3.0),
            (".5s", 0.5),
        ] {
            assert_eq!(seconds(text), Ok(want), "{text:?}");
        }
        for bad in [
            "0", "0s", "-1", "-1s", "1e300", "1e9ms1", "nan", "inf", "infs", "nanms", "s", "ms", "1 d", "1ns", "2 min",
            "1h30m", "",
        ] {
            let refused = seconds(bad).unwrap_err();
            assert!(refused.contains("from above 0 s to 1e9 s") && refused.contains("500ms"), "{bad:?}: {refused}");
        }
        assert_eq!(seconds("1e9"), Ok(1e9));
        assert!(seconds("16666667m").is_err(), "1e9 s is the limit whatever the unit");
        assert_eq!((seconds_in("100ms", 0.1, 3600.0), seconds_in("1h", 0.1, 3600.0)), (Ok(0.1), Ok(3600.0)));
        assert!(seconds_in("99ms", 0.1, 3600.0).unwrap_err().contains("from 0.1 s to 3600 s"));
        assert!(seconds_in("61m", 0.1, 3600.0).is_err());
    }
}
