//! What `echo`, `hz` and `pub` share: a node for the command, Ctrl-C that stops cleanly
//! (so the command leaves its slot and the topic like any well-behaved participant), an
//! optional overall timeout, and waiting for a topic to appear.

use super::numbers::seconds;
use super::output::{counted, Failure};
use ringbus::inspect::{self, Named};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often a blocked command looks at Ctrl-C and its deadline.
pub const TICK: Duration = Duration::from_millis(100);

/// The run of one command: stops on Ctrl-C (SIGINT/SIGTERM) or at its deadline.
#[derive(Debug)]
pub struct Session {
    pub node: ringbus::Node,
    stop: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Session {
    pub fn new(command: &str, timeout_s: Option<f64>) -> anyhow::Result<Session> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))?;
        let node = ringbus::Node::new(&format!("ringbus-{command}"))?;
        let deadline = timeout_s.map(|s| Instant::now() + Duration::from_secs_f64(s));
        Ok(Session { node, stop, deadline })
    }

    /// Whether Ctrl-C was pressed.
    pub fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Whether the deadline passed.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// How long the next blocking step may take: at most [`TICK`], never past the deadline.
    pub fn slice(&self) -> Duration {
        match self.deadline {
            Some(d) => d.saturating_duration_since(Instant::now()).min(TICK),
            None => TICK,
        }
    }

    /// The timeout of a command that wanted `wanted` messages and got `got`: how many came,
    /// and, if `subscriber` lost some (overwritten before it read them), how many, the
    /// topic's depth, and `remedy` (what the user can do about it).
    pub fn shortfall(&self, subscriber: &ringbus::Subscriber, got: u64, wanted: u64, remedy: &str) -> Failure {
        let mut text = format!("{got} of {} before the timeout", counted(wanted, "message"));
        let lost = subscriber.lost();
        if lost > 0 {
            // The depth as the topic's segment says it; only for the message, so a topic that
            // cannot be read just goes without it.
            let topic = inspect::topic(self.node.root(), subscriber.topic_name()).ok().flatten();
            let depth = topic.map(|t| format!(": the topic's depth is {}", t.settings.depth)).unwrap_or_default();
            text += &format!("; {lost} lost (overwritten before they were read{depth} — {remedy})");
        }
        Failure::Timeout(text)
    }

    /// A builder for topic `name` whose join gives up at the command's deadline or on
    /// Ctrl-C, even while a stopped participant holds the topic's lock.
    pub fn topic(&self, name: &str) -> ringbus::TopicBuilder {
        let builder = self.node.topic(name).cancel_flag(self.stop.clone());
        match self.deadline {
            Some(d) => builder.open_timeout(d.saturating_duration_since(Instant::now())),
            None => builder,
        }
    }

    /// Waits for topic `name` to appear, then subscribes to it; `None` if interrupted.
    pub fn subscribe(&self, name: &str, reliable: bool) -> anyhow::Result<Option<ringbus::Subscriber>> {
        if !self.wait_for_topic(name)? {
            return Ok(None);
        }
        let topic = self.topic(name);
        Ok(Some(if reliable { topic.reliable() } else { topic }.subscriber()?))
    }

    /// Waits until topic `name` exists (so that a command never creates a topic with
    /// settings its real publishers would not expect). `Ok(false)`: interrupted.
    pub fn wait_for_topic(&self, name: &str) -> anyhow::Result<bool> {
        let mut said = false;
        loop {
            if inspect::topic(self.node.root(), name)?.is_some() {
                return Ok(true);
            }
            if self.interrupted() {
                return Ok(false);
            }
            if !said {
                self.refuse_other_kind(name)?;
                eprintln!("waiting for topic {name:?} to appear (Ctrl-C to stop)...");
                said = true;
            }
            if self.expired() {
                return Err(Failure::Timeout(format!("topic {name:?} did not appear before the timeout")).into());
            }
            std::thread::sleep(self.slice());
        }
    }

    /// Waits until topic `name` has `wanted` live subscribers (at once if 0). `Ok(false)`:
    /// interrupted while waiting.
    pub fn wait_for_subscribers(&self, name: &str, wanted: u32) -> anyhow::Result<bool> {
        if wanted == 0 {
            return Ok(true);
        }
        loop {
            let live =
                inspect::topic(self.node.root(), name)?.map_or(0, |t| t.subscribers.iter().filter(|s| s.alive).count());
            if live >= wanted as usize {
                return Ok(true);
            }
            if self.interrupted() {
                return Ok(false);
            }
            if self.expired() {
                return Err(Failure::Timeout(format!(
                    "{live} of {} on {name:?} before the timeout",
                    counted(wanted.into(), "subscriber")
                ))
                .into());
            }
            std::thread::sleep(self.slice().min(Duration::from_millis(20)));
        }
    }

    /// A name that is a command queue, latch or semaphore and not a topic is a mistake to
    /// point out (exit 2), not a topic to wait for.
    fn refuse_other_kind(&self, name: &str) -> anyhow::Result<()> {
        let kinds = inspect::kinds_of(self.node.root(), name)?;
        if kinds.contains(&Named::Topic) {
            return Ok(());
        }
        let what = match kinds.first() {
            Some(Named::Queue) => "a command queue, not a topic; `ringbus list queues` shows it",
            Some(Named::Latch) => "a latch, not a topic; `ringbus list objects` shows it",
            Some(Named::Semaphore) => "a semaphore, not a topic; `ringbus list objects` shows it",
            Some(Named::Topic) | None => return Ok(()),
        };
        Err(Failure::Usage(format!("{name:?} is {what} (echo and hz read topics only)")).into())
    }
}

/// Errors of one publisher's link that a subscribing command reports and survives: the
/// other publishers of the topic keep being read. At most one line a second on stderr.
#[derive(Debug, Default)]
pub struct LinkErrors {
    last_said: Option<Instant>,
    unsaid: u64,
}

impl LinkErrors {
    /// `Ok` if `e` concerns one publisher's link only (said on stderr), else `e` itself.
    pub fn survive(&mut self, e: ringbus::ReceiveError) -> anyhow::Result<()> {
        use ringbus::{ReceiveError, TakeError};
        if !matches!(
            e,
            ReceiveError::Take(TakeError::Corrupted { .. } | TakeError::Truncated { .. } | TakeError::Attach(_))
        ) {
            return Err(e.into());
        }
        if self.last_said.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            self.unsaid += 1;
            return Ok(());
        }
        let more = match std::mem::take(&mut self.unsaid) {
            0 => String::new(),
            n => format!(" ({n} more since the last report)"),
        };
        eprintln!("warning: {e}{more}; reading the other publishers goes on");
        self.last_said = Some(Instant::now());
        Ok(())
    }
}

/// `--timeout`, shared by the commands that wait.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct TimeoutArg {
    /// Give up after this long (exit 4 if the work was not done): seconds, or with a unit
    /// (500ms, 1s, 2m, 1h).
    #[arg(long, value_name = "DURATION", value_parser = seconds)]
    pub timeout: Option<f64>,
}
