//! Tests of the command ring: plain atomics as slots (`model`), unit tests, and loom
//! models.

pub(crate) mod model {
    //! Slots made of plain atomics (`T = u64`), for unit tests and loom.
    use super::super::*;

    pub(crate) struct AtomicSlots {
        pub marks: Vec<AtomicU64>,
        pub values: Vec<AtomicU64>,
    }

    impl AtomicSlots {
        pub(crate) fn new(capacity: usize) -> AtomicSlots {
            AtomicSlots {
                marks: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
                values: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
            }
        }
    }

    impl Ring for AtomicSlots {
        fn capacity(&self) -> u64 {
            self.values.len() as u64
        }
        fn mark(&self, index: usize) -> &AtomicU64 {
            &self.marks[index]
        }
    }

    impl Slots<u64> for AtomicSlots {
        fn write(&self, index: usize, value: &u64) {
            self.values[index].store(*value, Ordering::Relaxed);
        }
        fn read(&self, index: usize) -> u64 {
            self.values[index].load(Ordering::Relaxed)
        }
    }
}

#[cfg(not(loom))]
mod unit {
    use super::super::*;
    use super::model::AtomicSlots;

    /// Positions with a claim word for MPSC producers (one producer per test: nothing
    /// here reads the word back, so tests may share it).
    fn positions<'a>(tail: &'a AtomicU64, head: &'a AtomicU64) -> Positions<'a> {
        static CLAIM: AtomicU64 = AtomicU64::new(NO_CLAIM);
        Positions { tail, head, claim: Some(&CLAIM) }
    }

    #[test]
    fn batches_fill_then_drain_and_the_head_is_read_only_when_the_cache_says_full() {
        for mode in [Mode::Spsc, Mode::Mpsc] {
            let (tail, head, slots) = (AtomicU64::new(0), AtomicU64::new(0), AtomicSlots::new(8));
            let p = positions(&tail, &head);
            let (mut producer, mut consumer) =
                (ProducerSide::new(mode, p).unwrap(), ConsumerSide::new(mode, p).unwrap());
            assert_eq!(producer.push(p, &slots, &[1, 2, 3, 4, 5]).unwrap(), 5);
            assert_eq!(producer.push(p, &slots, &[6, 7, 8, 9]).unwrap(), 3, "only 3 fit");
            assert_eq!(producer.head_reads, 1, "{mode:?}: once, when the cache said full");
            let mut out = [0; 6];
            assert_eq!(consumer.pop(p, &slots, &mut out).unwrap(), 6);
            assert_eq!(out, [1, 2, 3, 4, 5, 6]);
            assert_eq!(producer.push(p, &slots, &[9]).unwrap(), 1);
            assert_eq!(producer.head_reads, 2);
            for _ in 0..3 {
                producer.push(p, &slots, &[10]).unwrap();
            }
            assert_eq!(producer.head_reads, 2, "the cache covered them");
            let mut rest = [0; 8];
            assert_eq!(consumer.pop(p, &slots, &mut rest).unwrap(), 6);
            assert_eq!(rest[..6], [7, 8, 9, 10, 10, 10]);
            assert!(!consumer.has_data(p, &slots));
        }
    }

    #[test]
    fn a_batch_that_wraps_is_split_and_comes_back_in_order() {
        for mode in [Mode::Spsc, Mode::Mpsc] {
            let (tail, head, slots) = (AtomicU64::new(0), AtomicU64::new(0), AtomicSlots::new(4));
            let p = positions(&tail, &head);
            let (mut producer, mut consumer) =
                (ProducerSide::new(mode, p).unwrap(), ConsumerSide::new(mode, p).unwrap());
            let mut out = [0; 4];
            assert_eq!(producer.push(p, &slots, &[1, 2, 3]).unwrap(), 3);
            assert_eq!(consumer.pop(p, &slots, &mut out).unwrap(), 3);
            assert_eq!(producer.push(p, &slots, &[4, 5, 6, 7]).unwrap(), 4, "slots 3, 0, 1, 2");
            assert_eq!(consumer.pop(p, &slots, &mut out).unwrap(), 4);
            assert_eq!(out, [4, 5, 6, 7], "{mode:?}");
        }
    }

