//! `ringbus top`: a live view of the bus — per topic, messages and payload bytes per second,
//! sleepers and wake system calls; per subscriber, how fast it takes, how far it lags,
//! what it loses and whether it is alive. Rates are the difference of two
//! `ringbus::inspect` snapshots over the measured time between them (`rows`), laid out as
//! text (`frame`) and drawn on a terminal (`screen`), or printed once with `--once`.

mod frame;
pub(super) mod rows;
mod screen;

use super::json;
use super::output::{print_json, printable, Failure, JsonFlag};
use frame::View;
use ringbus::inspect::{self, TopicInfo};
use rows::{Order, SortKey};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Refreshes are at least this far apart, and at most an hour.
const MIN_INTERVAL_S: f64 = 0.1;
const MAX_INTERVAL_S: f64 = 3600.0;

#[derive(Debug, clap::Args)]
#[command(after_help = "Keys (live view): s  next sort key   r  reverse the order   q, Esc, Ctrl-C  quit\n\n\
    Examples:\n  \
    ringbus top                              # refresh every second; s sorts, q quits\n  \
    ringbus top --sort lag --interval 500ms  # who falls behind, twice a second\n  \
    ringbus top --once --json --interval 2   # one frame of rates over 2 s, for scripts")]
pub struct TopArgs {
    /// Time between refreshes (and, with --once, between the two snapshots): seconds, or with
    /// a unit (500ms, 2m); 0.1 s to 1 h.
    #[arg(long, value_name = "DURATION", default_value_t = 1.0, value_parser = parse_interval)]
    interval: f64,
    /// Sort by (numbers descending, names ascending).
    #[arg(long, value_enum, default_value_t = SortKey::Rate)]
    sort: SortKey,
    /// Reverse the sort order.
    #[arg(long)]
    reverse: bool,
    /// Print one frame and exit (works without a terminal): two snapshots `--interval` apart.
    #[arg(long)]
    once: bool,
    #[command(flatten)]
    json: JsonFlag,
}

fn parse_interval(text: &str) -> Result<f64, String> {
    super::numbers::seconds_in(text, MIN_INTERVAL_S, MAX_INTERVAL_S)
}

/// The topics of the root at one moment.
pub struct Sample {
    pub root: PathBuf,
    pub topics: Vec<TopicInfo>,
    /// Every MAVLink router answering on a control socket in the default directory.
    pub routers: Vec<ringbus_route::runtime::Status>,
    /// Why no router was asked: the control directory is not private to this user.
    pub routers_refused: Option<String>,
    pub at: Instant,
}

/// Reads the root (one that does not exist yet has no topics) and asks the routers.
fn sample() -> anyhow::Result<Sample> {
    let at = Instant::now();
    let (routers, routers_refused) = match ringbus_route::control::all_statuses(&ringbus_route::control::default_dir())
    {
        Ok(routers) => (routers, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let (root, topics) = match super::existing_root()? {
        Some(root) => {
            let snap = inspect::snapshot(&root);
            (snap.root, snap.topics)
        }
        None => (ringbus::Root::default_path(), Vec::new()),
    };
    Ok(Sample { root, topics, routers, routers_refused, at })
}

impl TopArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let interval = Duration::from_secs_f64(self.interval);
        let order = Order { key: self.sort, reversed: self.reverse };
        if self.json.json && !self.once {
            return Err(Failure::Usage("`ringbus top --json` needs `--once`: it prints one frame".into()).into());
        }
        if !self.once {
            if !std::io::stdout().is_terminal() {
                return Err(Failure::Usage(
                    "the live view needs a terminal and stdout is not one; \
                     use `ringbus top --once` (add `--json` for scripts) to print one frame"
                        .into(),
                )
                .into());
            }
            return screen::run(interval, order, sample);
        }
        let before = sample()?;
        std::thread::sleep(interval);
        let after = sample()?;
        if let Some(why) = &after.routers_refused {
            eprintln!("ringbus top: MAVLink routers not shown: {}", printable(why));
        }
        let elapsed = after.at - before.at;
        let mut rows = rows::diff(&before.topics, &after.topics, elapsed);
        rows::sort(&mut rows, order);
        if self.json.json {
            let mut value = json::top(&after.root, self.interval, elapsed, order, &rows);
            value["routers"] = serde_json::to_value(&after.routers)?;
            print_json(&value);
        } else {
            let view = View { root: &after.root, rows: &rows, routers: &after.routers, order, elapsed, live: false };
            for line in frame::render(&view, None, None) {
                println!("{}", line.painted());
            }
        }
        Ok(())
    }
}
