"""ROS 2 message types as a ROS 2 node's DDS layer sees them (cyclonedds IDL classes)."""

from dataclasses import dataclass

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import int32, sequence, uint8, uint32


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32
    nanosec: uint32


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time
    frame_id: str


@dataclass
class String(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    data: str


@dataclass
class Image(IdlStruct, typename="sensor_msgs::msg::dds_::Image_"):
    header: Header
    height: uint32
    width: uint32
    encoding: str
    is_bigendian: uint8
    step: uint32
    data: sequence[uint8]
