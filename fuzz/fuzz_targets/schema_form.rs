//! Fuzz target `schema_form`: the body and its properties are `herald_fuzz_targets::schema_form`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| herald_fuzz_targets::schema_form(data));
