//! Zero copy of a large typed payload: a camera publishes 1280 × 720 RGBA frames (3.5 MiB
//! each) written in place in shared memory; a viewer reads the pixels where they lie.
//!
//! ```sh
//! cargo run -p ringbus --example zero_copy_image [-- --frames N]   # default 10 frames
//! ```
//!
//! `Publisher::loan_slice::<T>(n)` lends room for `n` values of a plain-data type `T`,
//! `Loan::slice_mut` writes them, and `Sample::slice::<T>()` views the subscriber's sample
//! as `&[T]` (length and alignment checked). Here the viewer is a thread: its sample's
//! address is the camera's chunk itself. A viewer in another process reads the same way.
//! Uses `$RINGBUS_ROOT` if set, else a directory of its own under /dev/shm, removed at the end.

mod support;

use ringbus::{Node, TopicBuilder};
use std::sync::mpsc;
use std::time::Duration;
use support::ExampleRoot;

const WIDTH: usize = 1280;
const HEIGHT: usize = 720;
/// One pixel: red, green, blue, alpha. Arrays of plain numbers are `ringbus::Pod`; a
/// `#[repr(C)]` struct of them can be too (`unsafe impl Pod`, see command_queue.rs).
type Rgba = [u8; 4];
const FRAME_BYTES: u64 = (WIDTH * HEIGHT * std::mem::size_of::<Rgba>()) as u64;

fn topic(node: &Node) -> TopicBuilder {
    // Frames are large: memory is taken as frames are lent, not for the worst case up front.
    node.topic("camera/front").max_payload_bytes(FRAME_BYTES).depth(4)
}

/// The pixel the camera draws at (x, y) in frame `n`: a gradient that moves with `n`.
fn pixel(n: u64, x: usize, y: usize) -> Rgba {
    [(x + n as usize) as u8, y as u8, n as u8, 255]
}

fn view(node: Node, frames: u64, subscribed: mpsc::Sender<()>) -> Result<(), String> {
    let mut viewer = topic(&node).subscriber().map_err(|e| e.to_string())?;
    subscribed.send(()).map_err(|e| e.to_string())?;
    loop {
        let sample = viewer.receive(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
        let pixels: &[Rgba] = sample.slice::<Rgba>().map_err(|e| e.to_string())?; // no copy
        let n = sample.position(); // the n-th message of this publisher
        let (x, y) = (640, 360);
        if pixels.len() != WIDTH * HEIGHT || pixels[y * WIDTH + x] != pixel(n, x, y) {
            return Err(format!("frame {n}: unexpected pixels"));
        }
        let mean_red = pixels.iter().map(|p| u64::from(p[0])).sum::<u64>() / pixels.len() as u64;
        println!(
            "viewer: frame {n}, {WIDTH}x{HEIGHT} RGBA ({:.1} MiB) read in place at {:#x}, mean red {mean_red}",
            sample.len() as f64 / (1 << 20) as f64,
            sample.address()
        );
        if n + 1 == frames {
            break;
        }
    }
    // A viewer more than `depth` frames behind skips ahead to fresh ones, and counts the rest.
    println!("viewer: {} frames seen, {} skipped", viewer.taken(), viewer.lost());
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let frames: u64 = match args.iter().position(|a| a == "--frames") {
        Some(i) => args.get(i + 1).ok_or("--frames needs a number")?.parse()?,
        None => 10,
    };
    if frames == 0 {
        return Err("--frames must be at least 1".into());
    }
    let root = ExampleRoot::new();
    let node = Node::with_root("camera", &root.path)?;
    let mut camera = topic(&node).publisher()?;

    let (subscribed, ready) = mpsc::channel();
    let viewer_node = node.clone();
    let viewer = std::thread::spawn(move || view(viewer_node, frames, subscribed));
    ready.recv_timeout(Duration::from_secs(10))?;

    for n in 0..frames {
        let mut frame = camera.loan_slice::<Rgba>(WIDTH * HEIGHT)?; // 3.5 MiB of shared memory
        let pixels: &mut [Rgba] = frame.slice_mut::<Rgba>()?; // written in place: no copy
        for (y, row) in pixels.chunks_exact_mut(WIDTH).enumerate() {
            for (x, p) in row.iter_mut().enumerate() {
                *p = pixel(n, x, y);
            }
        }
        frame.publish();
        // A frame rate, and a viewer that keeps up (it holds at most `max_held` frames).
        std::thread::sleep(Duration::from_millis(20));
    }
    viewer.join().map_err(|_| "the viewer panicked")??;
    println!(
        "camera: published {frames} frames of {:.1} MiB; it holds {:.1} MiB of shared memory for them",
        FRAME_BYTES as f64 / (1 << 20) as f64,
        camera.reserved_payload_bytes() as f64 / (1 << 20) as f64
    );
    Ok(())
}
