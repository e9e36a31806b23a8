//! Messages of bytes handed from one thread to another, bounded in bytes and in count, in
//! buffers that go back to the sender for reuse (copying a large message into a buffer
//! already used touches memory already mapped, instead of faulting in fresh pages every
//! time). `record` reads on one thread and compresses on another; `replay` reads ahead on
//! one and publishes on time on the other.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TryRecvError};
use std::sync::Arc;
use std::time::Duration;

/// Buffers kept for reuse, each of at most [`MAX_SPARE_BYTES`]: at most 128 MiB kept.
const SPARE_BUFFERS: usize = 32;
const MAX_SPARE_BYTES: usize = 4 << 20;
/// How often a sender waiting for room looks again.
const WAIT_STEP: Duration = Duration::from_micros(200);

/// The receiving thread is gone.
#[derive(Debug)]
pub struct Closed;

/// The sending side.
pub struct Sender<M> {
    items: SyncSender<(M, Vec<u8>)>,
    spare: mpsc::Receiver<Vec<u8>>,
    in_flight_bytes: Arc<AtomicU64>,
    max_bytes: u64,
}

/// The receiving side.
pub struct Receiver<M> {
    items: mpsc::Receiver<(M, Vec<u8>)>,
    give_back: SyncSender<Vec<u8>>,
    in_flight_bytes: Arc<AtomicU64>,
}

/// A hand-over of at most `max_bytes` of payload and `max_items` messages in flight (a
/// message larger than `max_bytes` goes alone).
pub fn channel<M>(max_bytes: u64, max_items: usize) -> (Sender<M>, Receiver<M>) {
    let (items, received) = mpsc::sync_channel(max_items);
    let (give_back, spare) = mpsc::sync_channel(SPARE_BUFFERS);
    let in_flight_bytes = Arc::new(AtomicU64::new(0));
    let sender = Sender { items, spare, in_flight_bytes: in_flight_bytes.clone(), max_bytes };
    (sender, Receiver { items: received, give_back, in_flight_bytes })
}

impl<M> Sender<M> {
    /// Sends `meta` and a copy of `bytes`, first waiting while too much is in flight.
    pub fn send(&self, meta: M, bytes: &[u8]) -> Result<(), Closed> {
        let mut buffer = None;
        while self.too_much_with(bytes.len()) {
            // The receiver gives buffers back as it finishes with them; once it is gone
            // (its end of the spare buffers' channel with it), nothing will come back.
            match self.spare.try_recv() {
                Ok(b) => buffer = Some(b),
                Err(TryRecvError::Disconnected) => return Err(Closed),
                Err(TryRecvError::Empty) => std::thread::sleep(WAIT_STEP),
            }
        }
        let mut buffer = buffer.or_else(|| self.spare.try_recv().ok()).unwrap_or_default();
        buffer.clear();
        buffer.extend_from_slice(bytes);
        self.in_flight_bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.items.send((meta, buffer)).map_err(|_| Closed)
    }

    /// Whether `len` more bytes would go over the limit (never when nothing is in flight).
    fn too_much_with(&self, len: usize) -> bool {
        let now = self.in_flight_bytes.load(Ordering::Relaxed);
        now > 0 && now + len as u64 > self.max_bytes
    }
}

impl<M> Receiver<M> {
    /// The next message, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<(M, Vec<u8>), RecvTimeoutError> {
        self.items.recv_timeout(timeout)
    }

    /// Gives a message's buffer back once done with it.
    pub fn done(&self, buffer: Vec<u8>) {
        self.in_flight_bytes.fetch_sub(buffer.len() as u64, Ordering::Relaxed);
        if buffer.capacity() <= MAX_SPARE_BYTES {
            // Dropped instead if enough are spare already, or the sender is gone.
            let _ = self.give_back.try_send(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_in_order_within_the_byte_limit() {
        let (sender, receiver) = channel::<u32>(10, 100);
        std::thread::scope(|s| {
            s.spawn(move || {
                for i in 0..100u32 {
                    sender.send(i, &[i as u8; 4]).unwrap();
                }
            });
            for i in 0..100u32 {
                let (meta, bytes) = receiver.recv_timeout(Duration::from_secs(10)).unwrap();
                assert_eq!((meta, &bytes[..]), (i, &[i as u8; 4][..]));
                assert!(
                    receiver.in_flight_bytes.load(Ordering::Relaxed) <= 12,
                    "at most 10 bytes, or one message more"
                );
                receiver.done(bytes);
            }
        });
    }

    #[test]
    fn a_sender_waiting_for_room_stops_when_the_receiver_is_gone() {
        let (sender, receiver) = channel::<()>(4, 100);
        sender.send((), &[0; 4]).unwrap(); // the first always goes, whatever its size
        drop(receiver);
        assert!(sender.send((), &[0; 4]).is_err());
    }
}
