//! The `after` / `limit` query of the paged feeds (`GET /messages`, `GET /notifications`;
//! docs/protocol.md, docs/agents.md).

use herald_protocol::Revision;

use crate::error::ApiError;

/// Parses `after=<revision>&limit=<n>` from a raw query string.
///
/// Returns `(after, limit)`: `after` defaults to revision 0 (from the start), `limit` to
/// `default`; `limit` must lie in `1..=max`. Unknown parameters are ignored.
///
/// # Errors
/// `invalid_request` naming the field (`after` or `limit`) when a value does not parse,
/// `after` is past `i64::MAX` (the largest revision the store can hold) or `limit` is out of
/// range.
pub(super) fn page_query(
    raw: Option<&str>,
    default: u32,
    max: u32,
) -> Result<(Revision, u32), ApiError> {
    let mut after = Revision(0);
    let mut limit = default;
    for pair in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        match name {
            "after" => {
                // Revisions are SQLite integers: none is past i64::MAX, and a cursor that is
                // is refused rather than read as a negative number or saturated.
                after = value
                    .parse::<u64>()
                    .ok()
                    .filter(|a| i64::try_from(*a).is_ok())
                    .map(Revision)
                    .ok_or_else(|| {
                        ApiError::invalid(
                            "after",
                            "after must be a revision (a whole number from 0 to 2^63 - 1).",
                        )
                    })?
            }
            "limit" => {
                limit = value
                    .parse()
                    .ok()
                    .filter(|l| (1..=max).contains(l))
                    .ok_or_else(|| {
                        ApiError::invalid("limit", format!("limit must be 1 to {max}."))
                    })?
            }
            _ => {}
        }
    }
    Ok((after, limit))
}
