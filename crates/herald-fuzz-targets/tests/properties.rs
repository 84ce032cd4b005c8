//! The fixed test account of the `envelope` target is sound (its envelopes open, its
//! re-signing matches docs/protocol.md), and each target's checks do catch what they claim.

use std::panic::{catch_unwind, AssertUnwindSafe};

use herald_crypto::{open, open_at, Error};
use herald_fuzz_targets::{content, envelope, jsonrpc, schema_form, Fixture};

const STORED_BEFORE: &str = "2026-02-01T00:00:00.000Z";
const STORED_AFTER: &str = "2026-04-01T00:00:00.000Z";

#[test]
fn fixture_envelopes_open_to_their_plaintext() {
    let f = Fixture::get();
    assert_eq!(
        f.envelopes.len(),
        4,
        "fixtures/envelopes.json holds four envelopes"
    );
    let secrets = f.secret_refs();
    for e in &f.envelopes {
        let (_, plaintext) =
            open_at(&e.envelope, &f.directory, &secrets, STORED_BEFORE).expect("opens");
        assert_eq!(plaintext.as_slice(), e.plaintext);
    }
    let revoked = &f.envelopes[3].envelope;
    assert_eq!(
        open(revoked, &f.directory, &secrets).err(),
        Some(Error::UnknownSender)
    );
    assert_eq!(
        open_at(revoked, &f.directory, &secrets, STORED_AFTER).err(),
        Some(Error::RevokedSender)
    );
}

#[test]
fn resigning_follows_the_documented_transcript() {
    // Ed25519 is deterministic: signing the untouched transcript again gives the same bytes.
    let f = Fixture::get();
    let mut signed = 0;
    for e in &f.envelopes {
        if let Some(seed) = e.signer_seed {
            let again = herald_fuzz_targets::resign(&e.envelope, &seed).expect("base64url parts");
            assert_eq!(again, e.envelope.signature);
            signed += 1;
        }
    }
    assert_eq!(signed, 3);
}

fn fails(target: fn(&[u8]), data: &[u8]) -> bool {
    catch_unwind(AssertUnwindSafe(|| target(data))).is_err()
}

#[test]
fn targets_accept_honest_inputs() {
    for (target, data) in [
        (content as fn(&[u8]), &br#"{"title":"Deploy?","actions":[{"id":"ok","label":"OK"}]}"#[..]),
        (content, b"{\"title\":\"t\",\"fields\":[{\"id\":\"n\",\"label\":\"N\",\"type\":\"integer\",\"required\":true}]}\0{\"values\":{\"n\":3}}"),
        (schema_form, b"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\",\"maximum\":5}},\"required\":[\"a\"]}\0{\"a\":5}"),
        (jsonrpc, br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_receipt","arguments":{"notificationId":"a b/c"}}}"#),
        (envelope, &[1, 0]),
        (envelope, &[2, 1, 0, 1, 0, 0, 1]),
    ] {
        assert!(!fails(target, data), "{}", String::from_utf8_lossy(data));
    }
}

#[test]
fn the_envelope_target_opens_each_fixture_untouched() {
    // Mode 1 with an empty program asserts the fixture opens: with the wrong directory it
    // would panic. Here every fixture index passes.
    for index in 0..4u8 {
        assert!(!fails(envelope, &[1, index]), "fixture {index}");
    }
}

#[test]
#[ignore = "writes fixtures/envelopes.json; run by hand after changing the fixture account"]
fn regenerate_envelope_fixtures() {
    let list = Fixture::get().seal_all();
    let text = serde_json::to_string_pretty(&list).expect("json") + "\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/envelopes.json");
    std::fs::write(path, text).expect("write fixtures");
}
