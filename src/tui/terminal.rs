//! The terminal's lifecycle: raw mode and the alternate screen on the way
//! in, a clean restore on the way out (also on panic), job-control suspend,
//! and handing the terminal to an external editor.

use std::io::{self, Stdout, Write};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{
    cursor,
    event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture},
    execute,
    terminal::{self, EnterAlternateScreen, LeaveAlternateScreen},
};

pub type Term = Terminal<CrosstermBackend<Ansi16<Stdout>>>;

/// Whether the interface asked for mouse events (kept across suspend and
/// the editor, which give the terminal back).
static MOUSE: AtomicBool = AtomicBool::new(false);

/// Raw mode, alternate screen, bracketed paste, hidden cursor, and mouse
/// reports when `mouse` is set.
pub fn enter(mouse: bool) -> io::Result<Term> {
    terminal::enable_raw_mode()?;
    MOUSE.store(mouse, Ordering::Relaxed);
    let mut out = io::stdout();
    let mut r = execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    );
    if r.is_ok() && mouse {
        r = execute!(out, EnableMouseCapture);
    }
    if let Err(e) = r {
        let _ = leave();
        return Err(e);
    }
    Terminal::new(CrosstermBackend::new(Ansi16::new(out)))
}

/// A writer that turns the 256-colour codes of the 16 standard colours
/// (`38;5;1`, which crossterm writes for every named colour) back into
/// the standard SGR codes (`31`), so a terminal that knows only 16
/// colours draws them. Output is held until `flush`, which ratatui calls
/// once per frame, so no sequence is ever split.
pub struct Ansi16<W: Write> {
    inner: W,
    held: Vec<u8>,
}

impl<W: Write> Ansi16<W> {
    pub fn new(inner: W) -> Ansi16<W> {
        Ansi16 {
            inner,
            held: Vec::new(),
        }
    }

    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for Ansi16<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.held.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let out = standard_colour_codes(&self.held);
        self.held.clear();
        self.inner.write_all(&out)?;
        self.inner.flush()
    }
}

/// In every SGR sequence (`ESC [ … m`), `38;5;N` and `48;5;N` with
/// N < 16 become the standard `3x`/`9x`/`4x`/`10x`; every other byte is
/// unchanged.
pub fn standard_colour_codes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some((params, len)) = sgr_at(&bytes[i..]) {
            out.extend_from_slice(b"\x1b[");
            out.extend_from_slice(rewrite_params(params).as_bytes());
            out.push(b'm');
            i += len;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// The parameters and the whole length of an SGR sequence at the start
/// of `b`.
fn sgr_at(b: &[u8]) -> Option<(&str, usize)> {
    let rest = b.strip_prefix(b"\x1b[")?;
    let n = rest
        .iter()
        .take_while(|c| c.is_ascii_digit() || **c == b';')
        .count();
    (rest.get(n) == Some(&b'm')).then_some(())?;
    Some((std::str::from_utf8(&rest[..n]).ok()?, 2 + n + 1))
}

fn rewrite_params(params: &str) -> String {
    let p: Vec<&str> = params.split(';').collect();
    let mut out: Vec<String> = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        let ground = match p[i] {
            "38" => Some(0),
            "48" => Some(10),
            _ => None,
        };
        if let Some(ground) = ground
            && p.get(i + 1) == Some(&"5")
            && let Some(n) = p.get(i + 2).and_then(|n| n.parse::<u8>().ok())
            && n < 16
        {
            let code = if n < 8 { 30 + n } else { 90 + n - 8 } + ground;
            out.push(code.to_string());
            i += 3;
            continue;
        }
        // Other extended colours carry their arguments along unchanged.
        let take = match (ground, p.get(i + 1)) {
            (Some(_), Some(&"5")) => 3,
            (Some(_), Some(&"2")) => 5,
            _ => 1,
        };
        for q in p.iter().skip(i).take(take) {
            out.push((*q).to_owned());
        }
        i += take;
    }
    out.join(";")
}

/// Undo everything `enter` did. Safe to call more than once.
pub fn leave() -> io::Result<()> {
    let mut out = io::stdout();
    // Each step is attempted even if an earlier one failed: a half-restored
    // terminal is worse than an error message.
    if MOUSE.load(Ordering::Relaxed) {
        let _ = execute!(out, DisableMouseCapture);
    }
    let a = execute!(
        out,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let b = terminal::disable_raw_mode();
    let _ = out.flush();
    a.and(b)
}

/// Restore the terminal before the default panic message is printed, so the
/// message is readable and the shell is usable afterwards.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = leave();
        previous(info);
    }));
}

/// Ctrl-Z: give the terminal back, stop the process like any other job,
/// and take the terminal again once the shell resumes it (`fg`).
pub fn suspend(term: &mut Term) -> io::Result<()> {
    leave()?;
    // SAFETY: raise() only delivers a signal to this process; SIGTSTP's
    // default action stops it until SIGCONT.
    #[cfg(unix)]
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    resume(term)
}

