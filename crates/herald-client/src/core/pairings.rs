//! Giving up on a pairing from the approving side (docs/devices.md, "Pairing"): a device that
//! typed the code but never saw the new device's key confirmation burns the request, so the
//! same code cannot be tried again and the new device (if still waiting) hears of it.

use herald_protocol::PairingId;

use super::Core;
use crate::{Error, Result};

impl Core {
    /// Marks pairing request `pairing_id` failed (`POST /keys/pairings/{id}/failed`) after
    /// this device answered it: it can no longer be confirmed or completed, and the new
    /// device's wait ends with `wrong_pairing_code`. Errors: `not_found` (malformed id, or
    /// not a request this account answered), `network`, relay codes.
    pub async fn fail_pairing(&self, pairing_id: &str) -> Result<()> {
        let session = self.inner.session()?;
        let id = PairingId::parse(pairing_id).ok_or_else(|| Error::NotFound(pairing_id.into()))?;
        session.http.fail_pairing(&id).await
    }
}
