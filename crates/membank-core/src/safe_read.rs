//! Reading files from a folder that may come from someone else (a cloned
//! bank, a memory root): every reader in membank goes through here.
//!
//! Three rules hold for every read:
//! - only regular files are read: a FIFO would block forever and a device
//!   such as `/dev/zero` never ends, so both are refused before any byte is
//!   read (the file is opened non-blocking and checked on the open handle);
//! - at most [`ReadPolicy::max_file_bytes`] are read per file, so an
//!   enormous file is reported instead of exhausting memory;
//! - a symbolic link whose target leaves the root is not followed unless the
//!   user opted in ([`ReadPolicy::follow_links_out`]), so a bank cannot make
//!   membank print or send `~/.ssh/id_ed25519` by linking to it.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// 16 MiB: far above any article or template, far below what hurts.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// What a reader may do. The default is the safe one; a bank cannot change
/// it, only the user's own settings can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadPolicy {
    /// Files larger than this are reported and not read.
    pub max_file_bytes: u64,
    /// Follow symbolic links (to files and folders) whose target is outside
    /// the root. Off by default.
    pub follow_links_out: bool,
}

impl Default for ReadPolicy {
    fn default() -> ReadPolicy {
        ReadPolicy {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            follow_links_out: false,
        }
    }
}

/// The user's policy for this process, set once at start-up from their
/// settings. A process-wide value so that every layout's reader honours it
/// without each caller passing it along.
static USER_POLICY: std::sync::OnceLock<ReadPolicy> = std::sync::OnceLock::new();

/// Record the user's settings for every later read; returns false when
/// a policy was already set (the first one stays).
pub fn set_user_policy(policy: ReadPolicy) -> bool {
    USER_POLICY.set(policy).is_ok()
}

/// The policy readers use when none is passed explicitly: the user's
/// settings if they were recorded, else the safe default.
pub fn user_policy() -> ReadPolicy {
    USER_POLICY.get().copied().unwrap_or_default()
}

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// A FIFO, device, socket or folder where a file was expected.
    NotRegular {
        kind: &'static str,
    },
    TooLarge {
        size: u64,
        limit: u64,
    },
    /// A symbolic link (the file or a folder on its path) leads outside
    /// the root; `root` is what the user calls it ("bank", "project",
    /// "memory root").
    LinkLeavesRoot {
        root: &'static str,
    },
    /// A symbolic link to something that does not exist.
    DanglingLink,
    /// A symbolic link that leads back to itself, directly or through
    /// other links: like a link to nothing, there is nothing to read.
    LinkLoop,
    Io(io::Error),
}

impl ReadError {
    /// A stable short code for scripts and health findings.
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::NotRegular { .. } => "not-regular",
            ReadError::TooLarge { .. } => "too-large",
            ReadError::LinkLeavesRoot { .. } => "link-out",
            ReadError::DanglingLink => "dangling-link",
            ReadError::LinkLoop => "link-loop",
            ReadError::Io(_) => "io",
        }
    }

    /// True when the file simply is not there.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

const MIB: f64 = 1024.0 * 1024.0;

/// A size in megabytes as a person reads it: whole from 10 MB up, else to
/// a tenth; the number shown and its text.
fn megabytes(bytes: u64) -> (f64, String) {
    let mb = bytes as f64 / MIB;
    if mb >= 10.0 || mb.fract() == 0.0 {
        (mb.round(), format!("{mb:.0} MB"))
    } else {
        ((mb * 10.0).round() / 10.0, format!("{mb:.1} MB"))
    }
}

/// `size` in megabytes with as few decimals as show it over `limit` as
/// written: rounded as [`megabytes`] rounds, 16.2 MB over a 16 MB limit read
/// as "16 MB, over the limit of 16 MB". Rounded down, so it never reads as
/// more than it is; `None` when two decimals still cannot tell them apart.
fn megabytes_over(size: u64, limit: u64) -> Option<String> {
    let mb = size as f64 / MIB;
    let limit_shown = megabytes(limit).0.max(limit as f64 / MIB);
    let fewest = if mb >= 10.0 || mb.fract() == 0.0 {
        0
    } else {
        1
    };
    (fewest..=2).find_map(|decimals: usize| {
        let scale = 10f64.powi(decimals as i32);
        let shown = (mb * scale).floor() / scale;
        (shown > limit_shown).then(|| format!("{shown:.decimals$} MB"))
    })
}

