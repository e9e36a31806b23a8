//! The live view: the terminal in raw mode on its alternate screen, a new frame every
//! interval, and keys handled the moment they arrive (the wait for the next snapshot is
//! the wait for a key). The terminal is given back on every way out — return, error or
//! panic — by [`Terminal`]'s `Drop` and a panic hook that runs before the message prints.

use super::frame::{self, Line, View};
use super::rows::{self, Order};
use super::Sample;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::Print;
use crossterm::terminal::{self, ClearType};
use crossterm::{cursor, execute, queue};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the view looks for SIGTERM/SIGHUP while it waits for a key.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// Shows frames until the user quits.
pub fn run(
    interval: Duration,
    mut order: Order,
    mut sample: impl FnMut() -> anyhow::Result<Sample>,
) -> anyhow::Result<()> {
    let mut before = sample()?;
    // SIGTERM and SIGHUP end the view like `q` (raw mode turns Ctrl-C into a key).
    let signalled = std::sync::Arc::new(AtomicBool::new(false));
    let flag = signalled.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))?;
    let _terminal = Terminal::enter()?;
    let mut out = std::io::stdout().lock();
    let mut rows = rows::diff(&before.topics, &before.topics, Duration::ZERO);
    let mut elapsed = Duration::ZERO;
    loop {
        rows::sort(&mut rows, order);
        let (width, height) = terminal::size()?;
        let view = View { root: &before.root, rows: &rows, routers: &before.routers, order, elapsed, live: true };
        draw(&mut out, &frame::render(&view, Some(width.into()), Some(height.into())), height)?;
        let due = before.at + interval;
        let mut event_came = false;
        while !event_came && Instant::now() < due {
            if signalled.load(Ordering::Relaxed) {
                return Ok(());
            }
            match wait_for_terminal(due.saturating_duration_since(Instant::now()).min(SIGNAL_CHECK))? {
                Tty::Gone => return Ok(()),
                Tty::Quiet => {}
                Tty::Input => event_came = event::poll(Duration::ZERO)?,
            }
        }
        if event_came {
            // A key, a resize or anything else: draw again at once, sample when due.
            if let Event::Key(key) = event::read()? {
                match action(key) {
                    Some(Action::Quit) => return Ok(()),
                    Some(Action::NextSortKey) => order.key = order.key.next(),
                    Some(Action::Reverse) => order.reversed = !order.reversed,
                    None => {}
                }
            }
            continue;
        }
        let after = sample()?;
        elapsed = after.at - before.at;
        rows = rows::diff(&before.topics, &after.topics, elapsed);
        before = after;
    }
}

/// What the terminal did while we waited.
enum Tty {
    Input,
    Quiet,
    /// Hung up (its window closed, tmux killed): nobody can see or quit us any more.
    Gone,
}

/// Waits up to `timeout` for input on stdin, ourselves: crossterm's own wait reads a
/// hung-up terminal in a busy loop forever (read returns 0), so it is asked only once
/// input is known to be there.
fn wait_for_terminal(timeout: Duration) -> std::io::Result<Tty> {
    use rustix::event::{PollFd, PollFlags};
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    let timeout = rustix::event::Timespec::try_from(timeout).unwrap_or_default();
    match rustix::event::poll(&mut fds, Some(&timeout)) {
        Ok(0) => Ok(Tty::Quiet),
        Ok(_) if fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) => Ok(Tty::Gone),
        Ok(_) => Ok(Tty::Input),
        Err(rustix::io::Errno::INTR) => Ok(Tty::Quiet),
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Quit,
    NextSortKey,
    Reverse,
}

/// What a key does: `q`, Esc and Ctrl-C quit (raw mode turns Ctrl-C into a key), `s`
/// cycles the sort key, `r` reverses the order.
fn action(key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    match key.code {
        KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some(Action::Quit),
        KeyCode::Char('q' | 'Q') | KeyCode::Esc => Some(Action::Quit),
        KeyCode::Char('s' | 'S') => Some(Action::NextSortKey),
        KeyCode::Char('r' | 'R') => Some(Action::Reverse),
        _ => None,
    }
}

/// Draws over the previous frame line by line (clearing each line first, so a line as
/// wide as the screen is never half erased) and clears what is left below.
fn draw(out: &mut impl Write, lines: &[Line], height: u16) -> std::io::Result<()> {
    queue!(out, terminal::BeginSynchronizedUpdate)?;
    for (y, line) in lines.iter().enumerate() {
        let y = u16::try_from(y).unwrap_or(u16::MAX);
        queue!(out, cursor::MoveTo(0, y), terminal::Clear(ClearType::CurrentLine), Print(line.painted()))?;
    }
    if lines.len() < usize::from(height) {
        queue!(out, cursor::MoveTo(0, lines.len() as u16), terminal::Clear(ClearType::FromCursorDown))?;
    }
    queue!(out, terminal::EndSynchronizedUpdate)?;
    out.flush()
}

/// Whether the terminal is ours (raw mode, alternate screen) and must be given back.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// The terminal in raw mode on the alternate screen, with the cursor hidden, until dropped.
struct Terminal;

impl Terminal {
    fn enter() -> std::io::Result<Terminal> {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                restore(); // first, or the message would go to the alternate screen and vanish
                previous(info);
            }));
        });
        terminal::enable_raw_mode()?;
        TAKEN.store(true, Ordering::SeqCst);
        let terminal = Terminal; // from here on, any way out restores
        execute!(std::io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(terminal)
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        restore();
    }
}

/// Gives the terminal back, once, whoever gets here first (the drop or the panic hook).
fn restore() {
    if TAKEN.swap(false, Ordering::SeqCst) {
        let _ = execute!(std::io::stdout(), cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<Action> {
        action(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn keys() {
        assert_eq!(key(KeyCode::Char('q'), KeyModifiers::NONE), Some(Action::Quit));
        assert_eq!(key(KeyCode::Esc, KeyModifiers::NONE), Some(Action::Quit));
        assert_eq!(key(KeyCode::Char('c'), KeyModifiers::CONTROL), Some(Action::Quit));
        assert_eq!(key(KeyCode::Char('c'), KeyModifiers::NONE), None);
        assert_eq!(key(KeyCode::Char('s'), KeyModifiers::NONE), Some(Action::NextSortKey));
        assert_eq!(key(KeyCode::Char('r'), KeyModifiers::NONE), Some(Action::Reverse));
        let mut release = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        release.kind = KeyEventKind::Release;
        assert_eq!(action(release), None);
    }

    #[test]
    fn drawing_clears_each_line_before_writing_it() {
        let mut out = Vec::new();
        let view = View {
            root: std::path::Path::new("/r"),
            rows: &[],
            routers: &[],
            order: Order { key: rows::SortKey::Name, reversed: false },
            elapsed: Duration::ZERO,
            live: true,
        };
        draw(&mut out, &frame::render(&view, Some(80), Some(24)), 24).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\x1b[1;1H\x1b[2K"), "move to the top-left, clear the line: {text:?}");
        assert!(text.contains("(no topics in /r)") && text.ends_with("\x1b[J\x1b[?2026l"), "{text:?}");
    }
}
