//! `shm:TOPIC`: frames for the link are published to a ringbus topic, one frame per
//! message; messages other publishers put on the topic are taken as frames (the router's
//! own are recognised by their publisher and skipped, so nothing echoes).

use super::{drain, spawn, Context, POLL, QUEUE_FRAMES};
use crate::frame;
use crate::link::Sink;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

type Started = (Option<SocketAddr>, Vec<JoinHandle<()>>);

fn io_error(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

pub fn start(context: &Context, topic: &str) -> std::io::Result<Started> {
    let node = ringbus::Node::new("ringbus-route").map_err(io_error)?;
    let mut publisher = node.topic(topic).publisher().map_err(io_error)?;
    let mut subscriber = node.topic(topic).subscriber().map_err(io_error)?;
    let own = publisher.id();
    let (queue, frames) = std::sync::mpsc::sync_channel(QUEUE_FRAMES);
    let link = context.add_link(format!("topic {topic}"), Sink::Queue(queue));
    let writer_context = context.clone();
    let writing = spawn(format!("shm write {topic}"), move || {
        // A full pool (subscribers holding every chunk) loses the frame, like a full
        // socket buffer would.
        drain(&writer_context, frames, |bytes| {
            let _ = publisher.publish_copy(bytes);
            true
        });
    })?;
    let context = context.clone();
    let reading = spawn(format!("shm read {topic}"), move || {
        let link: Arc<_> = link;
        let dialect = context.router.dialect();
        while !context.stopped() {
            let sample = match subscriber.receive(Some(POLL)) {
                Ok(sample) => sample,
                Err(ringbus::ReceiveError::Timeout) => continue,
                Err(_) => {
                    std::thread::sleep(POLL);
                    continue;
                }
            };
            if sample.publisher() == own {
                continue;
            }
            match frame::whole(&sample, dialect) {
                Some(frame) => context.router.receive(&link, &frame),
                None => link.counters.garbage(sample.len() as u64),
            }
        }
        drop(node);
    })?;
    Ok((None, vec![writing, reading]))
}
