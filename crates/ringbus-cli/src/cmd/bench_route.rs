//! `ringbus bench route`: ns per routing decision and per forwarded frame through the
//! router's lock-free link table against a mutex-protected table, in the same run; frames
//! per second through UDP loopback. Markdown on stdout, optionally JSON and an SVG plot.

use super::bench::OutputArgs;
use super::output::counted;
use anyhow::Result;
use ringbus_bench::route::{self, plot, report, RouteConfig};

pub const LONG_ABOUT: &str = "\
The MAVLink router: what routing one MAVLink frame costs when the link list is read with
no lock (ringbus-route's table: an ArcSwap'd list; removed links freed after their last
reader) against the usual design (the same list behind one mutex held for the whole
decision, as in PX4's MAVLink forwarding), in the same invocation, the two alternating
between repetitions.

Per run: a router with --links links, each having heard one system; 1 or 2 forwarding
threads (each with a source link of its own) route, in turn, a HEARTBEAT (to everyone)
and a COMMAND_LONG targeted at one system; with churn, another thread adds and removes a
link in a loop all the while. Two figures per thread, ns per frame over --frames frames:

  decision  load the list, decide for every link (Router::count_destinations)
  forward   Router::receive: input filter, route learning, decision, output filters,
            counters, and sinks that count and discard

Rows: the median of --repeat runs, with min and max; lockfree ÷ mutex per row, the median
over repetitions of the ratio within one repetition (where the two runs are adjacent in
time). Then, unless --udp-frames 0: a real router with two udp-in endpoints on 127.0.0.1;
a sender sends HEARTBEATs to one, a receiver reads them from the other; the sender keeps
at most 128 frames in flight (the receiver keeps up), one frame per datagram; the
receiver counts the frames it parses out of what it gets. Reported: frames/s, frames
lost, and frames per datagram received. Twice: with clients moving one datagram per
system call (sendto/recvfrom, as a MAVLink program does), then 32 (sendmmsg/recvmmsg, so
that the router is what is measured). The router itself always reads with recvmmsg and
forwards to UDP links with sendmmsg, packing the frames of one receive batch bound for
the same peer into shared datagrams (at most 1472 bytes).

Targets, reported as measured: decision with 2 threads ≤ 0.5 × the mutex table's
ns/frame; ≥ 100000 frames/s through UDP loopback with no loss.";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench route --quick                      # a few seconds: 1 run each
  ringbus bench route                              # 5 runs each, 2000000 frames per thread
  ringbus bench route --threads 2 --repeat 9 --json route.json --plot route.svg";

/// The shared options (`OutputArgs`), worded for this command.
const QUICK_HELP: &str =
    "200000 frames, one run each, 100000 UDP frames: a few seconds; enough to check it works, too \
    short for figures to quote. Example: --quick";

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct RouteBenchArgs {
    /// Frames routed per thread, metric and run [default: 2000000, --quick: 200000]. Example: --frames 5000000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1000..=1_000_000_000))]
    frames: Option<u64>,

    /// Runs of each (threads, churn, table); rows report the median [default: 5, --quick: 1]. Example: --repeat 9
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    repeat: Option<u32>,

    /// Links in the table besides the sources, 1 to 200. Example: --links 16
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=200))]
    links: u16,

    /// Forwarding threads, comma-separated, 1 to 16 each. Example: --threads 1,2,4
    #[arg(long, value_name = "N,..", value_delimiter = ',', default_value = "1,2", value_parser = clap::value_parser!(u32).range(1..=16))]
    threads: Vec<u32>,

    /// Frames through UDP loopback (0: skip) [default: 1000000, --quick: 100000]. Example: --udp-frames 0
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    udp_frames: Option<u64>,

    #[command(flatten)]
    output: OutputArgs,
}

impl RouteBenchArgs {
    pub fn run(self) -> Result<()> {
        let q = self.output.quick;
        let config = RouteConfig {
            frames: self.frames.unwrap_or(if q { 200_000 } else { 2_000_000 }),
            repeat: self.repeat.unwrap_or(if q { 1 } else { 5 }),
            links: self.links as usize,
            threads: self.threads.clone(),
            udp_frames: self.udp_frames.unwrap_or(if q { 100_000 } else { 1_000_000 }),
        };
        let (rows, udp) = super::bench::measure(false, |bar| route::run(&config, bar))?;
        super::bench::print_header("route");
        println!(
            "- {} frames per thread, metric and run; {} besides the sources; median of {}, \
             lockfree and mutex alternating\n",
            config.frames,
            counted(config.links as u64, "link"),
            counted(config.repeat.into(), "run")
        );
        print!("{}", report::markdown(&rows));
        if !udp.is_empty() {
            println!("\n### End to end through UDP loopback (two udp-in endpoints, at most 128 frames in flight)\n");
            print!("{}", report::udp_markdown(&udp));
        }
        for target in report::targets(&rows, &udp) {
            println!("\n{target}");
        }
        self.output.write(|path| report::write_json(&rows, &udp, path), |path| plot::draw(&rows, path))
    }
}
