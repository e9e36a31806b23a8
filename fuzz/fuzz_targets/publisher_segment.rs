//! A live publisher segment patched in place (header and geometry, published count, log entries, chunk words, read positions, payloads), then read by subscribers taking from it, inspection and cleaning.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::pubsub::PubsubInput;

fuzz_target!(|input: PubsubInput| ringbus_fuzz::pubsub::run(&input, ringbus_fuzz::pubsub::Patched::Publisher));
