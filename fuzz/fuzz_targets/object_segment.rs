//! A live latch or semaphore patched in place, then used through open handles and handles that open (and validate) it anew, inspected and cleaned.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::objects::ObjectInput;

fuzz_target!(|input: ObjectInput| ringbus_fuzz::objects::run(&input));