    /// MPSC: between a producer's load of the tail and its load of the head, other
    /// producers may claim and the consumer read past the tail it loaded. That head is
    /// true, not corrupt: the producer loads the tail again (found in CI: 3 producer
    /// processes, a head 64 past a stale tail reported as corrupt).
    #[test]
    fn an_mpsc_head_past_a_stale_tail_means_load_the_tail_again() {
        let (tail, head, slots) = (AtomicU64::new(4), AtomicU64::new(4), AtomicSlots::new(4));
        let p = positions(&tail, &head);
        let mut producer = ProducerSide { mode: Mode::Mpsc, tail: 0, cached_head: 0, cache: true, head_reads: 0 };
        assert_eq!(producer.room(p, 4, 2, 3), Ok(None), "tail 2 is stale: the head is at 4");
        assert_eq!(producer.cached_head, 4);
        assert_eq!(producer.push(p, &slots, &[1, 2, 3]).unwrap(), 3, "with the tail loaded again");
        head.store(9, Ordering::Relaxed); // past the real tail (7): corrupt
        producer.cache = false;
        assert_eq!(producer.push(p, &slots, &[4]).unwrap_err().what, "consumer position");
    }

    /// A producer that died between its claim and its marks: its positions are skipped
    /// once it is known dead, never while it lives; what it marked before dying is taken.
    #[test]
    fn positions_claimed_by_a_dead_producer_are_skipped_and_a_live_ones_never() {
        let (tail, head, slots) = (AtomicU64::new(0), AtomicU64::new(0), AtomicSlots::new(8));
        let (live, dead_claim) = (positions(&tail, &head), AtomicU64::new(NO_CLAIM));
        let mut producer = ProducerSide::new(Mode::Mpsc, live).unwrap();
        let mut consumer = ConsumerSide::new(Mode::Mpsc, live).unwrap();
        producer.push(live, &slots, &[1]).unwrap();
        // The dead producer: announced a claim of positions 1..4, marked only position 1.
        dead_claim.store(1, Ordering::Relaxed);
        tail.store(4, Ordering::Relaxed);
        slots.write(1, &50);
        slots.mark(1).store(2, Ordering::Relaxed);
        producer.push(live, &slots, &[2, 3]).unwrap();
        let mut out = [0; 8];
        assert_eq!(consumer.pop(live, &slots, &mut out).unwrap(), 2, "up to the first unmarked position");
        assert_eq!(out[..2], [1, 50]);
        assert!(consumer.stalled(live, &slots));
        let dead_alive = || dead_claim.load(Ordering::Relaxed);
        assert_eq!(consumer.skip_abandoned(live, &slots, dead_alive).unwrap(), 0, "alive: wait for it");
        assert_eq!(consumer.skip_abandoned(live, &slots, || NO_CLAIM).unwrap(), 2, "dead: positions 2 and 3");
        assert_eq!(consumer.pop(live, &slots, &mut out).unwrap(), 2);
        assert_eq!(out[..2], [2, 3]);
        assert!(!consumer.stalled(live, &slots));
        assert_eq!(consumer.skip_abandoned(live, &slots, || NO_CLAIM).unwrap(), 0, "nothing claimed");
    }

    #[test]
    fn without_the_cache_every_push_reads_the_head() {
        let (tail, head, slots) = (AtomicU64::new(0), AtomicU64::new(0), AtomicSlots::new(8));
        let p = positions(&tail, &head);
        let mut producer = ProducerSide::new(Mode::Spsc, p).unwrap();
        producer.cache = false;
        for i in 0..5 {
            producer.push(p, &slots, &[i]).unwrap();
        }
        assert_eq!(producer.head_reads, 5);
    }

    #[test]
    fn impossible_positions_are_refused_and_nothing_is_overwritten() {
        let (tail, head, slots) = (AtomicU64::new(0), AtomicU64::new(0), AtomicSlots::new(4));
        let p = positions(&tail, &head);
        let mut producer = ProducerSide::new(Mode::Spsc, p).unwrap();
        producer.push(p, &slots, &[1, 2, 3, 4]).unwrap();
        head.store(9, Ordering::Relaxed); // beyond the tail: would free slots never read
        let err = producer.push(p, &slots, &[5]).unwrap_err();
        assert_eq!((err.what, err.found, err.low, err.high), ("consumer position", 9, 0, 4));
        assert_eq!((0..4).map(|i| slots.read(i)).collect::<Vec<_>>(), [1, 2, 3, 4]);
        let mut consumer = ConsumerSide::new(Mode::Spsc, positions(&tail, &AtomicU64::new(0))).unwrap();
        tail.store(100, Ordering::Relaxed); // more than a ring ahead
        let mut out = [0; 1];
        assert_eq!(
            consumer.pop(positions(&tail, &AtomicU64::new(0)), &slots, &mut out).unwrap_err().what,
            "producer position"
        );
    }

