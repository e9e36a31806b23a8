//! One message of each type the `cdr` module writes, with fixed contents, each on its own
//! topic: `PREFIX/string` (`std_msgs/msg/String`), `PREFIX/image` (a 4 × 3 `rgb8`
//! `sensor_msgs/msg/Image` whose pixel byte `k` is `k`) and `PREFIX/cloud` (a
//! `sensor_msgs/msg/PointCloud2` of 5 points x, y, z, intensity: point `i` is `i, 2i, 3i,
//! 0.5`). Programs in other languages that write the same messages can compare bytes.
//!
//!   cargo run -p ringbus-ros2 --example ros2_messages -- fixed

use ringbus_ros2::cdr::{self, Image, PointCloud2, PointField, Stamp};
use ringbus_ros2::topics::ros_topic;
use ringbus_ros2::RosType;

const STAMP: Stamp = Stamp { sec: 1_700_000_000, nanosec: 123_456_789 };
const TEXT: &str = "hello ✓";
const FLOAT32: u8 = 7;

fn publisher(
    node: &ringbus::Node,
    topic: &str,
    ros_type: &str,
) -> Result<ringbus::Publisher, Box<dyn std::error::Error>> {
    Ok(ros_topic(node, topic, &RosType::parse(ros_type)?).publisher()?)
}

fn image(publisher: &mut ringbus::Publisher) -> Result<(), Box<dyn std::error::Error>> {
    let image = Image {
        stamp: STAMP,
        frame_id: "camera",
        height: 3,
        width: 4,
        encoding: "rgb8",
        is_bigendian: false,
        step: 12,
    };
    let mut loan = publisher.loan(image.encoded_len())?;
    for (k, p) in image.write(&mut loan)?.iter_mut().enumerate() {
        *p = k as u8;
    }
    loan.publish();
    Ok(())
}

fn cloud(publisher: &mut ringbus::Publisher) -> Result<(), Box<dyn std::error::Error>> {
    let field = |name, offset| PointField { name, offset, datatype: FLOAT32, count: 1 };
    let fields = [field("x", 0), field("y", 4), field("z", 8), field("intensity", 12)];
    let cloud = PointCloud2 {
        stamp: STAMP,
        frame_id: "lidar",
        height: 1,
        width: 5,
        fields: &fields,
        is_bigendian: false,
        point_step: 16,
        row_step: 80,
        is_dense: true,
    };
    let mut loan = publisher.loan(cloud.encoded_len())?;
    let points = cloud.write(&mut loan)?;
    for (i, point) in points.chunks_exact_mut(16).enumerate() {
        let values = [i as f32, 2.0 * i as f32, 3.0 * i as f32, 0.5];
        for (bytes, v) in point.chunks_exact_mut(4).zip(values) {
            bytes.copy_from_slice(&v.to_le_bytes());
        }
    }
    loan.publish();
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [prefix] = &args[..] else { return Err("usage: ros2_messages PREFIX".into()) };
    let node = ringbus::Node::new("ros2-messages")?;
    let mut string = publisher(&node, &format!("{prefix}/string"), "std_msgs/msg/String")?;
    let mut loan = string.loan(cdr::string_len(TEXT))?;
    cdr::write_string(&mut loan, TEXT)?;
    loan.publish();
    image(&mut publisher(&node, &format!("{prefix}/image"), "sensor_msgs/msg/Image")?)?;
    cloud(&mut publisher(&node, &format!("{prefix}/cloud"), "sensor_msgs/msg/PointCloud2")?)?;
    Ok(())
}
