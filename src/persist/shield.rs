//! Holding back the signals that would end the run while condense writes into a live session.
//!
//! An append killed half-way leaves the start of a compaction record with no line end, and the
//! agent's next line glues onto it: the session no longer parses. Ctrl-C, `timeout`'s SIGTERM,
//! a closed terminal's SIGHUP and the like are therefore held while a [`Shield`] lives: they end
//! the run once the write is whole and synced (with the status their default action gives, so
//! the caller still sees "killed by SIGINT"). Outside a shield they act at once, as before.
//! SIGKILL cannot be held; the append's journal ([`super::journal`]) repairs what it leaves.
//!
//! The handlers are installed once per process, on the first shield, for every thread (a
//! process-directed signal may be delivered to any of them).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, Result};
use signal_hook::consts::signal::{SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};

/// The signals whose default action ends the process and that a user or a supervisor sends.
const HELD: [i32; 7] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2];

struct State {
    /// True outside a shield: a signal runs its default action at once.
    open: Arc<AtomicBool>,
    /// The signal that arrived inside a shield (0: none).
    pending: Arc<AtomicUsize>,
    /// One shield at a time.
    held: Mutex<()>,
}

static STATE: OnceLock<std::io::Result<State>> = OnceLock::new();

fn state() -> Result<&'static State> {
    STATE
        .get_or_init(|| {
            let state = State {
                open: Arc::new(AtomicBool::new(true)),
                pending: Arc::new(AtomicUsize::new(0)),
                held: Mutex::new(()),
            };
            for signal in HELD {
                // The record first, so that a signal in a shield is remembered; the default
                // action only while no shield lives.
                signal_hook::flag::register_usize(signal, state.pending.clone(), signal as usize)?;
                signal_hook::flag::register_conditional_default(signal, state.open.clone())?;
            }
            Ok(state)
        })
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("cannot hold signals during the write")
}

/// While it lives, the held signals wait; dropping it delivers the first that came.
pub struct Shield {
    state: &'static State,
    _one: std::sync::MutexGuard<'static, ()>,
}

/// Starts holding the signals.
pub fn hold() -> Result<Shield> {
    let state = state()?;
    let one = state.held.lock().unwrap_or_else(|e| e.into_inner());
    state.pending.store(0, Ordering::SeqCst);
    state.open.store(false, Ordering::SeqCst);
    Ok(Shield { state, _one: one })
}

impl Shield {
    /// The signal that arrived so far, if any: a caller that has not begun writing yet can stop.
    pub fn pending(&self) -> Option<i32> {
        match self.state.pending.load(Ordering::SeqCst) {
            0 => None,
            signal => Some(signal as i32),
        }
    }
}

impl Drop for Shield {
    fn drop(&mut self) {
        self.state.open.store(true, Ordering::SeqCst);
        if let Some(signal) = self.pending() {
            // What the signal would have done had it come a moment later.
            let _ = signal_hook::low_level::emulate_default_handler(signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_inside_a_shield_is_remembered_not_acted_on() {
        let shield = hold().unwrap();
        assert_eq!(shield.pending(), None);
        // SIGUSR2's default would end this test binary; held, it is only recorded.
        signal_hook::low_level::raise(SIGUSR2).unwrap();
        assert_eq!(shield.pending(), Some(SIGUSR2));
        // Forget it before the drop, which would otherwise act on it.
        shield.state.pending.store(0, Ordering::SeqCst);
        drop(shield);
        let again = hold().unwrap();
        assert_eq!(again.pending(), None);
    }
}