/// "is 16.2 MB, over the limit of 16 MB per file (setting `max_file_mb`)":
/// a size over the read limit, said the same way by readers and writers.
pub fn over_the_limit(size: u64, limit: u64) -> String {
    // Just over the limit, megabytes cannot tell the two apart: bytes can.
    let (size, limit) = match megabytes_over(size, limit) {
        Some(size) => (size, megabytes(limit).1),
        None => (
            format!("{size} bytes"),
            format!("{} ({limit} bytes)", megabytes(limit).1),
        ),
    };
    format!("is {size}, over the limit of {limit} per file (setting `max_file_mb`)")
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular { kind } => {
                write!(f, "is {kind}, not a regular file; it is not read")
            }
            ReadError::TooLarge { size, limit } => {
                write!(f, "{}; it is not read", over_the_limit(*size, *limit))
            }
            ReadError::LinkLeavesRoot { root } => write!(
                f,
                "is a symbolic link to something outside the {root}; it is not read \
                 (setting `follow_links_out` allows it)",
            ),
            ReadError::DanglingLink => write!(
                f,
                "is a symbolic link to something that does not exist; there is nothing to read"
            ),
            ReadError::LinkLoop => write!(
                f,
                "is a symbolic link loop (it leads back to itself); there is nothing to read"
            ),
            ReadError::Io(e) => write!(f, "could not be read: {e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

fn kind_of(ft: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        return "a folder";
    }
    "not a regular file"
}

/// Open without blocking: opening a FIFO for reading waits for a writer,
/// so the type is checked on the handle before anything else happens.
fn open_nonblocking(path: &Path) -> Result<File, ReadError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path).map_err(|e| failed_at(path, e))
}

/// Why looking at `path` failed, where the system's own words would send
/// the reader to the wrong cause: a socket cannot be opened at all ("No
/// such device or address"), and a link loop is "Too many levels of
/// symbolic links"; neither is a matter of permissions.
fn failed_at(path: &Path, e: io::Error) -> ReadError {
    #[cfg(unix)]
    match e.raw_os_error() {
        Some(libc::ENXIO) => {
            if let Ok(meta) = fs::metadata(path)
                && !meta.file_type().is_file()
            {
                return ReadError::NotRegular {
                    kind: kind_of(meta.file_type()),
                };
            }
        }
        // Also what an open that follows no link says of any link: only
        // a link that cannot be resolved either is a loop.
        Some(libc::ELOOP)
            if path
                .canonicalize()
                .is_err_and(|again| again.raw_os_error() == Some(libc::ELOOP)) =>
        {
            return ReadError::LinkLoop;
        }
        _ => {}
    }
    #[cfg(not(unix))]
    let _ = path;
    ReadError::Io(e)
}

/// Read a regular file into `buf` (replacing its contents), at most
/// `max_bytes`. Links are followed; use [`RootReader`] for files inside a
/// bank. Returns the number of bytes read.
pub fn read_regular_into(
    path: &Path,
    max_bytes: u64,
    buf: &mut Vec<u8>,
) -> Result<usize, ReadError> {
    read_opened_into(open_nonblocking(path)?, max_bytes, buf)
}

/// [`read_regular_into`] for a file already opened (without blocking).
fn read_opened_into(file: File, max_bytes: u64, buf: &mut Vec<u8>) -> Result<usize, ReadError> {
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular {
            kind: kind_of(meta.file_type()),
        });
    }
    if meta.len() > max_bytes {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit: max_bytes,
        });
    }
    buf.clear();
    if meta.len() == 0 {
        // Some file systems (procfs, a few FUSE ones) report no size for a
        // file that has content: read it to its end, one byte more than
        // allowed telling it is too large.
        file.take(max_bytes + 1).read_to_end(buf)?;
        if buf.len() as u64 > max_bytes {
            return Err(ReadError::TooLarge {
                size: buf.len() as u64,
                limit: max_bytes,
            });
        }
        return Ok(buf.len());
    }
    read_sized(file, meta.len() as usize, buf)
}

