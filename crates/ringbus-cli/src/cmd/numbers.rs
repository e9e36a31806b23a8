//! Range-checked parsers of the commands' numeric options. A value out of range is refused
//! while the command line is parsed (exit 2, the message giving the range), never replaced
//! by a default, passed on to fail later, or left to overflow. Topic settings use the
//! library's own limits.

use std::fmt::Display;
use std::str::FromStr;

/// The longest time an option may give: about 31 years.
const MAX_SECONDS: f64 = 1e9;
/// The slowest and fastest rates an option may give (one message in 11.6 days; a billion
/// per second).
const MIN_HERTZ: f64 = 1e-6;
const MAX_HERTZ: f64 = 1e9;

/// Parses a number of seconds: positive, at most [`MAX_SECONDS`].
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= MAX_SECONDS => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds from above 0 to {MAX_SECONDS:e}")),
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
    match s.trim().parse::<u32>() {
        Ok(n) if n.is_power_of_two() && n <= ringbus::MAX_DEPTH => Ok(n),
        _ => Err(format!("{s:?} is not a power of two from 1 to {}", ringbus::MAX_DEPTH)),
    }
}

/// `--history`: 0 to the largest depth (the library then checks it is at most the depth).
pub fn history(s: &str) -> Result<u32, String> {
    whole(s, "messages", 0, ringbus::MAX_DEPTH)
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
}
