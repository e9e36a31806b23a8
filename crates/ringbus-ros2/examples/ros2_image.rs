//! A 1080p `sensor_msgs/msg/Image` built directly in shared memory: the loan is the
//! message, the pixels are written in place, nothing is copied.
//!
//!   cargo run -p ringbus-ros2 --example ros2_image -- camera/front 30 30   # 30 images at 30 Hz
//!
//! Image `i` has pixel byte `k` = (i + k) mod 251, so a reader can check every byte.

use ringbus_ros2::cdr::{Image, Stamp};
use ringbus_ros2::topics::ros_topic;
use ringbus_ros2::RosType;
use std::time::{Duration, Instant, SystemTime};

/// The frame: 1920 × 1080 RGB.
const FRAME: Image<'static> = Image {
    stamp: Stamp { sec: 0, nanosec: 0 },
    frame_id: "camera",
    height: 1080,
    width: 1920,
    encoding: "rgb8",
    is_bigendian: false,
    step: 1920 * 3,
};

fn now() -> Stamp {
    let t = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    Stamp { sec: t.as_secs() as i32, nanosec: t.subsec_nanos() }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [topic, count, hz] = &args[..] else { return Err("usage: ros2_image TOPIC COUNT HZ".into()) };
    let (count, period) = (count.parse::<u32>()?, Duration::from_secs_f64(1.0 / hz.parse::<f64>()?));
    let node = ringbus::Node::new("ros2-image")?;
    let image_type = RosType::parse("sensor_msgs/msg/Image")?;
    let topic = ros_topic(&node, topic, &image_type);
    let mut publisher = topic.publisher()?;
    let start = Instant::now();
    for i in 0..count {
        let image = Image { stamp: now(), ..FRAME };
        let mut loan = publisher.loan(image.encoded_len())?;
        let pixels = image.write(&mut loan)?;
        for (k, p) in pixels.iter_mut().enumerate() {
            *p = ((i as usize + k) % 251) as u8;
        }
        loan.publish();
        std::thread::sleep((start + period * (i + 1)).saturating_duration_since(Instant::now()));
    }
    Ok(())
}
