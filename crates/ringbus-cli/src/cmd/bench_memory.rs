//! `ringbus bench memory`: the shared memory a publisher holds against the bytes in
//! flight, for a tiny, a camera-like and a point-cloud-like stream, and the latency of
//! memory taken on demand against a pool preallocated up front; markdown on stdout,
//! optionally JSON and an SVG plot.

use super::bench::{dedup, run_parent, worker_launcher, OutputArgs};
use anyhow::Result;
use ringbus_bench::memory::{self, plot, report, MemoryConfig, Scenario};

pub const LONG_ABOUT: &str = "\
How much shared memory a publisher holds when its chunks get memory as messages are lent
(the default for topics whose largest message is over 4 KiB), against the bytes actually
in flight; and what that costs in latency against a pool whose memory is all reserved up
front (.preallocate(true)). Every run is real processes: subscriber processes (this binary
re-executed) start first and sleep in receive(), then a publisher process publishes.

Memory, one run per scenario:

  scenario    rate     message sizes              max_payload_bytes  subscribers
  tiny        1000 Hz  5 B                        64 MiB             1
  camera      30 Hz    100 KiB to 6 MiB, uniform  6 MiB              2, one holding every
                                                                     sample 100 ms
  pointcloud  10 Hz    1 MiB to 16 MiB, uniform   16 MiB             1

Topics keep their defaults otherwise: depth 16 (a subscriber can take any of the last 16
messages; --depth changes it), up to 16 subscribers holding 4 samples each (camera: 8),
so depth + 16 x 4 + 1 = 81 chunks (camera: 145). At depth 16 and 30 Hz a sample held
100 ms is still in the log when it is dropped; at --depth 2 it outlasts the log. Sizes
come from a generator seeded with --seed (printed): the same sequence on every machine.
The publisher fills every loan whole with a byte that names the message; subscribers
check one byte in every 4 KiB page and the last byte (memory given back under a reader
would read as zeros). After every publish, and once at the end, the publisher process
measures:

  reserved   the sum of st_blocks x 512 over every file of the run's ringbus root (the
             topic, the nodes, the publisher's segment): the memory the kernel has
             allocated for them, as du counts it
  payload    Publisher::reserved_payload_bytes(): the publisher's own account of its
             chunks' memory (payload only), a cross-check
  in flight  as message n was lent: the depth messages before it (still in the
             publisher's log, so a subscriber may still take them), message n itself,
             and the samples a subscriber holds that have left the log (position below
             n - depth). The holding subscriber lists each sample it holds (position,
             length) on a shared board from just after taking it to just after dropping
             it; the publisher reads the board.

Each is reported as its peak over the run, with reserved / in flight. Limits, checked as
measured: tiny reserved <= 2 MiB; camera and pointcloud reserved <= 2 x in flight + 2 MiB.
\"Preallocated would reserve\" is COMPUTED, not measured: chunks x chunk stride
(max_payload_bytes rounded up to the chunk alignment), what the same topic reserves for
its chunks when created with .preallocate(true). syscalls/publish is the mean (and most)
of the exact system calls loan_uninit() + publish() made: reserving a chunk's memory
(fallocate), trimming it (punching a hole), waking a subscriber; counted through the perf
tracepoint raw_syscalls:sys_enter, n/a where the machine does not allow it.

Latency, on demand against preallocated, both topics with max_payload_bytes 1 MiB and one
subscriber process asleep in receive(): 64 B messages at 1000 Hz and 1 MiB at 200 Hz,
3000 and 1000 measured messages (--quick: 500 and 200) after 50 unmeasured ones. Each of
--repeat repetitions runs both variants at both sizes, the variants' order alternating
between repetitions. publish = loan_uninit() + publish() on CLOCK_MONOTONIC (filling the
payload between them is not counted); end to end = from before loan_uninit() to the
subscriber process holding the sample, the start time carried in the first 8 payload
bytes. p50 and p99 per run, and system calls as above; rows are the median over the
repetitions; on demand / preallocated is the median over repetitions of the ratio within
one repetition. Target, checked as measured: <= 1.1x at p50, publish and end to end.

Files: each run in a fresh ringbus root in a directory ringbus-bench-* under
$RINGBUS_ROOT if set, else under /dev/shm, removed at the end (also on error or Ctrl-C;
one left by a killed run is removed by the next).";

const AFTER_HELP: &str = "\
Examples:
  ringbus bench memory --quick               # about 20 s
  ringbus bench memory                       # 5000/300/100 messages, 5 latency repetitions (about 2 min)
  ringbus bench memory --scenarios camera --seed 7 --repeat 0
  ringbus bench memory --json memory.json --plot memory.svg";

/// The shared options (`OutputArgs`), worded for this command.
const JSON_HELP: &str =
    "Also write every row to FILE as a JSON array (\"kind\": \"memory\" or \"latency\"). Example: --json memory.json";
const PLOT_HELP: &str =
    "Also draw memory per scenario and p50 latency per variant as an SVG bar chart. Example: --plot memory.svg";
const QUICK_HELP: &str =
    "500/60/30 messages per scenario, 500/200 per latency run, 3 repetitions: about 20 s. Example: --quick";

const REPEAT: u32 = 5;
const QUICK_REPEAT: u32 = 3;

#[derive(Debug, clap::Args)]
#[command(
    after_help = AFTER_HELP,
    mut_arg("json", |a| a.help(JSON_HELP)),
    mut_arg("plot", |a| a.help(PLOT_HELP)),
    mut_arg("quick", |a| a.help(QUICK_HELP))
)]
pub struct MemoryArgs {
    /// Scenarios to run, comma-separated (see above). Example: --scenarios tiny,camera
    #[arg(long, value_name = "NAME,..", value_delimiter = ',', default_value = "tiny,camera,pointcloud")]
    scenarios: Vec<Scenario>,

