//! A live node's record patched in place (and a copy left as a dead node's), then inspected, cleaned and swept by a node registering.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::objects::NodeInput;

fuzz_target!(|input: NodeInput| ringbus_fuzz::objects::run_node(&input));
