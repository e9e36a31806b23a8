//! A live command queue patched in place (header, configuration, positions, doorbells, producer claim words, slot marks), then pushed to, popped from and joined by new producers and consumers, inspected and cleaned.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::queue::QueueInput;

fuzz_target!(|input: QueueInput| ringbus_fuzz::queue::run(&input));
