//! `std_msgs/msg/String` on a ringbus topic, as ROS 2 nodes send it through `ringbus-ros2`.
//!
//!   cargo run -p ringbus-ros2 --example ros2_chatter -- talk chatter 5    # "hello 0".."hello 4"
//!   cargo run -p ringbus-ros2 --example ros2_chatter -- talk chatter 5 10 # one every 10 ms
//!   cargo run -p ringbus-ros2 --example ros2_chatter -- listen chatter 5  # prints 5 messages
//!
//! The topic declares the ROS type, so a topic of another type is refused when opened.

use ringbus_ros2::cdr;
use ringbus_ros2::topics::ros_topic;
use ringbus_ros2::RosType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, topic, count, interval_ms) = match &args[..] {
        [mode, topic, count] => (mode, topic, count, "0"),
        [mode, topic, count, interval_ms] => (mode, topic, count, interval_ms.as_str()),
        _ => return Err("usage: ros2_chatter talk|listen TOPIC COUNT [INTERVAL_MS]".into()),
    };
    let count: u32 = count.parse()?;
    let interval = std::time::Duration::from_millis(interval_ms.parse()?);
    let node = ringbus::Node::new("ros2-chatter")?;
    let string = RosType::parse("std_msgs/msg/String")?;
    let builder = ros_topic(&node, topic, &string);
    if mode == "talk" {
        let mut publisher = builder.publisher()?;
        for i in 0..count {
            let text = format!("hello {i}");
            let mut loan = publisher.loan(cdr::string_len(&text))?;
            cdr::write_string(&mut loan, &text)?;
            loan.publish();
            std::thread::sleep(interval);
        }
    } else {
        let mut subscriber = builder.reliable().subscriber()?;
        println!("listening");
        for _ in 0..count {
            let sample = subscriber.receive(None)?;
            println!("{}", cdr::read_string(&sample).ok_or("not a std_msgs/String")?);
        }
    }
    Ok(())
}
