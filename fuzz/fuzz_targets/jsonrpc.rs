//! Fuzz target `jsonrpc`: the body and its properties are `herald_fuzz_targets::jsonrpc`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| herald_fuzz_targets::jsonrpc(data));
