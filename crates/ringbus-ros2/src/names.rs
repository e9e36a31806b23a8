//! ROS 2 names and type names, and what they become on DDS: a topic `/chatter` travels as
//! the DDS topic `rt/chatter`, a type `std_msgs/msg/String` as `std_msgs::msg::dds_::String_`.
//! Both are checked here, before anything is opened, so a bad one is refused with a message.

use std::fmt;

/// A ROS 2 message type, `package/msg/Type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RosType {
    package: String,
    name: String,
}

impl RosType {
    /// Parses `pkg/msg/Type`: a package of lowercase letters, digits and underscores
    /// (starting with a letter), then `msg`, then a type name starting with an uppercase letter.
    pub fn parse(text: &str) -> Result<RosType, String> {
        let refuse = |why: &str| {
            Err(format!(
                "{text:?} is not a ROS 2 message type ({why}); write package/msg/Type, e.g. sensor_msgs/msg/Image"
            ))
        };
        let parts: Vec<&str> = text.split('/').collect();
        let [package, kind, name] = parts[..] else { return refuse("three parts separated by /") };
        if kind != "msg" {
            return refuse("the middle part must be msg");
        }
        let package_ok = package.starts_with(|c: char| c.is_ascii_lowercase())
            && package.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !package_ok {
            return refuse("a package is lowercase letters, digits and _, starting with a letter");
        }
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            return refuse("a type name is letters and digits, starting with an uppercase letter");
        }
        Ok(RosType { package: package.to_string(), name: name.to_string() })
    }

    /// The package, e.g. `sensor_msgs`.
    pub fn package(&self) -> &str {
        &self.package
    }

    /// The type's own name, e.g. `Image`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The DDS type name ROS 2 uses: `pkg::msg::dds_::Type_`.
    pub fn dds_name(&self) -> String {
        format!("{}::msg::dds_::{}_", self.package, self.name)
    }
}

impl fmt::Display for RosType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/msg/{}", self.package, self.name)
    }
}

/// One token of a ROS 2 name: letters, digits and `_`, not starting with a digit, no `__`.
fn name_token_ok(t: &str) -> bool {
    !t.is_empty()
        && !t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !t.contains("__")
}

/// Checks a ROS 2 node name (one token, e.g. `camera_bridge`).
pub fn check_node_name(text: &str) -> Result<(), String> {
    match name_token_ok(text) {
        true => Ok(()),
        false => Err(format!(
            "{text:?} is not a ROS 2 node name: use letters, digits and _ (not starting with a digit, no __), \
             e.g. camera_bridge"
        )),
    }
}

/// Checks a ROS 2 topic name and makes it absolute: `chatter` and `/chatter` are both
/// `/chatter`. Tokens are letters, digits and underscores, not starting with a digit,
/// separated by single slashes.
pub fn ros_topic_name(text: &str) -> Result<String, String> {
    let body = text.strip_prefix('/').unwrap_or(text);
    if body.is_empty() || !body.split('/').all(name_token_ok) {
        return Err(format!(
            "{text:?} is not a ROS 2 topic name: use letters, digits and _ between single slashes \
             (no -, ., spaces or __; not starting with a digit), e.g. /camera/front/image_raw"
        ));
    }
    Ok(format!("/{body}"))
}

/// The ROS 2 name a ringbus topic travels as unless one is given: `/` + the topic.
pub fn default_ros_name(topic: &str) -> Result<String, String> {
    ros_topic_name(topic)
        .map_err(|e| format!("{e}; the ringbus topic {topic:?} needs an explicit ROS name (TOPIC=ROS_NAME)"))
}

/// The DDS topic of a ROS 2 topic name (absolute, as [`ros_topic_name`] returns it).
pub fn dds_topic_name(ros_name: &str) -> String {
    format!("rt{ros_name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_map_to_their_dds_names() {
        let t = RosType::parse("sensor_msgs/msg/Image").unwrap();
        assert_eq!(t.dds_name(), "sensor_msgs::msg::dds_::Image_");
        assert_eq!(t.to_string(), "sensor_msgs/msg/Image");
        for bad in
            ["Image", "sensor_msgs/Image", "sensor_msgs/srv/Image", "Sensor/msg/Image", "a/msg/image", "a/msg/Im-g"]
        {
            let e = RosType::parse(bad).unwrap_err();
            assert!(e.contains("package/msg/Type"), "{e}");
        }
    }

    #[test]
    fn topic_names_are_checked_and_made_absolute() {
        assert_eq!(ros_topic_name("chatter").unwrap(), "/chatter");
        assert_eq!(ros_topic_name("/camera/front").unwrap(), "/camera/front");
        assert_eq!(dds_topic_name("/camera/front"), "rt/camera/front");
        for bad in ["", "/", "a//b", "a/", "a-b", "1a", "a b", "a__b"] {
            assert!(ros_topic_name(bad).unwrap_err().contains("not a ROS 2 topic name"), "{bad}");
        }
        assert!(default_ros_name("cam-1").unwrap_err().contains("TOPIC=ROS_NAME"));
    }

    #[test]
    fn node_names_are_one_token() {
        assert!(check_node_name("camera_bridge").is_ok());
        for bad in ["", "a/b", "1a", "a-b", "a__b", "/a"] {
            assert!(check_node_name(bad).unwrap_err().contains("not a ROS 2 node name"), "{bad}");
        }
    }
}
