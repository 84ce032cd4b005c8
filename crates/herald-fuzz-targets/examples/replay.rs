//! Runs one target over files: `cargo run -p herald-fuzz-targets --example replay -- TARGET FILE...`
//! (reproduces a crash that cargo-fuzz found, with an ordinary backtrace).

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().expect("usage: replay TARGET FILE...");
    let (_, target) = herald_fuzz_targets::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no target {name}"));
    for file in args {
        let data = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        target(&data);
        println!("{file}: ok");
    }
}
