//! Project-relative paths: lexical resolution that never leaves the
//! project, and which paths the protocol keeps private.

/// Folders under `memory/` the protocol recommends keeping out of the repo.
pub const PRIVATE_DIRS: [&str; 4] = [
    "memory/private/",
    "memory/local/",
    "memory/raw/",
    "memory/transcripts/",
];

/// The ignore patterns recommended for private memory.
pub const PRIVATE_PATTERNS: [&str; 5] = [
    "memory/private/",
    "memory/local/",
    "memory/raw/",
    "memory/transcripts/",
    "memory/**/*.secret.*",
];

/// Private memory: shown as such, never sent to a model. Letter case is
/// ignored: git on macOS and Windows ignores it by default, so there
/// `memory/Private/` and `x.SECRET.md` are kept out of the repository by the
/// recommended patterns and their authors take them for private.
pub fn is_private(path: &str) -> bool {
    // As written or as it leads: `./memory/private/x.md`,
    // `memory//private/x.md` and `memory/decisions/../private/x.md` are
    // all the private file.
    let path = resolve_from("", &path.replace('\\', "/"))
        .unwrap_or_else(|| path.to_owned())
        .to_lowercase();
    if PRIVATE_DIRS.iter().any(|d| path.starts_with(d)) {
        return true;
    }
    // `memory/**/*.secret.*` matches a file, or a folder and all inside it.
    match path.strip_prefix("memory/") {
        Some(rest) => rest.split('/').any(|seg| seg.contains(".secret.")),
        None => false,
    }
}

/// The folder part of a project-relative path (`""` for the project).
pub fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// Resolve `target` against the project-relative folder `base`, lexically.
/// `None` when it is absolute or climbs out of the project.
pub fn resolve_from(base: &str, target: &str) -> Option<String> {
    if target.starts_with('/') || target.starts_with('\\') || is_drive_path(target) {
        return None;
    }
    let mut parts: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// A route as a person reads it: the reference scan reports a
/// `record_path` that leaves the project like any other, so it is marked
/// where it is shown, lest it look as if it were read.
pub fn route_for_display(record_path: &str) -> String {
    if resolve_from("", record_path).is_some() {
        record_path.to_owned()
    } else {
        format!("{record_path} (outside the project: never read)")
    }
}

fn is_drive_path(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// The reference's `record_path must stay inside the project` test:
/// `path.resolve(projectRoot, p)` equal to the root or below it. A path may
/// leave and come back (`../proj/memory/x.md` from `proj`) and still count.
/// `project_abs` is the project's absolute path, `/`-separated. Returns the
/// project-relative path it lands on, or `None` outside.
pub fn reference_resolve(project_abs: &str, record_path: &str) -> Option<String> {
    let root: Vec<&str> = project_abs.split('/').filter(|s| !s.is_empty()).collect();
    let mut parts: Vec<&str> = if record_path.starts_with('/') {
        Vec::new()
    } else {
        root.clone()
    };
    for seg in record_path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    (parts.len() >= root.len() && parts[..root.len()] == root[..])
        .then(|| parts[root.len()..].join("/"))
}

/// Decode `%XX` escapes in a link target; invalid escapes stay as written.
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// `path` written relative to the folder `from` (both project-relative), as
/// a Markdown link from a file in `from` would spell it.
pub fn relative_link(from: &str, path: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let to: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = vec![".."; from.len() - common];
    out.extend(&to[common..]);
    let joined = out.join("/");
    if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_out_of_the_project_are_marked() {
        assert_eq!(
            route_for_display("memory/decisions/a.md"),
            "memory/decisions/a.md"
        );
        for out in [
            "../../etc/passwd",
            "/etc/passwd",
            "C:/x.md",
            "memory/../../x",
        ] {
            assert_eq!(
                route_for_display(out),
                format!("{out} (outside the project: never read)")
            );
        }
    }

    #[test]
    fn private_paths_are_read_as_they_lead() {
        for p in [
            "./memory/private/plans.md",
            "memory//private/plans.md",
            "memory/decisions/../private/plans.md",
            "memory\\private\\plans.md",
        ] {
            assert!(is_private(p), "{p}");
        }
        assert!(!is_private("memory/private/../decisions/x.md"));
    }

    #[test]
    fn private_paths() {
        assert!(is_private("memory/private/x.md"));
        assert!(is_private("memory/transcripts/2026/a.txt"));
        assert!(is_private("memory/decisions/key.secret.md"));
        assert!(is_private("memory/a.secret.d/x.md"));
        assert!(!is_private("memory/decisions/secret.md"));
        assert!(!is_private("memory/privateer.md"));
    }

    #[test]
    fn private_paths_ignore_letter_case() {
        assert!(is_private("memory/Private/x.md"));
        assert!(is_private("memory/LOCAL/notes.md"));
        assert!(is_private("memory/decisions/y.SECRET.md"));
        assert!(is_private("Memory/private/x.md"));
        assert!(!is_private("memory/Decisions/y.md"));
    }

    #[test]
    fn resolution_never_leaves_the_project() {
        assert_eq!(
            resolve_from("memory/decisions", "../summary.md").as_deref(),
            Some("memory/summary.md")
        );
        assert_eq!(resolve_from("memory", "../../etc/passwd"), None);
        assert_eq!(resolve_from("memory", "/etc/passwd"), None);
        assert_eq!(
            resolve_from("", "memory/./x.md").as_deref(),
            Some("memory/x.md")
        );
    }

    #[test]
    fn the_reference_inside_test_is_lexical() {
        let r = |p| reference_resolve("/w/proj", p);
        assert_eq!(r("memory/x.md").as_deref(), Some("memory/x.md"));
        assert_eq!(r("../proj/memory/x.md").as_deref(), Some("memory/x.md"));
        assert_eq!(r("").as_deref(), Some(""));
        assert_eq!(r("../../etc"), None);
        assert_eq!(r("../projx/a"), None);
        assert_eq!(r("/etc/passwd"), None);
        assert_eq!(r("/w/proj/AGENTS.md").as_deref(), Some("AGENTS.md"));
    }

    #[test]
    fn decoding_and_relative_links() {
        assert_eq!(percent_decode("a%20b%zz%2"), "a b%zz%2");
        assert_eq!(
            relative_link("memory", "memory/decisions/a.md"),
            "./decisions/a.md"
        );
        assert_eq!(
            relative_link("memory/open-loops", "memory/summary.md"),
            "../summary.md"
        );
    }
}