/// Take the terminal again after it was given away, and force a full
/// redraw because the screen contents are unknown.
pub fn resume(term: &mut Term) -> io::Result<()> {
    terminal::enable_raw_mode()?;
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide,
        terminal::Clear(terminal::ClearType::All)
    )?;
    if MOUSE.load(Ordering::Relaxed) {
        execute!(io::stdout(), EnableMouseCapture)?;
    }
    // A fresh Terminal has an empty previous frame, so the next draw
    // writes every cell. (`Terminal::clear` would also do that, but it asks
    // the terminal for the cursor position and waits for the answer.)
    *term = Terminal::new(CrosstermBackend::new(Ansi16::new(io::stdout())))?;
    Ok(())
}

/// The editor command from `$VISUAL`, then `$EDITOR`, then `vi`; split on
/// whitespace so values like `code --wait` work.
pub fn editor_command(visual: Option<&str>, editor: Option<&str>) -> Vec<String> {
    [visual, editor]
        .into_iter()
        .flatten()
        .map(|v| v.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .find(|words| !words.is_empty())
        .unwrap_or_else(|| vec!["vi".to_owned()])
}

/// Editors that take `+LINE` before the file.
const PLUS_LINE: &[&str] = &[
    "vi",
    "vim",
    "nvim",
    "nano",
    "emacs",
    "emacsclient",
    "kak",
    "micro",
    "ne",
    "joe",
    "mg",
];
/// Editors that take `FILE:LINE`.
const FILE_COLON_LINE: &[&str] = &["hx", "helix"];
/// Editors that take `--goto FILE:LINE`.
const GOTO: &[&str] = &["code", "codium", "subl", "zed"];

/// Arguments that open `path` at `line` for editors whose convention is
/// known; other editors just get the path (docs/keys.md names the known
/// ones, so the list there must follow this one).
pub fn editor_args(program: &str, path: &Path, line: Option<usize>) -> Vec<String> {
    let file = path.display().to_string();
    let base = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    match line {
        Some(n) if n > 0 => {
            if PLUS_LINE.contains(&base) {
                vec![format!("+{n}"), file]
            } else if FILE_COLON_LINE.contains(&base) {
                vec![format!("{file}:{n}")]
            } else if GOTO.contains(&base) {
                vec!["--goto".to_owned(), format!("{file}:{n}")]
            } else {
                vec![file]
            }
        }
        _ => vec![file],
    }
}

/// Hand the terminal to the user's editor on `path` and take it back.
/// The caller must have paused its input reader first, or the reader would
/// steal the editor's keystrokes.
pub fn run_editor(term: &mut Term, path: &Path, line: Option<usize>) -> io::Result<ExitStatus> {
    let visual = std::env::var("VISUAL").ok();
    let editor = std::env::var("EDITOR").ok();
    let mut words = editor_command(visual.as_deref(), editor.as_deref());
    let program = words.remove(0);
    let args = editor_args(&program, path, line);
    leave()?;
    let status = Command::new(&program).args(&words).args(&args).status();
    resume(term)?;
    status.map_err(|e| io::Error::new(e.kind(), format!("could not start {program:?}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visual_wins_over_editor_and_vi_is_the_fallback() {
        assert_eq!(editor_command(Some("nvim"), Some("nano")), ["nvim"]);
        assert_eq!(editor_command(Some("  "), Some("nano -w")), ["nano", "-w"]);
        assert_eq!(editor_command(None, None), ["vi"]);
    }

    #[test]
    fn line_numbers_follow_each_editors_convention() {
        let p = Path::new("a b.md");
        assert_eq!(editor_args("/usr/bin/vim", p, Some(7)), ["+7", "a b.md"]);
        assert_eq!(editor_args("hx", p, Some(7)), ["a b.md:7"]);
        assert_eq!(editor_args("unknown", p, Some(7)), ["a b.md"]);
        assert_eq!(editor_args("vim", p, None), ["a b.md"]);
    }

    /// The keys guide says which editors open at the line; it names each
    /// one this module knows.
    #[test]
    fn the_keys_guide_names_every_editor_opened_at_a_line() {
        let guide = include_str!("../../docs/keys.md");
        for editor in PLUS_LINE.iter().chain(FILE_COLON_LINE).chain(GOTO) {
            assert!(guide.contains(&format!("`{editor}`")), "{editor}");
        }
    }

    #[test]
    fn named_colours_go_out_as_the_16_standard_codes() {
        let out = standard_colour_codes(b"\x1b[38;5;1mred\x1b[48;5;12mx\x1b[38;5;8;49m");
        assert_eq!(out, b"\x1b[31mred\x1b[104mx\x1b[90;49m");
        // Colours beyond the 16 and other sequences are left alone.
        let other = b"\x1b[38;5;123mx\x1b[38;2;1;2;3m\x1b[1m";
        assert_eq!(standard_colour_codes(other), other);
    }
}
