//! The keyboard: a reader thread, which can be paused while an editor owns
//! the terminal, that turns terminal events into messages on the app's one
//! channel (the file watcher, `crate::watch`, and background work feed it
//! too), so the main loop sleeps until something actually happens.

use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::Duration;

use ratatui::crossterm::event as term_event;

use super::messages::Msg;

enum Control {
    Pause,
    Resume,
}

/// The keyboard reader thread.
pub struct InputReader {
    control: Sender<Control>,
    paused_ack: Receiver<()>,
}

/// How long the reader waits for a key before checking for a pause
/// request. Nothing is redrawn on this timeout.
const READER_POLL: Duration = Duration::from_millis(50);

impl InputReader {
    pub fn spawn(tx: Sender<Msg>) -> InputReader {
        let (control, control_rx) = mpsc::channel();
        let (ack_tx, paused_ack) = mpsc::channel();
        thread::Builder::new()
            .name("membank-input".into())
            .spawn(move || read_loop(tx, control_rx, ack_tx))
            .expect("spawning the input thread");
        InputReader {
            control,
            paused_ack,
        }
    }

    /// Stop reading the terminal until `resume`; returns once the reader
    /// has actually stopped, so nothing it reads can be lost to a child.
    pub fn pause(&self) {
        if self.control.send(Control::Pause).is_ok() {
            let _ = self.paused_ack.recv_timeout(Duration::from_secs(2));
        }
    }

    pub fn resume(&self) {
        let _ = self.control.send(Control::Resume);
    }
}

fn read_loop(tx: Sender<Msg>, control: Receiver<Control>, ack: Sender<()>) {
    loop {
        match control.try_recv() {
            Ok(Control::Pause) => {
                let _ = ack.send(());
                // Block until resumed; other pause requests are acknowledged
                // at once.
                loop {
                    match control.recv() {
                        Ok(Control::Resume) => break,
                        Ok(Control::Pause) => {
                            let _ = ack.send(());
                        }
                        Err(_) => return,
                    }
                }
            }
            Ok(Control::Resume) => {}
            Err(mpsc::TryRecvError::Disconnected) => return,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        match term_event::poll(READER_POLL) {
            Ok(true) => match term_event::read() {
                Ok(ev) => {
                    // Key releases and mouse moves are no messages.
                    if let Some(msg) = Msg::from_terminal(ev)
                        && tx.send(msg).is_err()
                    {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Msg::Error(format!("reading the terminal: {e}")));
                    return;
                }
            },
            Ok(false) => {}
            Err(e) => {
                let _ = tx.send(Msg::Error(format!("reading the terminal: {e}")));
                return;
            }
        }
    }
}
