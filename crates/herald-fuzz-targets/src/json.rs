//! Helpers the targets share: JSON round trips and exact number comparison.

use std::cmp::Ordering;
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Number;

/// Serializes `value`, parses the text back and asserts the result equals `value`; then
/// asserts that serializing the copy gives the same text (serialization is a fixpoint).
/// Returns the text.
pub(crate) fn assert_round_trip<T>(what: &str, value: &T) -> Vec<u8>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let text = serde_json::to_vec(value).unwrap_or_else(|e| panic!("{what} serializes: {e}"));
    let back: T = serde_json::from_slice(&text).unwrap_or_else(|e| {
        panic!(
            "{what} parses back from its own JSON: {e}\n{}",
            String::from_utf8_lossy(&text)
        )
    });
    assert_eq!(&back, value, "{what} round-trips through its JSON");
    let again = serde_json::to_vec(&back).expect("serializes again");
    assert_eq!(again, text, "{what} serializes to the same JSON twice");
    text
}

/// Compares two JSON numbers exactly when both are integers, else as `f64` (what JSON Schema
/// means by `minimum`/`maximum`).
pub(crate) fn cmp_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}
