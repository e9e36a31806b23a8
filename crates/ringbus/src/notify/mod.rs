//! Notification: wake only those who sleep, with one system call.
#![allow(unsafe_code)]

pub(crate) mod protocol;

pub(crate) use protocol::{Sleep, WakeWords};
