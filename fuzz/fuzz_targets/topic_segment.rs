//! A live topic segment patched in place (configuration, names, wake words, reliable set, publisher and subscriber slots), then read by new subscribers and publishers, takes, loans, inspection and cleaning.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::pubsub::PubsubInput;

fuzz_target!(|input: PubsubInput| ringbus_fuzz::pubsub::run(&input, ringbus_fuzz::pubsub::Patched::Topic));
