//! ringbus itself: one publisher per topic writing a 16-byte header into a loan (zero
//! copy), subscribers asleep in `receive()` or polling `take()` every millisecond; the
//! first K of them reliable in the `ringbus-reliable` scenarios (the publisher is the
//! same, its default `WhenFull::Wait(None)`: it waits for room).

use super::{Blocked, Endpoint, Fanout, Handoff, Received, Receiver};
use crate::config::Scenario;
use anyhow::{ensure, Context, Result};
use ringbus::{Node, Publisher, Subscriber, Wake};
use std::path::Path;
use std::time::Duration;

/// Polling subscribers look again this long after finding nothing.
pub(crate) const POLL_PERIOD: Duration = Duration::from_millis(1);

fn topic_name(topic: u32) -> String {
    format!("fanout/t{topic}")
}

#[derive(Debug)]
pub(crate) struct RingbusFanout {
    publishers: Vec<Publisher>,
    /// Subscribers per topic, all of which must be asleep before we start.
    sleepers: Vec<u32>,
    polling: bool,
    /// Subscribers opened reliable: the first ones.
    reliable_subs: u32,
    payload_bytes: usize,
    _node: Node,
}

impl RingbusFanout {
    pub(crate) fn create(
        s: &Scenario,
        root: &Path,
        direct_wakes: Option<u32>,
        reliable_subs: u32,
    ) -> Result<(RingbusFanout, Vec<Handoff>)> {
        let node = Node::with_root("bench-publisher", root).context("cannot create the ringbus root for the bench")?;
        let mut publishers = Vec::new();
        for topic in 0..s.topics {
            let mut builder = node
                .topic(&topic_name(topic))
                .max_publishers(1)
                .max_subscribers(s.subs_of(topic).max(1))
                .max_held(1)
                .max_payload_bytes(s.payload_bytes);
            if let Some(k) = direct_wakes {
                builder = builder.direct_wakes(k);
            }
            let publisher =
                builder.publisher().with_context(|| format!("cannot create the publisher of {}", topic_name(topic)))?;
            publishers.push(publisher);
        }
        let polling = s.transport == crate::config::Transport::RingbusPolling;
        let handoffs = (0..s.subs)
            .map(|i| Handoff {
                endpoint: Endpoint::Ringbus {
                    root: root.to_path_buf(),
                    topic: topic_name(s.topic_of(i)),
                    polling,
                    reliable: i < reliable_subs,
                },
                inherit: None,
                child_end: None,
            })
            .collect();
        let sleepers = (0..s.topics).map(|t| s.subs_of(t)).collect();
        let payload_bytes = usize::try_from(s.payload_bytes)?;
        Ok((RingbusFanout { publishers, sleepers, polling, reliable_subs, payload_bytes, _node: node }, handoffs))
    }
}

impl Fanout for RingbusFanout {
    fn publish(&mut self, topic: u32, seq: u64, t0_ns: u64, warm: bool) -> Result<()> {
        let mut loan = self.publishers[topic as usize].loan_uninit(self.payload_bytes)?;
        if warm {
            loan.fill(0xA5);
        }
        loan[..8].copy_from_slice(&t0_ns.to_le_bytes());
        loan[8..16].copy_from_slice(&seq.to_le_bytes());
        loan.publish();
        Ok(())
    }

    fn asleep(&self, topic: u32) -> Option<u32> {
        (!self.polling).then(|| self.publishers[topic as usize].sleeping_subscribers())
    }

    fn settled(&self) -> bool {
        self.polling || self.publishers.iter().zip(&self.sleepers).all(|(p, &n)| p.sleeping_subscribers() == n)
    }

    fn blocked(&self) -> Option<Blocked> {
        (self.reliable_subs > 0).then(|| {
            let stats = self.publishers.iter().map(Publisher::stats);
            let (loans, ns) = stats.fold((0, 0), |(loans, ns), s| (loans + s.blocked, ns + s.blocked_ns));
            Blocked { reliable_subs: self.reliable_subs, loans, ns }
        })
    }
}

#[derive(Debug)]
pub(crate) struct RingbusReceiver {
    subscriber: Subscriber,
    polling: bool,
    _node: Node,
}

impl RingbusReceiver {
    pub(crate) fn open(root: &Path, topic: &str, polling: bool, reliable: bool, index: u32) -> Result<RingbusReceiver> {
        let node = Node::with_root(&format!("bench-sub-{index}"), root)?;
        let wake = if polling { Wake::Never } else { Wake::OnData };
        let mut builder = node.topic(topic).wake(wake);
        if reliable {
            builder = builder.reliable();
        }
        let subscriber = builder.subscriber()?;
        Ok(RingbusReceiver { subscriber, polling, _node: node })
    }
}

impl Receiver for RingbusReceiver {
    fn next(&mut self) -> Result<Received> {
        let sample = if self.polling {
            loop {
                match self.subscriber.take()? {
                    Some(sample) => break sample,
                    None => std::thread::sleep(POLL_PERIOD),
                }
            }
        } else {
            self.subscriber.receive(None)?
        };
        ensure!(sample.len() >= 16, "a {}-byte message has no room for the header", sample.len());
        let t0_ns = u64::from_le_bytes(sample[..8].try_into()?);
        let seq = u64::from_le_bytes(sample[8..16].try_into()?);
        let at_ns = ringbus::diagnostics::monotonic_ns();
        Ok(Received { seq, t0_ns, at_ns })
    }
}
