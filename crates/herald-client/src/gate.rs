//! Exactly one answer per request from this device, whichever surface answers first.
//!
//! A request can be answered from the window and from its OS notification at about the same
//! moment (or twice from a notification server that repeats a press). Both go through
//! [`AnswerGate::answer`]: answers to the same message run one at a time, and each first looks
//! at the cached record. The first one seals and posts; every later one finds the request no
//! longer pending and fails with `already_answered` (or `request_expired` /
//! `request_cancelled`) **without sealing or posting anything**. A first attempt that fails
//! (network, validation) leaves the request pending, so the next attempt posts normally.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::view::{AnswerInput, MessageStatus, MessageView, UiError, UiErrorCode};
use crate::Core;

use crate::answers::picks::PickedFiles;

/// Serializes answers per message id. Cheap to clone; one per app.
#[derive(Clone, Default)]
pub struct AnswerGate {
    locks: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
}

impl AnswerGate {
    /// Answers `id` with `input` unless it was answered (or closed) already.
    /// Errors: the core's (see `Core::answer`), and `already_answered`, `request_expired`,
    /// `request_cancelled` when the cached request is no longer pending — nothing is posted then.
    pub async fn answer(
        &self,
        core: &Core,
        id: &str,
        input: AnswerInput,
    ) -> Result<MessageView, UiError> {
        let lock = self.lock_for(id);
        let result = {
            let _turn = lock.lock().await;
            let current = core.message(id).await.map_err(|e| UiError::from(&e))?;
            match closed(&current) {
                Some(error) => Err(error),
                None => core.answer(id, input).await.map_err(|e| UiError::from(&e)),
            }
        };
        drop(lock);
        self.forget_idle(id);
        result
    }

    /// [`answer`](Self::answer) from the window, whose `input.files` holds pick ids from
    /// [`PickedFiles::add`]: the answer takes them ([`PickedFiles::take_in`]; a value that is
    /// not a pick id, or a pick another answer holds, is refused with `unknown_pick` before
    /// anything is posted). A successful answer uses them up; a failed one gives them back.
    /// Errors: `unknown_pick`, and those of `answer`.
    pub async fn answer_picked(
        &self,
        core: &Core,
        picks: &PickedFiles,
        id: &str,
        mut input: AnswerInput,
    ) -> Result<MessageView, UiError> {
        let taken = picks.take_in(&mut input).map_err(|e| UiError::from(&e))?;
        let result = self.answer(core, id, input).await;
        if result.is_err() {
            picks.restore(taken);
        }
        result
    }

    fn lock_for(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
        locks.entry(id.to_owned()).or_default().clone()
    }