/// Read `file`, which `metadata` said holds `size` bytes (at most the
/// limit): those bytes and no more, so no further call is needed to find
/// its end (a system call per file fewer, on a bank of 100,000 files). A
/// file written to meanwhile is read as far as it was then; the watcher
/// reads it again when the writer is done.
fn read_sized(mut file: File, size: usize, buf: &mut Vec<u8>) -> Result<usize, ReadError> {
    buf.resize(size, 0);
    let mut filled = 0;
    while filled < size {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    buf.truncate(filled);
    Ok(filled)
}

/// Read a regular file the user named (a document to distill, a reply
/// file): regular files only, at most `max_bytes`.
pub fn read_regular(path: &Path, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::new();
    read_regular_into(path, max_bytes, &mut buf)?;
    Ok(buf)
}

/// A folder held open for reading the files in it by name.
#[derive(Debug)]
pub struct OpenDir {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    /// Its file system answers a read of a regular file in full unless the
    /// file ends first (see [`read_small_at_once`]).
    #[cfg(unix)]
    short_read_is_end: bool,
}

/// Bytes asked for in the one read that takes a whole small file: far
/// above a typical article, so most files need no other call.
const FIRST_READ: usize = 64 * 1024;

/// Does the file system holding `dir` return fewer bytes than asked from a
/// regular file only at its end? True of local disks, memory and overlays;
/// not promised over a network or by a user-space file system, where a
/// server may answer a read in parts.
#[cfg(target_os = "linux")]
fn short_read_is_end(dir: &std::os::fd::OwnedFd) -> bool {
    // Magic numbers from the kernel's `magic.h`.
    const LOCAL: [u32; 6] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // xfs
        0x9123_683E, // btrfs
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
        0xF2F5_2010, // f2fs
    ];
    // The field's integer type differs between targets; the magic
    // numbers are 32-bit.
    rustix::fs::fstatfs(dir).is_ok_and(|s| LOCAL.contains(&(s.f_type as u32)))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn short_read_is_end(_dir: &std::os::fd::OwnedFd) -> bool {
    false
}

/// A small file read whole in one call, with no separate look at its kind
/// and size: one read from its start into the buffer's room (at least
/// [`FIRST_READ`]) that comes back short is the whole file, on a file
/// system where only the end of a regular file cuts a read short. `None`
/// when anything is unusual, and the file is then checked on the open
/// handle as any other ([`read_opened_into`]); it was not moved, since
/// a positioned read leaves the file's offset alone:
/// - an error: a folder swapped in says so, and a FIFO cannot be read
///   at an offset at all, so neither is ever taken for text;
/// - nothing read: an empty file, or a device such as `/dev/null`;
/// - the room filled: a larger file, or a device such as `/dev/zero`;
/// - more than the cap.
#[cfg(unix)]
fn read_small_at_once(file: &File, max_bytes: u64, buf: &mut Vec<u8>) -> Option<usize> {
    buf.clear();
    buf.reserve(FIRST_READ);
    let room = buf.capacity();
    match rustix::io::pread(file, rustix::buffer::spare_capacity(buf), 0) {
        Ok(n) if n > 0 && n < room && n as u64 <= max_bytes => Some(n),
        _ => {
            buf.clear();
            None
        }
    }
}

/// Reads files inside one root folder under a [`ReadPolicy`].
#[derive(Debug, Clone)]
pub struct RootReader {
    root: PathBuf,
    /// The root with every link resolved, for the containment check.
    canonical_root: PathBuf,
    policy: ReadPolicy,
    /// What the user calls the root, for messages.
    root_word: &'static str,
}

impl RootReader {
    /// A reader for `root` under the user's policy ([`user_policy`]).
    pub fn for_root(root: &Path) -> io::Result<RootReader> {
        RootReader::new(root, user_policy())
    }

    pub fn new(root: &Path, policy: ReadPolicy) -> io::Result<RootReader> {
        Ok(RootReader {
            root: root.to_path_buf(),
            canonical_root: root.canonicalize()?,
            policy,
            root_word: "bank",
        })
    }

    /// Name the root as its layout does ("project", "memory root") in the
    /// messages of this reader; a bank is the default.
    pub fn named(mut self, root_word: &'static str) -> RootReader {
        self.root_word = root_word;
        self
    }

    fn leaves_root(&self) -> ReadError {
        ReadError::LinkLeavesRoot {
            root: self.root_word,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn policy(&self) -> ReadPolicy {
        self.policy
    }

    /// `path` relative to the root, or `None` when it is not lexically
    /// inside it (absolute elsewhere, or with `..`).
    fn relative<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        let rel = if path.is_absolute() {
            path.strip_prefix(&self.root).ok()?
        } else {
            path
        };
        rel.components()
            .all(|c| matches!(c, Component::Normal(_)))
            .then_some(rel)
    }

    /// Does `path` (relative to the root, or joined onto it) stay inside the
    /// root once every symbolic link on it is followed? Always true when the
    /// user allows links out.
    pub fn check_inside(&self, path: &Path) -> Result<PathBuf, ReadError> {
        let Some(rel) = self.relative(path) else {
            return Err(self.leaves_root());
        };
        let full = self.root.join(rel);
        if self.policy.follow_links_out {
            return Ok(full);
        }
        // Cheap when nothing on the path is a link, which is the usual case.
        let mut at = self.root.clone();
        let mut any_link = false;
        for part in rel.components() {
            at.push(part);
            match fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    any_link = true;
                    break;
                }
                Ok(_) => {}
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
        if any_link {
            match full.canonicalize() {
                Ok(real) if real.starts_with(&self.canonical_root) => {}
                Ok(_) => return Err(self.leaves_root()),
                // A dangling link: where it points does not exist, so
                // there is nothing to read either way.
                Err(e) => return Err(failed_at(&full, e)),
            }
        }
        Ok(full)
    }

    /// Read a file inside the root (a path relative to it, or joined onto
    /// it): every link on the way must stay inside, the file must be
    /// regular and within the size cap.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, ReadError> {
        let mut buf = Vec::new();
        self.read_into(path, &mut buf)?;
        Ok(buf)
    }

    /// [`RootReader::read`] into a reused buffer.
    pub fn read_into(&self, path: &Path, buf: &mut Vec<u8>) -> Result<usize, ReadError> {
        let full = self.check_inside(path)?;
        read_regular_into(&full, self.policy.max_file_bytes, buf)
    }

    /// Read a file found by a walk that did not follow links into folders
    /// ([`walkdir`] with `follow_links(false)` from a folder already known
    /// to be inside): only the file itself can be a link, so only then is
    /// the containment check needed.
    pub fn read_walked_into(
        &self,
        path: &Path,
        is_link: bool,
        buf: &mut Vec<u8>,
    ) -> Result<usize, ReadError> {
        if is_link {
            self.check_walked_link(path)?;
        }
        read_regular_into(path, self.policy.max_file_bytes, buf)
    }

    /// A link the walk found: one to nothing is said to be so (not a
    /// read failure to look into), and unless links out are allowed, one
    /// must lead inside the root.
    fn check_walked_link(&self, path: &Path) -> Result<(), ReadError> {
        match path.canonicalize() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ReadError::DanglingLink),
            Err(e) => Err(failed_at(path, e)),
            Ok(_) if self.policy.follow_links_out => Ok(()),
            Ok(real) if real.starts_with(&self.canonical_root) => Ok(()),
            Ok(_) => Err(self.leaves_root()),
        }
    }

    /// Open a file found by a walk to read it piece by piece, under the
    /// rules of [`RootReader::read_walked_into`]: the handle and the size
    /// it had then (0 when the file system reports none), within the cap.
    pub fn open_walked(&self, path: &Path, is_link: bool) -> Result<(File, u64), ReadError> {
        if is_link {
            self.check_walked_link(path)?;
        }
        let file = open_nonblocking(path)?;
        let meta = file.metadata()?;
        if !meta.file_type().is_file() {
            return Err(ReadError::NotRegular {
                kind: kind_of(meta.file_type()),
            });
        }
        if meta.len() > self.policy.max_file_bytes {
            return Err(ReadError::TooLarge {
                size: meta.len(),
                limit: self.policy.max_file_bytes,
            });
        }
        Ok((file, meta.len()))
    }

    /// Hold `dir`, a folder the walk found inside the root, open so its
    /// files can be read by name ([`RootReader::read_walked_in`]); `None`
    /// when it cannot be opened, and its files are read by path.
    pub fn open_dir(&self, dir: &Path) -> Option<OpenDir> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            if !self.policy.follow_links_out {
                flags |= OFlags::NOFOLLOW;
            }
            rustix::fs::open(dir, flags, Mode::empty())
                .ok()
                .map(|fd| OpenDir {
                    short_read_is_end: short_read_is_end(&fd),
                    fd,
                })
        }
        #[cfg(not(unix))]
        {
            let _ = dir;
            None
        }
    }

    /// [`RootReader::read_walked_into`] for a file the walk found in the
    /// folder `dir` holds open: opened by its name in that folder, so the
    /// system does not look up every folder of its path again (a large
    /// bank is a hundred thousand opens). The same limits hold. A folder
    /// is given only for a file the walk saw as a regular file: a small
    /// one is then read in one call, its kind and size checked only when
    /// that read looks unusual (see `read_small_at_once`).
    pub fn read_walked_in(
        &self,
        dir: Option<&OpenDir>,
        path: &Path,
        is_link: bool,
        buf: &mut Vec<u8>,
    ) -> Result<usize, ReadError> {
        #[cfg(unix)]
        if let (Some(dir), false, Some(name)) = (dir, is_link, path.file_name()) {
            use rustix::fs::{Mode, OFlags};
            // Unless links out are allowed, never through a link: the walk
            // saw no link here, and one swapped in since is refused.
            let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
            if !self.policy.follow_links_out {
                flags |= OFlags::NOFOLLOW;
            }
            let fd = rustix::fs::openat(&dir.fd, name, flags, Mode::empty())
                .map_err(|e| failed_at(path, io::Error::from(e)))?;
            let file = File::from(fd);
            if dir.short_read_is_end
                && let Some(n) = read_small_at_once(&file, self.policy.max_file_bytes, buf)
            {
                return Ok(n);
            }
            return read_opened_into(file, self.policy.max_file_bytes, buf);
        }
        #[cfg(not(unix))]
        let _ = dir;
        self.read_walked_into(path, is_link, buf)
    }

    /// May the walk enter this folder inside the root? A folder that is a
    /// link is entered only when links out are allowed; without the opt-in
    /// it is reported (even when it points inside, a linked folder would
    /// show the same articles twice).
    pub fn may_enter(&self, dir: &Path) -> Result<(), ReadError> {
        let meta = fs::symlink_metadata(dir)?;
        if meta.file_type().is_symlink() {
            if self.policy.follow_links_out {
                return Ok(());
            }
            return Err(self.leaves_root());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn make_fifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    /// A link at `link` to a file outside the root: the folder holding that
    /// file, kept alive by the caller.
    #[cfg(unix)]
    fn link_to_a_secret_outside(link: &Path) -> tempfile::TempDir {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "key").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), link).unwrap();
        outside
    }

    /// A socket cannot even be opened ("No such device or address") and a
    /// link loop cannot be resolved ("Too many levels of symbolic links"):
    /// both are said for what they are, not as an I/O failure.
    #[cfg(unix)]
    #[test]
    fn a_socket_and_a_link_loop_are_told_apart_from_io_errors() {
        let d = root();
        let r = d.path();
        let _socket = std::os::unix::net::UnixListener::bind(r.join("01_CLIENTS/s.md")).unwrap();
        std::os::unix::fs::symlink("l2.md", r.join("01_CLIENTS/l1.md")).unwrap();
        std::os::unix::fs::symlink("l1.md", r.join("01_CLIENTS/l2.md")).unwrap();
        let reader = RootReader::for_root(r).unwrap();
        let socket = reader.read(Path::new("01_CLIENTS/s.md")).unwrap_err();
        assert!(
            matches!(socket, ReadError::NotRegular { kind: "a socket" }),
            "{socket:?}"
        );
        let walked = reader.read_walked_into(&r.join("01_CLIENTS/s.md"), false, &mut Vec::new());
        assert!(
            matches!(walked, Err(ReadError::NotRegular { .. })),
            "{walked:?}"
        );
        for path in [Path::new("01_CLIENTS/l1.md"), &r.join("01_CLIENTS/l2.md")] {
            let looped = reader.read(path).unwrap_err();
            assert!(matches!(looped, ReadError::LinkLoop), "{looped:?}");
        }
        let walked = reader.read_walked_into(&r.join("01_CLIENTS/l1.md"), true, &mut Vec::new());
        assert!(matches!(walked, Err(ReadError::LinkLoop)), "{walked:?}");
        assert!(
            ReadError::LinkLoop
                .to_string()
                .contains("symbolic link loop"),
            "{}",
            ReadError::LinkLoop
        );
    }

    /// A file over the size limit never reads as the limit's own size: a
    /// 16.2 MB file over a 16 MB limit was "16 MB, over the limit of 16 MB".
    #[test]
    fn a_size_over_the_limit_reads_as_more_than_the_limit() {
        const MB: u64 = 1 << 20;
        let said = |size: u64, limit: u64| ReadError::TooLarge { size, limit }.to_string();
        let tail = "per file (setting `max_file_mb`); it is not read";
        for (size, limit, want) in [
            (17_000_000, 16 * MB, "is 16.2 MB, over the limit of 16 MB"),
            (20 * MB, 16 * MB, "is 20 MB, over the limit of 16 MB"),
            (2 * MB, MB, "is 2 MB, over the limit of 1 MB"),
            (
                16 * MB + MB / 20 + 1,
                16 * MB,
                "is 16.05 MB, over the limit of 16 MB",
            ),
            (
                MB + 3 * MB / 10 + 1,
                MB,
                "is 1.3 MB, over the limit of 1 MB",
            ),
            // Too close to the limit for megabytes to show: in bytes.
            (
                16 * MB + 1,
                16 * MB,
                "is 16777217 bytes, over the limit of 16 MB (16777216 bytes)",
            ),
            (
                16 * MB + MB / 1000,
                16 * MB,
                "is 16778264 bytes, over the limit of 16 MB (16777216 bytes)",
            ),
        ] {
            assert_eq!(said(size, limit), format!("{want} {tail}"), "{size}");
        }
    }

    fn root() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir(d.path().join("01_CLIENTS")).unwrap();
        fs::write(d.path().join("01_CLIENTS/a.md"), "hello").unwrap();
        d
    }

    #[test]
    fn regular_files_inside_are_read() {
        let d = root();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        assert_eq!(r.read(Path::new("01_CLIENTS/a.md")).unwrap(), b"hello");
        assert_eq!(r.read(&d.path().join("01_CLIENTS/a.md")).unwrap(), b"hello");
        assert!(
            r.read(Path::new("01_CLIENTS/none.md"))
                .unwrap_err()
                .is_not_found()
        );
    }

    #[test]
    fn files_of_every_size_are_read_whole() {
        let d = root();
        // Empty, small, and larger than one read of the kernel's.
        for len in [0, 1, 4096, 3 * 1024 * 1024 + 7] {
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            fs::write(d.path().join("01_CLIENTS/sized.md"), &text).unwrap();
            let mut buf = b"left from the file before".to_vec();
            let n = read_regular_into(&d.path().join("01_CLIENTS/sized.md"), 1 << 30, &mut buf)
                .unwrap();
            assert_eq!(n, len);
            assert!(buf == text, "a file of {len} bytes");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_that_report_no_size_are_read_to_their_end() {
        let read = read_regular(Path::new("/proc/self/status"), 1 << 20).unwrap();
        assert!(String::from_utf8_lossy(&read).contains("Name:"));
    }

    #[test]
    fn parent_segments_are_refused() {
        let d = root();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        let e = r.read(Path::new("01_CLIENTS/../../x")).unwrap_err();
        assert_eq!(e.code(), "link-out");
    }

    #[test]
    fn files_over_the_cap_are_refused_with_their_size() {
        let d = root();
        fs::write(
            d.path().join("01_CLIENTS/big.md"),
            vec![b'x'; 3 * 1024 * 1024],
        )
        .unwrap();
        let policy = ReadPolicy {
            max_file_bytes: 1024 * 1024,
            ..ReadPolicy::default()
        };
        let r = RootReader::new(d.path(), policy).unwrap();
        let e = r.read(Path::new("01_CLIENTS/big.md")).unwrap_err();
        assert_eq!(e.code(), "too-large");
        assert!(e.to_string().contains("3 MB"), "{e}");
        assert!(e.to_string().contains("1 MB"), "{e}");
        assert!(e.to_string().contains("max_file_mb"), "{e}");
    }

    #[test]
    fn folders_are_not_files() {
        let d = root();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        let e = r.read(Path::new("01_CLIENTS")).unwrap_err();
        assert_eq!(e.code(), "not-regular");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = root();
        let fifo = d.path().join("01_CLIENTS/x.md");
        make_fifo(&fifo);
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        let e = r.read(Path::new("01_CLIENTS/x.md")).unwrap_err();
        assert_eq!(e.code(), "not-regular");
        assert!(e.to_string().contains("FIFO"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_root_are_refused_unless_allowed() {
        let d = root();
        let outside = link_to_a_secret_outside(&d.path().join("01_CLIENTS/s.md"));
        std::os::unix::fs::symlink(outside.path(), d.path().join("01_CLIENTS/dir")).unwrap();
        std::os::unix::fs::symlink("a.md", d.path().join("01_CLIENTS/alias.md")).unwrap();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        assert_eq!(
            r.read(Path::new("01_CLIENTS/s.md")).unwrap_err().code(),
            "link-out"
        );
        assert_eq!(
            r.read(Path::new("01_CLIENTS/dir/secret"))
                .unwrap_err()
                .code(),
            "link-out"
        );
        assert_eq!(r.read(Path::new("01_CLIENTS/alias.md")).unwrap(), b"hello");
        let said = r
            .read(Path::new("01_CLIENTS/s.md"))
            .unwrap_err()
            .to_string();
        assert!(said.contains("outside the bank;"), "{said}");
        let everos = RootReader::new(d.path(), ReadPolicy::default())
            .unwrap()
            .named("memory root");
        let said = everos
            .read(Path::new("01_CLIENTS/s.md"))
            .unwrap_err()
            .to_string();
        assert!(said.contains("outside the memory root;"), "{said}");
        let mut buf = Vec::new();
        let e = r
            .read_walked_into(&d.path().join("01_CLIENTS/s.md"), true, &mut buf)
            .unwrap_err();
        assert_eq!(e.code(), "link-out");

        let open = RootReader::new(
            d.path(),
            ReadPolicy {
                follow_links_out: true,
                ..ReadPolicy::default()
            },
        )
        .unwrap();
        assert_eq!(open.read(Path::new("01_CLIENTS/s.md")).unwrap(), b"key");
        assert_eq!(
            open.read(Path::new("01_CLIENTS/dir/secret")).unwrap(),
            b"key"
        );
    }

    /// Read `name` in `01_CLIENTS` as the bank's walk reads a regular
    /// file it found there: by name in the folder held open.
    #[cfg(unix)]
    fn read_by_name(r: &RootReader, d: &Path, name: &str) -> Result<Vec<u8>, ReadError> {
        let folder = d.join("01_CLIENTS");
        let dir = r.open_dir(&folder).expect("the folder opens");
        let mut buf = b"left from the file before".to_vec();
        r.read_walked_in(Some(&dir), &folder.join(name), false, &mut buf)?;
        Ok(buf)
    }

    #[cfg(unix)]
    #[test]
    fn files_read_by_name_are_whole_at_every_size_around_the_first_read() {
        let d = root();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        for len in [
            0,
            1,
            FIRST_READ - 1,
            FIRST_READ,
            FIRST_READ + 1,
            3 * FIRST_READ + 5,
        ] {
            let text: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            fs::write(d.path().join("01_CLIENTS/sized.md"), &text).unwrap();
            let read = read_by_name(&r, d.path(), "sized.md").unwrap();
            assert!(read == text, "a file of {len} bytes");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_cap_holds_for_files_read_by_name() {
        let d = root();
        fs::write(d.path().join("01_CLIENTS/ten.md"), "0123456789").unwrap();
        for (cap, fits) in [(9, false), (10, true), (11, true), (0, false)] {
            let r = RootReader::new(
                d.path(),
                ReadPolicy {
                    max_file_bytes: cap,
                    ..ReadPolicy::default()
                },
            )
            .unwrap();
            match read_by_name(&r, d.path(), "ten.md") {
                Ok(read) => {
                    assert!(fits, "cap {cap}: read {read:?}");
                    assert_eq!(read, b"0123456789");
                }
                Err(e) => {
                    assert!(!fits, "cap {cap}: {e}");
                    assert_eq!(e.code(), "too-large", "cap {cap}");
                }
            }
        }
    }

    // A file the walk saw can be swapped for something else before it is
    // opened by name; each kind is refused as when it was there all along.

    #[cfg(unix)]
    #[test]
    fn a_fifo_swapped_in_is_refused_even_with_text_waiting_in_it() {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt;
        let d = root();
        let fifo = d.path().join("01_CLIENTS/x.md");
        make_fifo(&fifo);
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        // No writer: a read would say "end of file", an empty article.
        let e = read_by_name(&r, d.path(), "x.md").unwrap_err();
        assert_eq!(e.code(), "not-regular", "{e}");
        assert!(e.to_string().contains("FIFO"), "{e}");
        // A writer with text waiting: a plain read would take it for the
        // file's content. Opened for both reading and writing, it does not
        // wait for a reader.
        let mut writer = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        writer.write_all(b"---\nclient: Injected\n---\n").unwrap();
        let e = read_by_name(&r, d.path(), "x.md").unwrap_err();
        assert_eq!(e.code(), "not-regular", "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_in_is_refused() {
        let d = root();
        fs::create_dir(d.path().join("01_CLIENTS/sub.md")).unwrap();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        let e = read_by_name(&r, d.path(), "sub.md").unwrap_err();
        assert_eq!(e.code(), "not-regular", "{e}");
        assert!(e.to_string().contains("folder"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_swapped_in_is_not_followed() {
        let d = root();
        let _outside = link_to_a_secret_outside(&d.path().join("01_CLIENTS/s.md"));
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        // The walk saw a regular file here: the link is refused at the open.
        assert!(read_by_name(&r, d.path(), "s.md").is_err());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_are_never_taken_in_one_read() {
        // Devices cannot be made without privileges; the system's own
        // stand for one swapped in: one that never ends and one that is
        // always empty are both left to the check on the open handle.
        for device in ["/dev/zero", "/dev/null"] {
            let file = File::open(device).unwrap();
            let mut buf = Vec::new();
            assert_eq!(
                read_small_at_once(&file, 1 << 20, &mut buf),
                None,
                "{device}"
            );
            let e = read_opened_into(file, 1 << 20, &mut buf).unwrap_err();
            assert_eq!(e.code(), "not-regular", "{device}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_even_when_links_out_are_allowed() {
        let d = root();
        std::os::unix::fs::symlink("/dev/zero", d.path().join("01_CLIENTS/z.md")).unwrap();
        let r = RootReader::new(d.path(), ReadPolicy::default()).unwrap();
        assert_eq!(
            r.read(Path::new("01_CLIENTS/z.md")).unwrap_err().code(),
            "link-out"
        );
        let open = RootReader::new(
            d.path(),
            ReadPolicy {
                follow_links_out: true,
                ..ReadPolicy::default()
            },
        )
        .unwrap();
        let e = open.read(Path::new("01_CLIENTS/z.md")).unwrap_err();
        assert_eq!(e.code(), "not-regular");
        assert!(e.to_string().contains("device"), "{e}");
        assert_eq!(
            read_regular(Path::new("/dev/zero"), 1024)
                .unwrap_err()
                .code(),
            "not-regular"
        );
    }
}