    /// Seed of the message sizes. Example: --seed 7
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,

    /// Log depth of the scenarios' topics: a power of two, 1 to 65536 [default: 16]. Example: --depth 2
    #[arg(long, value_name = "N", value_parser = super::numbers::depth)]
    depth: Option<u32>,

    /// Latency repetitions, 0 (none) to 100 [default: 5, --quick: 3]. Example: --repeat 9
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=100))]
    repeat: Option<u32>,

    #[command(flatten)]
    output: OutputArgs,
}

impl MemoryArgs {
    pub fn run(self) -> Result<()> {
        let quick = self.output.quick;
        let config = MemoryConfig {
            scenarios: dedup(&self.scenarios),
            seed: self.seed,
            depth: self.depth,
            quick,
            repeat: self.repeat.unwrap_or(if quick { QUICK_REPEAT } else { REPEAT }),
            dir: run_parent()?,
            worker: worker_launcher("the publisher and subscriber processes")?,
        };
        let outcome = super::bench::measure(false, |bar| memory::run(&config, bar))?;
        super::bench::print_header("memory");
        let depth = outcome.memory.first().map_or_else(|| "n/a".into(), |r| r.depth.to_string());
        let default = if config.depth.is_none() { " (the default)" } else { "" };
        println!(
            "- message sizes seeded with {}; topics of depth {depth}{default}; memory sampled by the publisher \
             process after every publish; preallocated pools computed, not measured\n",
            config.seed
        );
        print!("{}", report::memory_markdown(&outcome.memory));
        if !outcome.latency.is_empty() {
            println!(
                "\n### Latency: on demand vs preallocated (max_payload_bytes 1MiB, 1 subscriber process asleep in \
                 receive(), {} repetitions alternating)\n",
                config.repeat
            );
            print!("{}", report::latency_markdown(&outcome.latency));
            for target in report::targets(&outcome.latency) {
                println!("\n{target}");
            }
        }
        self.output.write(
            |path| report::write_json(&outcome.memory, &outcome.latency, path),
            |path| plot::draw(&outcome.memory, &outcome.latency, path),
        )
    }
}
