//! Reading notifications aloud with the system's speech service (the `tts` crate: speech
//! dispatcher on Linux, AVFoundation on macOS, WinRT on Windows).
//!
//! "Spoken" means the speech service reported the utterance **finished**; a queued utterance
//! that never finishes (no audio output, a stuck service) is not spoken. One thread owns the
//! engine and speaks one text at a time. The engine is opened on first use and again after a
//! failure, so starting speech-dispatcher later makes speech work without a restart.
//! [`Speaker::status`] tells the UI whether speech worked the last time it was tried; built
//! without the `speech` feature, speech is always unavailable, and says so.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::oneshot;

/// What became of one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpeechOutcome {
    /// The speech service read it to the end.
    Spoken,
    /// It was not spoken; the reason, for the person (never the text itself).
    NotSpoken(String),
}

/// Whether speech works here, as last tried (for Settings and the inbox).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SpeechStatus {
    /// False once an attempt failed, until one succeeds; true before the first attempt when
    /// the engine is built in.
    pub available: bool,
    /// Why not, when unavailable.
    pub reason: Option<String>,
}

struct Job {
    text: String,
    done: oneshot::Sender<SpeechOutcome>,
}

/// The handle to the speech thread. Cheap to clone; managed as Tauri state.
#[derive(Clone)]
pub struct Speaker {
    jobs: Option<std::sync::mpsc::Sender<Job>>,
    status: Arc<Mutex<SpeechStatus>>,
}

impl Speaker {
    /// Starts the speech thread (the engine itself opens on the first text).
    pub fn start() -> Speaker {
        #[cfg(feature = "speech")]
        {
            let status = Arc::new(Mutex::new(SpeechStatus {
                available: true,
                reason: None,
            }));
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let thread_status = status.clone();
            let spawned = std::thread::Builder::new()
                .name("speech".into())
                .spawn(move || engine::run(rx, thread_status));
            match spawned {
                Ok(_) => Speaker {
                    jobs: Some(tx),
                    status,
                },
                Err(error) => {
                    Speaker::unavailable(format!("the speech thread did not start: {error}"))
                }
            }
        }
        #[cfg(not(feature = "speech"))]
        {
            Speaker::unavailable("this build of Herald has no speech support".into())
        }
    }

    /// A speaker that never speaks, with the reason it gives.
    pub fn unavailable(reason: String) -> Speaker {
        Speaker {
            jobs: None,
            status: Arc::new(Mutex::new(SpeechStatus {
                available: false,
                reason: Some(reason),
            })),
        }
    }

    /// Reads `text` aloud; resolves once it was spoken to the end or given up on.
    pub async fn speak(&self, text: String) -> SpeechOutcome {
        let Some(jobs) = &self.jobs else {
            return SpeechOutcome::NotSpoken(self.status().reason.unwrap_or_default());
        };
        let (done, outcome) = oneshot::channel();
        if jobs.send(Job { text, done }).is_err() {
            return SpeechOutcome::NotSpoken("the speech thread stopped".into());
        }
        outcome
            .await
            .unwrap_or_else(|_| SpeechOutcome::NotSpoken("the speech thread stopped".into()))
    }

