//! A fan-out subscriber process: opens its transport's receiving end, says it is ready,
//! then records each message's end-to-end latency into the shared results file, and what
//! it spent over the measured messages, and exits after the last message. It dies with
//! the bench (`PR_SET_PDEATHSIG`).

use super::results::ResultsFile;
use crate::config::Scenario;
use crate::transports::{self, Endpoint};
use crate::usage::Usage;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything one subscriber process needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SubscriberSpec {
    pub index: u32,
    pub subs: u32,
    pub topics: u32,
    pub payload_bytes: u64,
    pub transport: crate::config::Transport,
    /// Messages per topic, warm-up included.
    pub messages: u64,
    /// The first `warmup` of them are not measured (nor is the CPU spent on them).
    pub warmup: u64,
    pub results: PathBuf,
    pub endpoint: Endpoint,
}

impl SubscriberSpec {
    fn scenario(&self) -> Scenario {
        Scenario { transport: self.transport, subs: self.subs, topics: self.topics, payload_bytes: self.payload_bytes }
    }
}

/// Runs one subscriber.
pub(crate) fn run(spec: &SubscriberSpec) -> Result<()> {
    let messages = usize::try_from(spec.messages)?;
    let results = ResultsFile::open(&spec.results, spec.subs as usize, messages)?;
    let mut receiver = transports::receiver(&spec.scenario(), spec.index, &spec.endpoint)
        .with_context(|| format!("subscriber {} cannot open its {} endpoint", spec.index, spec.transport))?;
    // What this process spends over the measured messages: from once the last warm-up
    // message is recorded (or whatever came after it, if it was lost) to the last message.
    let mut measuring = (spec.warmup == 0).then(Usage::of_self).transpose()?;
    results.mark_ready();
    loop {
        let got = receiver.next().with_context(|| format!("subscriber {} ({})", spec.index, spec.transport))?;
        results.record(spec.index as usize, got.seq, got.at_ns.saturating_sub(got.t0_ns))?;
        if got.seq + 1 >= spec.messages {
            if let Some(start) = measuring {
                results.record_usage(spec.index as usize, Usage::of_self()?.since(start))?;
            }
            return Ok(());
        }
        if measuring.is_none() && got.seq + 1 >= spec.warmup {
            measuring = Some(Usage::of_self()?);
        }
    }
}
