//! Commands between processes: a planner pushes `Move` commands through a bounded queue
//! to a controller process, then asks the controller where the robot is through a
//! service (a request/response call).
//!
//! ```sh
//! cargo run -p ringbus --example command_queue [-- --moves N]   # default 200 moves
//! ```
//!
//! `--controller N` runs the controller alone and `--planner N` the planner alone, against
//! a controller already running in `$RINGBUS_ROOT` — written in another language, say: the
//! queue and the service are shared by any program that gives the same type names.
//!
//! The queue holds 16 commands: a planner faster than the controller waits for room
//! (`push_timeout`) instead of losing commands. The controller is this program started
//! again (`--controller N`). Uses `$RINGBUS_ROOT` if set, else a directory of its own
//! under /dev/shm, removed at the end.

mod support;

use ringbus::service::{Client, Server};
use ringbus::{Node, Pod};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::ExampleRoot;

/// A command: plain numbers in a `#[repr(C)]` struct, copied into the queue's ring.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct Move {
    dx: f32,
    dy: f32,
}
// SAFETY: repr(C), two f32s, no padding: valid for every bit pattern, as Pod requires.
unsafe impl Pod for Move {}

const QUEUE: &str = "robot/moves";
const CAPACITY: u32 = 16;
const SERVICE: &str = "robot/position";
const TIMEOUT: Duration = Duration::from_secs(10);

/// The controller: applies `moves` commands, then answers one position request.
fn controller(moves: u32) -> Result<(), Box<dyn std::error::Error>> {
    let node = Node::new("controller")?; // the root the planner passed in $RINGBUS_ROOT
    let mut commands = node.queue::<Move>(QUEUE).capacity(CAPACITY).consumer()?;
    let mut server = Server::<u32, [f32; 2]>::new(&node, SERVICE, 4)?;
    println!("ready"); // the planner pushes once the queue and the service exist
    let mut position = [0.0f32; 2];
    let mut batch = [Move { dx: 0.0, dy: 0.0 }; 8];
    let mut applied = 0;
    while applied < moves {
        if !commands.wait(Some(TIMEOUT)) {
            return Err(format!("no command for {TIMEOUT:?} after {applied}").into());
        }
        let n = commands.pop_batch(&mut batch)?; // up to 8 at once, in order
        for m in &batch[..n] {
            position[0] += m.dx;
            position[1] += m.dy;
        }
        applied += n as u32;
    }
    let answered = server.serve_once(Some(TIMEOUT), |_request: &u32| position)?;
    println!("controller: applied {applied} moves, answered {answered} position request");
    commands.unlink(); // queues persist until unlinked; the server removes its own
    Ok(())
}

/// Pushes `moves` commands, then asks the controller where the robot is; checks the answer.
fn plan(node: &Node, moves: u32) -> Result<(), Box<dyn std::error::Error>> {
    let mut commands = node.queue::<Move>(QUEUE).producer()?;
    let mut waited = 0;
    for _ in 0..moves {
        let step = Move { dx: 1.0, dy: 0.5 };
        if commands.push(step).is_err() {
            waited += 1; // full: the controller is behind; wait for room (bounded)
            commands.push_timeout(step, Some(TIMEOUT)).map_err(|_| "the controller stopped taking commands")?;
        }
    }
    let mut client = Client::<u32, [f32; 2]>::new(node, SERVICE, 4)?;
    let [x, y] = client.call(0, TIMEOUT)?;
    println!("planner: pushed {moves} moves through a queue of {CAPACITY} ({waited} waited for room)");
    println!("planner: the controller says the robot is at ({x}, {y})");
    if (x, y) != (moves as f32, moves as f32 * 0.5) {
        return Err("the controller lost or reordered commands".into());
    }
    Ok(())
}

/// Starts the controller (this program again) and plans against it.
fn planner(root: &Path, moves: u32) -> Result<(), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--controller", &moves.to_string()])
        .env("RINGBUS_ROOT", root)
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    out.read_line(&mut line)?;
    if line.trim() != "ready" {
        return Err(format!("the controller did not start: {line:?}").into());
    }
    let planned = plan(&Node::with_root("planner", root)?, moves);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest)?;
    print!("{rest}");
    if !child.wait()?.success() {
        return Err("the controller failed".into());
    }
    planned
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let number = |flag: &str, default: u32| -> Result<u32, Box<dyn std::error::Error>> {
        match args.iter().position(|a| a == flag) {
            Some(i) => Ok(args.get(i + 1).ok_or(format!("{flag} needs a number"))?.parse()?),
            None => Ok(default),
        }
    };
    if args.iter().any(|a| a == "--controller") {
        return controller(number("--controller", 0)?);
    }
    if args.iter().any(|a| a == "--planner") {
        // Against a controller already running in $RINGBUS_ROOT (one in Python, say).
        return plan(&Node::new("planner")?, number("--planner", 0)?);
    }
    let root = ExampleRoot::new();
    planner(&root.path, number("--moves", 200)?)
}
