//! Fuzz target `envelope`: the body and its properties are `herald_fuzz_targets::envelope`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| herald_fuzz_targets::envelope(data));
