//! The recovery key the person has not yet confirmed saving (docs/desktop-lifecycle.md,
//! "Closing and reopening"). Creating an account or resetting it shows a new recovery key
//! once; the page that shows it ends with the window. So the core process keeps the key, in
//! memory only (never on disk, never logged), until the page reports it saved: a window closed
//! on "Save your recovery key" and opened again shows the same key again instead of losing it.
//! Quitting Herald before that still drops it (it was never written anywhere).

use std::sync::Mutex;

use herald_client::view::OnboardResult;
use zeroize::Zeroize;

/// The unconfirmed key, if any (the newest: a reset replaces an older one).
#[derive(Default)]
pub struct UnsavedRecoveryKey(Mutex<Option<Held>>);

/// A held result whose key is wiped when it is dropped.
struct Held(OnboardResult);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.recovery_key.zeroize();
    }
}

impl UnsavedRecoveryKey {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Held>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `result` until [`UnsavedRecoveryKey::saved`].
    pub fn hold(&self, result: &OnboardResult) {
        *self.lock() = Some(Held(result.clone()));
    }

    /// A copy of the held result.
    pub fn get(&self) -> Option<OnboardResult> {
        self.lock().as_ref().map(|held| held.0.clone())
    }

    /// The person confirmed saving it: wiped.
    pub fn saved(&self) {
        self.lock().take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(key: &str) -> OnboardResult {
        OnboardResult {
            account_id: "acc_1".into(),
            recovery_key: key.into(),
            safety_code: "12345".into(),
        }
    }

    #[test]
    fn the_key_is_kept_until_saved_and_a_newer_one_replaces_it() {
        let unsaved = UnsavedRecoveryKey::default();
        assert_eq!(unsaved.get(), None);
        unsaved.hold(&result("AAAA-BBBB"));
        assert_eq!(
            unsaved.get(),
            Some(result("AAAA-BBBB")),
            "shown again, as often as asked"
        );
        assert_eq!(unsaved.get(), Some(result("AAAA-BBBB")));
        unsaved.hold(&result("CCCC-DDDD"));
        assert_eq!(
            unsaved.get(),
            Some(result("CCCC-DDDD")),
            "a reset's key replaces it"
        );
        unsaved.saved();
        assert_eq!(unsaved.get(), None, "gone once saved");
    }
}