    /// Whether speech worked the last time it was tried.
    pub fn status(&self) -> SpeechStatus {
        self.status
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// How long an utterance of `chars` characters may take before it counts as not spoken:
/// 15 s plus 150 ms a character (slow speech is about 8 characters a second), at most 10 min.
pub fn speaking_deadline(chars: usize) -> Duration {
    let millis = 15_000u64.saturating_add(150u64.saturating_mul(chars as u64));
    Duration::from_millis(millis.min(600_000))
}

#[cfg(feature = "speech")]
mod engine {
    use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use tts::{Tts, UtteranceId};

    use super::{speaking_deadline, Job, SpeechOutcome, SpeechStatus};

    enum Event {
        End(UtteranceId),
        Stop(UtteranceId),
    }

    struct Engine {
        tts: Tts,
        events: Receiver<Event>,
    }

    fn open() -> Result<Engine, String> {
        let tts = Tts::default().map_err(|e| format!("no speech service ({e})"))?;
        let features = tts.supported_features();
        if !features.utterance_callbacks {
            return Err("the speech service cannot report when it finished speaking".into());
        }
        let (tx, events) = channel();
        let end = tx.clone();
        tts.on_utterance_end(Some(Box::new(move |id| {
            let _ = end.send(Event::End(id));
        })))
        .map_err(|e| format!("the speech service refused a callback ({e})"))?;
        tts.on_utterance_stop(Some(Box::new(move |id| {
            let _ = tx.send(Event::Stop(id));
        })))
        .map_err(|e| format!("the speech service refused a callback ({e})"))?;
        Ok(Engine { tts, events })
    }

    fn speak(engine: &mut Engine, text: &str) -> SpeechOutcome {
        // Events of an earlier utterance that gave up are stale now.
        while engine.events.try_recv().is_ok() {}
        let id = match engine.tts.speak(text, false) {
            Ok(Some(id)) => id,
            Ok(None) => {
                return SpeechOutcome::NotSpoken(
                    "the speech service did not say whether it spoke".into(),
                )
            }
            Err(e) => return SpeechOutcome::NotSpoken(format!("the speech service refused ({e})")),
        };
        let deadline = Instant::now() + speaking_deadline(text.chars().count());
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match engine.events.recv_timeout(left) {
                Ok(Event::End(done)) if done == id => return SpeechOutcome::Spoken,
                Ok(Event::Stop(done)) if done == id => {
                    return SpeechOutcome::NotSpoken("speech was stopped".into())
                }
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = engine.tts.stop();
                    return SpeechOutcome::NotSpoken(
                        "speech did not finish (no audio output?)".into(),
                    );
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return SpeechOutcome::NotSpoken("the speech service went away".into())
                }
            }
        }
    }

    pub(super) fn run(jobs: Receiver<Job>, status: Arc<Mutex<SpeechStatus>>) {
        let mut engine: Option<Engine> = None;
        for job in jobs {
            let outcome = match engine.as_mut() {
                Some(engine) => speak(engine, &job.text),
                None => match open() {
                    Ok(mut opened) => {
                        let outcome = speak(&mut opened, &job.text);
                        engine = Some(opened);
                        outcome
                    }
                    Err(reason) => SpeechOutcome::NotSpoken(reason),
                },
            };
            let mut shown = status.lock().unwrap_or_else(|p| p.into_inner());
            match &outcome {
                SpeechOutcome::Spoken => {
                    *shown = SpeechStatus {
                        available: true,
                        reason: None,
                    }
                }
                SpeechOutcome::NotSpoken(reason) => {
                    tracing::warn!(%reason, "notification not spoken");
                    *shown = SpeechStatus {
                        available: false,
                        reason: Some(reason.clone()),
                    };
                    // Open the engine afresh next time (the service may come back).
                    engine = None;
                }
            }
            drop(shown);
            let _ = job.done.send(outcome);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unavailable_speaker_says_why_and_never_claims_to_have_spoken() {
        let speaker = Speaker::unavailable("no speech service".into());
        assert_eq!(
            speaker.speak("Build finished".into()).await,
            SpeechOutcome::NotSpoken("no speech service".into())
        );
        assert_eq!(
            speaker.status(),
            SpeechStatus {
                available: false,
                reason: Some("no speech service".into())
            }
        );
    }

    #[test]
    fn long_texts_get_longer_to_finish() {
        assert_eq!(speaking_deadline(0), Duration::from_secs(15));
        assert_eq!(speaking_deadline(100), Duration::from_secs(30));
        assert_eq!(speaking_deadline(1_000_000), Duration::from_secs(600));
    }
}