    /// Found by fuzzing: a consumer opening a queue whose head a peer set to `u64::MAX`
    /// overflowed computing `head + capacity` on its first pop. Positions past
    /// `MAX_POSITION` are refused where they are read, so no sum of a position overflows.
    #[test]
    fn positions_near_the_end_of_u64_are_refused_where_they_are_read() {
        let (tail, head, slots) = (AtomicU64::new(0), AtomicU64::new(u64::MAX), AtomicSlots::new(4));
        let p = positions(&tail, &head);
        assert_eq!(ConsumerSide::new(Mode::Spsc, p).unwrap_err().what, "consumer position");
        assert_eq!(ProducerSide::new(Mode::Mpsc, p).unwrap_err().what, "consumer position");
        assert_eq!(p.head_now().unwrap_err().found, u64::MAX);
        head.store(0, Ordering::Relaxed);
        tail.store(MAX_POSITION + 1, Ordering::Relaxed);
        assert_eq!(ProducerSide::new(Mode::Spsc, p).unwrap_err().what, "producer position");
        tail.store(0, Ordering::Relaxed);
        let mut producer = ProducerSide::new(Mode::Mpsc, p).unwrap();
        tail.store(u64::MAX, Ordering::Relaxed);
        assert_eq!(producer.push(p, &slots, &[1]).unwrap_err().what, "producer position");
    }
}

#[cfg(loom)]
mod loom_models {
    use super::super::*;
    use super::model::AtomicSlots;
    use loom::sync::Arc;

    struct Ring {
        tail: AtomicU64,
        head: AtomicU64,
        /// MPSC producers' claim words, one each.
        claims: [AtomicU64; 2],
        slots: AtomicSlots,
    }

    fn ring(capacity: usize) -> Arc<Ring> {
        Arc::new(Ring {
            tail: AtomicU64::new(0),
            head: AtomicU64::new(0),
            claims: [AtomicU64::new(NO_CLAIM), AtomicU64::new(NO_CLAIM)],
            slots: AtomicSlots::new(capacity),
        })
    }

