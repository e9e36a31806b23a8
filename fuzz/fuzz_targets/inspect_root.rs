//! A root of several files, fuzz bytes or patched valid segments under names of every kind, inspected (`ringbus list`, `info`) and cleaned.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::whole_files::InspectInput;

fuzz_target!(|input: InspectInput| ringbus_fuzz::whole_files::run_inspect(&input));
