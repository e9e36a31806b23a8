//! One file of fuzz bytes (under a segment header that may be valid) of each kind, opened as that kind is: the header checks every open makes, and what each kind checks right behind its header.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ringbus_fuzz::whole_files::HeaderInput;

fuzz_target!(|input: HeaderInput| ringbus_fuzz::whole_files::run_header(&input));
