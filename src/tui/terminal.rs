//! The terminal's lifecycle: raw mode and the alternate screen on the way
//! in, a clean restore on the way out (also on panic), job-control suspend,
//! and handing the terminal to an external editor.

use std::io::{self, Stdout, Write};
use std::path::Path;
use std::process::{Command, ExitStatus};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{
    cursor,
    event::{DisableBracketedPaste, EnableBracketedPaste},
    execute,
    terminal::{self, EnterAlternateScreen, LeaveAlternateScreen},
};

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Raw mode, alternate screen, bracketed paste, hidden cursor.
pub fn enter() -> io::Result<Term> {
    terminal::enable_raw_mode()?;
    let mut out = io::stdout();
    if let Err(e) = execute!(
        out,
        EnterAlternateScreen,
        EnableBracketedPaste,
        cursor::Hide
    ) {
        let _ = leave();
        return Err(e);
    }
    Terminal::new(CrosstermBackend::new(out))
}

/// Undo everything `enter` did. Safe to call more than once.
pub fn leave() -> io::Result<()> {
    let mut out = io::stdout();
    // Each step is attempted even if an earlier one failed: a half-restored
    // terminal is worse than an error message.
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
    // A fresh Terminal has an empty previous frame, so the next draw
    // writes every cell. (`Terminal::clear` would also do that, but it asks
    // the terminal for the cursor position and waits for the answer.)
    *term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
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

/// Arguments that open `path` at `line` for editors whose convention is
/// known; other editors just get the path.
pub fn editor_args(program: &str, path: &Path, line: Option<usize>) -> Vec<String> {
    let file = path.display().to_string();
    let base = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    match line {
        Some(n) if n > 0 => match base {
            "vi" | "vim" | "nvim" | "nano" | "emacs" | "emacsclient" | "kak" | "micro" | "ne"
            | "joe" | "mg" => vec![format!("+{n}"), file],
            "hx" | "helix" => vec![format!("{file}:{n}")],
            "code" | "codium" | "subl" | "zed" => {
                vec!["--goto".to_owned(), format!("{file}:{n}")]
            }
            _ => vec![file],
        },
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
}