    fn positions(r: &Ring) -> Positions<'_> {
        Positions { tail: &r.tail, head: &r.head, claim: None }
    }

    /// The positions as MPSC producer `p` sees them.
    fn producer_positions(r: &Ring, p: usize) -> Positions<'_> {
        Positions { claim: Some(&r.claims[p]), ..positions(r) }
    }

    /// The lowest claim of the producers `alive` says live.
    fn live_floor(r: &Ring, alive: [bool; 2]) -> u64 {
        (0..2).filter(|&p| alive[p]).map(|p| r.claims[p].load(Ordering::Acquire)).min().unwrap_or(NO_CLAIM)
    }

    fn push_all(r: &Ring, producer: &mut ProducerSide, items: &[u64]) {
        push_all_as(r, positions(r), producer, items);
    }

    fn push_all_as(r: &Ring, positions: Positions<'_>, producer: &mut ProducerSide, items: &[u64]) {
        let mut done = 0;
        while done < items.len() {
            done += producer.push(positions, &r.slots, &items[done..]).unwrap();
            loom::thread::yield_now();
        }
    }

    fn pop_n(r: &Ring, consumer: &mut ConsumerSide, n: usize) -> Vec<u64> {
        let mut got = Vec::new();
        while got.len() < n {
            let mut out = [0; 2];
            let k = consumer.pop(positions(r), &r.slots, &mut out).unwrap();
            got.extend_from_slice(&out[..k]);
            loom::thread::yield_now();
        }
        got
    }

    /// SPSC with both caches on, through a wrap of a 2-slot ring: every command arrives
    /// once, in order, intact; no slot is overwritten before it is read.
    #[test]
    fn spsc_with_cached_positions_delivers_in_order() {
        loom::model(|| {
            let r = ring(2);
            let r2 = r.clone();
            let producer = loom::thread::spawn(move || {
                let mut side = ProducerSide::new(Mode::Spsc, positions(&r2)).unwrap();
                push_all(&r2, &mut side, &[10, 11, 12]);
            });
            let mut side = ConsumerSide::new(Mode::Spsc, positions(&r)).unwrap();
            assert_eq!(pop_n(&r, &mut side, 3), [10, 11, 12]);
            producer.join().unwrap();
        });
    }

    /// MPSC: two producers claim slots of a 2-slot ring (one wraps); the consumer gets
    /// each command once, and each producer's in its order.
    #[test]
    fn mpsc_claims_never_collide() {
        mpsc_model(true);
    }

    /// The same with the producers' cache off: every push loads the head, so a producer
    /// can find the head past the tail it loaded (others claimed, the consumer read on) —
    /// which must not be taken for corruption.
    #[test]
    fn mpsc_without_the_cache_never_mistakes_a_moving_tail_for_corruption() {
        mpsc_model(false);
    }

    fn mpsc_model(cache: bool) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(move || {
            let r = ring(2);
            let producers: Vec<_> = [[1u64, 2], [7, 8]]
                .into_iter()
                .map(|items| {
                    let r = r.clone();
                    loom::thread::spawn(move || {
                        let p = (items[0] > 5) as usize;
                        let mut side = ProducerSide::new(Mode::Mpsc, producer_positions(&r, p)).unwrap();
                        side.cache = cache;
                        push_all_as(&r, producer_positions(&r, p), &mut side, &items);
                    })
                })
                .collect();
            let mut side = ConsumerSide::new(Mode::Mpsc, positions(&r)).unwrap();
            let got = pop_n(&r, &mut side, 4);
            for p in producers {
                p.join().unwrap();
            }
            let mine: Vec<u64> = got.iter().copied().filter(|v| *v < 5).collect();
            let theirs: Vec<u64> = got.iter().copied().filter(|v| *v > 5).collect();
            assert_eq!((mine, theirs), (vec![1, 2], vec![7, 8]));
        });
    }

    /// Two live producers and a consumer that looks for abandoned claims after every
    /// empty pop: it never skips a live producer's command, however the claim, the
    /// announcement and the marks interleave with its look (the fences' pairing).
    #[test]
    fn a_live_producers_claim_is_never_skipped() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let r = ring(4);
            let producers: Vec<_> = [[1u64], [7]]
                .into_iter()
                .enumerate()
                .map(|(p, items)| {
                    let r = r.clone();
                    loom::thread::spawn(move || {
                        let mut side = ProducerSide::new(Mode::Mpsc, producer_positions(&r, p)).unwrap();
                        push_all_as(&r, producer_positions(&r, p), &mut side, &items);
                    })
                })
                .collect();
            let mut side = ConsumerSide::new(Mode::Mpsc, positions(&r)).unwrap();
            let mut got = Vec::new();
            while got.len() < 2 {
                let mut out = [0; 2];
                let k = side.pop(positions(&r), &r.slots, &mut out).unwrap();
                got.extend_from_slice(&out[..k]);
                if k == 0 {
                    let skipped = side.skip_abandoned(positions(&r), &r.slots, || live_floor(&r, [true, true]));
                    assert_eq!(skipped, Ok(0), "a live producer's claim was skipped");
                }
                loom::thread::yield_now();
            }
            for p in producers {
                p.join().unwrap();
            }
            got.sort();
            assert_eq!(got, [1, 7]);
        });
    }

    /// A producer dies between its claim and its mark (its thread stops there): the
    /// consumer skips exactly its position and gets every command of the live producer.
    #[test]
    fn a_dead_producers_claim_is_skipped_and_nothing_else() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let r = ring(4);
            let r2 = r.clone();
            let live = loom::thread::spawn(move || {
                let mut side = ProducerSide::new(Mode::Mpsc, producer_positions(&r2, 0)).unwrap();
                push_all_as(&r2, producer_positions(&r2, 0), &mut side, &[1, 2]);
            });
            let r3 = r.clone();
            let dead = loom::thread::spawn(move || {
                // `claim` alone: announced and claimed, then killed before any mark.
                let mut side = ProducerSide::new(Mode::Mpsc, producer_positions(&r3, 1)).unwrap();
                assert_eq!(side.claim(producer_positions(&r3, 1), 4, 1).unwrap().1, 1);
            });
            let mut side = ConsumerSide::new(Mode::Mpsc, positions(&r)).unwrap();
            let (mut got, mut skipped) = (Vec::new(), 0);
            while got.len() < 2 {
                let mut out = [0; 2];
                let k = side.pop(positions(&r), &r.slots, &mut out).unwrap();
                got.extend_from_slice(&out[..k]);
                if k == 0 {
                    skipped += side.skip_abandoned(positions(&r), &r.slots, || live_floor(&r, [true, false])).unwrap();
                }
                loom::thread::yield_now();
            }
            live.join().unwrap();
            dead.join().unwrap();
            skipped += side.skip_abandoned(positions(&r), &r.slots, || live_floor(&r, [true, false])).unwrap();
            assert_eq!((got, skipped), (vec![1, 2], 1));
        });
    }
}
