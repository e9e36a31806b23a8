//! Batched UDP sends: while a UDP endpoint's thread routes a batch of received datagrams,
//! the frames it forwards to UDP links wait in this thread's outbox and leave together,
//! one `sendmmsg` per socket, instead of one `sendto` each.
//!
//! Why: through loopback, a `sendto` is the whole delivery — the receiver's socket queue,
//! its wake-up — so a router that sends datagram by datagram wakes its peer once per frame;
//! a batch wakes it once. Measured with `ringbus bench route` (see BENCHMARKS.md).
//!
//! Frames for the same peer in one batch also share datagrams, up to [`PACKED_DATAGRAM`]
//! bytes, in their order: through loopback most of the cost of a frame is the kernel's
//! per-datagram work on both sides, so a router that received 4 frames in one `recvmmsg`
//! sends them to each peer as 1 datagram, not 4. MAVLink over UDP carries any number of
//! whole frames per datagram (autopilots pack their own streams the same way; every
//! parser reads frames from the datagram as from a stream); a frame never spans two.
//! Nothing waits to be packed: only what one batch routes is.
//!
//! Removal stays exact: an outbox entry holds its link (`Arc`), so an endpoint's removal,
//! which waits until nobody holds its links, waits for the flush; the flush sends nothing
//! to a link closed meanwhile. Outside a batch (TCP and topic threads) UDP frames are sent
//! at once, as before.

use crate::link::Link;
use nix::sys::socket::{sendmmsg, ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage};
use std::cell::RefCell;
use std::io::IoSlice;
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::Arc;

/// Datagrams sent by one `sendmmsg` at most (and received by one `recvmmsg`).
pub const BATCH: usize = 32;

/// Bytes of frames packed into one datagram at most: an Ethernet MTU (1500) less the IPv4
/// and UDP headers, so a packed datagram is never fragmented on a real link.
pub const PACKED_DATAGRAM: usize = 1472;

/// One datagram to be sent: whole frames for one link, in order.
struct Entry {
    link: Arc<Link>,
    socket: Arc<UdpSocket>,
    peer: SocketAddr,
    bytes: Vec<u8>,
    /// The length of each frame in `bytes` (counted one by one when sent).
    frames: Vec<usize>,
}

thread_local! {
    /// `Some` while this thread routes a batch.
    static OUTBOX: RefCell<Option<Vec<Entry>>> = const { RefCell::new(None) };
}

/// Runs `route_batch` with this thread's outbox open, then sends what it collected.
pub fn batch<R>(route_batch: impl FnOnce() -> R) -> R {
    OUTBOX.with(|o| *o.borrow_mut() = Some(Vec::with_capacity(BATCH)));
    let result = route_batch();
    let entries = OUTBOX.with(|o| o.borrow_mut().take()).unwrap_or_default();
    flush(entries);
    result
}

/// Keeps a UDP frame for the end of the batch; hands it back if no batch is open.
pub(crate) fn defer(link: &Arc<Link>, socket: &Arc<UdpSocket>, peer: SocketAddr, bytes: &[u8]) -> bool {
    OUTBOX.with(|o| match o.borrow_mut().as_mut() {
        Some(entries) => {
            // The link's latest datagram, if this frame still fits: its earlier frames are
            // all in it or before it, so the order per link is kept.
            let latest = entries.iter_mut().rev().find(|e| Arc::ptr_eq(&e.link, link));
            match latest {
                Some(e) if e.bytes.len() + bytes.len() <= PACKED_DATAGRAM => {
                    e.bytes.extend_from_slice(bytes);
                    e.frames.push(bytes.len());
                }
                _ => entries.push(Entry {
                    link: link.clone(),
                    socket: socket.clone(),
                    peer,
                    bytes: bytes.to_vec(),
                    frames: vec![bytes.len()],
                }),
            }
            true
        }
        None => false,
    })
}

/// Sends the entries, consecutive ones on the same socket together.
fn flush(mut entries: Vec<Entry>) {
    entries.retain(|e| !e.link.is_closed());
    let mut rest = &entries[..];
    while let Some(first) = rest.first() {
        let same = rest.iter().take(BATCH).take_while(|e| Arc::ptr_eq(&e.socket, &first.socket)).count();
        let (group, tail) = rest.split_at(same);
        send_group(group);
        rest = tail;
    }
}

/// One `sendmmsg` for `group` (all on one socket); what it did not take is sent one by one,
/// so every frame is counted as sent or dropped.
fn send_group(group: &[Entry]) {
    let payloads: Vec<&[u8]> = group.iter().map(|e| &e.bytes[..]).collect();
    let peers: Vec<SocketAddr> = group.iter().map(|e| e.peer).collect();
    let sent = send_datagrams(&group[0].socket, &payloads, &peers).unwrap_or(0);
    for (i, entry) in group.iter().enumerate() {
        let ok = i < sent || entry.socket.send_to(&entry.bytes, entry.peer).is_ok();
        for &len in &entry.frames {
            entry.link.count_delivery(len, ok);
        }
    }
}

/// One `sendmmsg` on `socket`: datagram `i` is `payloads[i]`, to `peers[i]`. Returns how
/// many the kernel took (it stops at the first it refuses).
pub fn send_datagrams(socket: &UdpSocket, payloads: &[&[u8]], peers: &[SocketAddr]) -> std::io::Result<usize> {
    assert_eq!(payloads.len(), peers.len(), "one peer per datagram");
    let slices: Vec<[IoSlice<'_>; 1]> = payloads.iter().map(|p| [IoSlice::new(p)]).collect();
    let addresses: Vec<Option<SockaddrStorage>> = peers.iter().map(|&p| Some(SockaddrStorage::from(p))).collect();
    let mut headers = MultiHeaders::<SockaddrStorage>::preallocate(slices.len(), None);
    let no_control: [ControlMessage<'_>; 0] = [];
    let sent = sendmmsg(socket.as_raw_fd(), &mut headers, &slices, &addresses, no_control, MsgFlags::empty())
        .map_err(std::io::Error::from)?;
    Ok(sent.count())
}