    /// Drops the message's lock once nobody holds or waits for it (the map stays small).
    fn forget_idle(&self, id: &str) {
        let mut locks = self.locks.lock().unwrap_or_else(|p| p.into_inner());
        if locks.get(id).is_some_and(|l| Arc::strong_count(l) == 1) {
            locks.remove(id);
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.locks.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// The error a request that is no longer answerable gets, or `None` while it is pending.
pub fn closed(view: &MessageView) -> Option<UiError> {
    if view.answer.is_some() {
        return Some(already_answered());
    }
    match view.summary.status {
        MessageStatus::Pending => None,
        MessageStatus::Answered => Some(already_answered()),
        MessageStatus::Expired => Some(UiError::new(
            UiErrorCode::RequestExpired,
            "This request expired before it was answered.",
        )),
        MessageStatus::Cancelled => Some(UiError::new(
            UiErrorCode::RequestCancelled,
            "The sender withdrew this request.",
        )),
        MessageStatus::Delivered => Some(UiError::new(
            UiErrorCode::NotARequest,
            "This message does not ask for an answer.",
        )),
    }
}

fn already_answered() -> UiError {
    UiError::new(
        UiErrorCode::AlreadyAnswered,
        "This request was already answered.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn locks_are_per_message_and_forgotten_when_idle() {
        let gate = AnswerGate::default();
        let a = gate.lock_for("msg_a");
        let again = gate.lock_for("msg_a");
        let b = gate.lock_for("msg_b");
        assert!(Arc::ptr_eq(&a, &again), "one lock per message");
        assert!(!Arc::ptr_eq(&a, &b), "messages do not wait for each other");
        let held = a.lock().await;
        assert!(again.try_lock().is_err(), "a second answer waits its turn");
        drop(held);
        drop((a, again, b));
        gate.forget_idle("msg_a");
        gate.forget_idle("msg_b");
        assert_eq!(gate.tracked(), 0, "idle locks are dropped");
    }

    /// A real relay and device core: two answers racing for one request (the window and a
    /// notification button) post once; the loser is told `already_answered` by the gate itself
    /// (not by the relay), and the agent receives the winner's answer.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn racing_answers_post_once() {
        use crate::agent::{AgentClient, SendOptions, WaitOutcome};
        use crate::CoreConfig;

        let relay_dir = tempfile::tempdir().expect("temp dir");
        let device_dir = tempfile::tempdir().expect("temp dir");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("port");
        let relay = herald_relay::spawn(
            herald_relay::RelayConfig {
                data_dir: relay_dir.path().to_path_buf(),
                public_url: None,
                ..Default::default()
            },
            listener,
        )
        .await
        .expect("relay starts");
        let core = Core::open(CoreConfig {
            data_dir: device_dir.path().to_path_buf(),
            device_name: "Test laptop".into(),
            platform: "linux".into(),
            use_keychain: false,
        })
        .expect("core opens");
        core.create_account(&relay.url()).await.expect("account");
        let connection = core
            .create_connection("ci-agent", None)
            .await
            .expect("connection");
        let agent = AgentClient::new(
            &connection.relay_url,
            herald_crypto::ConnectionToken::parse(&connection.token).expect("token"),
        )
        .expect("agent");
        let content = serde_json::from_value(serde_json::json!({
            "title": "Rotate the key?",
            "actions": [
                {"id": "rotate", "label": "Rotate", "values": {}},
                {"id": "later", "label": "Later", "values": {}}
            ]
        }))
        .expect("content");
        let sent = agent
            .send(&content, SendOptions::default())
            .await
            .expect("sent");
        let id = sent.id.as_str().to_owned();
        let mut events = core.subscribe();
        core.start_sync().expect("sync");
        tokio::time::timeout(std::time::Duration::from_secs(20), async {
            while core.message(&id).await.is_err() {
                let _ = events.recv().await;
            }
        })
        .await
        .expect("the request reached the device");

        let gate = AnswerGate::default();
        let press = |action: &str| AnswerInput {
            action_id: Some(action.to_owned()),
            values_json: None,
            files: Default::default(),
        };
        let (a, b) = tokio::join!(
            gate.answer(&core, &id, press("rotate")),
            gate.answer(&core, &id, press("later")),
        );
        let (winner, loser) = match (a, b) {
            (Ok(view), Err(error)) | (Err(error), Ok(view)) => (view, error),
            (a, b) => panic!("exactly one answer wins: {a:?} / {b:?}"),
        };
        assert_eq!(winner.summary.status, MessageStatus::Answered);
        assert!(
            loser.is(UiErrorCode::AlreadyAnswered),
            "the loser is told: {loser:?}"
        );
        assert_eq!(
            loser.message, "This request was already answered.",
            "by the gate, before anything was sealed or posted (the relay's refusal reads \
             differently): {loser:?}"
        );
        let third = gate.answer(&core, &id, press("rotate")).await;
        assert_eq!(
            third.err().map(|e| e.code),
            Some(UiErrorCode::AlreadyAnswered.as_str().to_owned()),
            "a repeated press is refused too"
        );
        assert_eq!(gate.tracked(), 0, "no lock left behind");

        let outcome = agent
            .wait(&sent.id, Some(std::time::Duration::from_secs(20)))
            .await
            .expect("the agent's wait");
        let WaitOutcome::Answered(answer) = outcome else {
            panic!("the agent got an answer: {outcome:?}");
        };
        assert_eq!(
            answer.action_id,
            winner.answer.and_then(|a| a.action_id),
            "the agent got the winner's answer"
        );
        core.stop_sync();
    }
}
