//! New notes, drafted but not written: an article with the keys its folder
//! requires, and a quick capture into a bank's inbox or a Deja Vu
//! project's event ledger. Each is a [`FileFix`] that
//! [`crate::transaction::Transaction::commit_fixes`] writes; a path that
//! is taken is never overwritten (a capture picks the next free name).

use jiff::civil::Date;

use crate::bank::Bank;
use crate::fix::{Action, FileFix};
use crate::layout::Folder;
use crate::wikilink::fold;

/// What a new article's keys are filled from where they apply (the
/// interface's Context query, the command's flags).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    pub client: Option<String>,
    pub domain: Option<String>,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
}

/// The code a new note's fix carries.
pub const CODE: &str = "new";

/// A new article `name` in `folder` (a subfolder may lead the name:
/// `sub/Name`): the folder's required keys, each with the value the name,
/// `known` or `today` gives it, or empty for the author to fill (the
/// health check lists an empty key until then).
pub fn article(
    bank: &Bank,
    folder: Folder,
    name: &str,
    known: &Known,
    today: Date,
) -> Result<FileFix, String> {
    if folder == Folder::Templates {
        return Err("membank never writes the prompt templates".into());
    }
    let name = name.trim().trim_end_matches(".md").trim();
    let rel = format!("{}/{name}.md", folder.dir_name());
    let stem = name.rsplit('/').next().unwrap_or(name).trim();
    check_new_path(bank, &rel, stem)?;
    check_linked_names(known)?;
    let mut yaml = String::new();
    let (term_source, term_target) = match term_of_name(stem) {
        Some((s, t)) => (Some(s), Some(t)),
        None => (Some(stem), None),
    };
    let pair = match (&known.source_lang, &known.target_lang) {
        (Some(s), Some(t)) => Some(format!("{s} → {t}")),
        _ => None,
    };
    let mut keys: Vec<&str> = crate::health::required_keys(folder).to_vec();
    // Recommended keys the query fills are worth having too.
    if folder == Folder::Clients && known.domain.is_some() {
        keys.push("domains");
    }
    if folder == Folder::Terminology {
        keys.extend(["domain", "clients"].iter().filter(|k| match **k {
            "domain" => known.domain.is_some(),
            _ => known.client.is_some(),
        }));
    }
    if folder == Folder::Style && known.client.is_some() {
        keys.insert(1, "client");
    }
    for key in keys {
        let value = match key {
            "client" if folder == Folder::Clients => Some(quoted(stem)),
            "domain" if folder == Folder::Domains => Some(quoted(stem)),
            "client" => known.client.as_deref().map(quoted),
            "domain" => known.domain.as_deref().map(|d| quoted(&format!("[[{d}]]"))),
            "domains" => known
                .domain
                .as_deref()
                .map(|d| format!("[{}]", quoted(&format!("[[{d}]]")))),
            "clients" => known
                .client
                .as_deref()
                .map(|c| format!("[{}]", quoted(&format!("[[{c}]]")))),
            "languages" => pair.as_deref().map(|p| format!("[{}]", quoted(p))),
            "source_lang" => known.source_lang.as_deref().map(quoted),
            "target_lang" => known.target_lang.as_deref().map(quoted),
            "term_source" => term_source.map(quoted),
            "term_target" => term_target.map(quoted),
            "status" => Some(quoted("proposed")),
            "scope" if known.client.is_some() => Some(quoted("client")),
            "last_updated" => Some(today.to_string()),
            _ => None,
        };
        match value {
            Some(v) => yaml.push_str(&format!("{key}: {v}\n")),
            None => yaml.push_str(&format!("{key}:\n")),
        }
    }
    let text = if yaml.is_empty() {
        format!("# {stem}\n\n")
    } else {
        format!("---\n{yaml}---\n# {stem}\n\n")
    };
    // The name becomes the file's name, which travels with the bank too;
    // the refusal names the folder only, as the path would show the key.
    crate::secrets::refuse_each(&[("the note", &text), ("the note's file name", &rel)])
        .map_err(|reason| format!("{}: {reason}", folder.dir_name()))?;
    Ok(FileFix {
        path: rel,
        codes: vec![CODE],
        notes: vec!["a new note".into()],
        action: Action::Create {
            after: text.into_bytes(),
        },
    })
}

/// The client and domain given become `[[links]]` in the frontmatter: a
/// character that ends a name inside a link, or one no article's file name
/// may hold, would make a link that can never open anything.
fn check_linked_names(known: &Known) -> Result<(), String> {
    for (what, value) in [("client", &known.client), ("domain", &known.domain)] {
        let Some(value) = value else { continue };
        if value.trim().is_empty() {
            return Err(format!("the {what} needs a name"));
        }
        if let Some(c) = value
            .chars()
            .find(|c| "[]|#^\\/:".contains(*c) || c.is_control())
        {
            return Err(format!(
                "the {what} “{}”: a name with “{}” cannot be written in a link or a \
                 file name; give the name its article has",
                crate::text::sanitize_for_terminal(value, false),
                c.escape_default()
            ));
        }
    }
    Ok(())
}

/// A YAML double-quoted string.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A new note's path must be one the bank may hold, free, and give the
/// note a name no other file answers to (its links would be ambiguous).
/// The source and target terms a name such as `crossing → traversée`
/// gives (each trimmed), as a term article is named.
pub fn term_of_name(name: &str) -> Option<(&str, &str)> {
    name.split_once('→').map(|(s, t)| (s.trim(), t.trim()))
}

fn check_new_path(bank: &Bank, rel: &str, stem: &str) -> Result<(), String> {
    crate::pathsafe::validate(rel).map_err(|r| format!("{rel}: {}", r.reason))?;
    if stem.is_empty() {
        return Err(format!("{rel}: the note needs a name"));
    }
    if let Some(c) = stem.chars().find(|c| "[]|#^\\".contains(*c)) {
        return Err(format!(
            "{rel}: a name with “{c}” cannot be written in a link; choose another"
        ));
    }
    // A link's name is read trimmed: `[[ Legal]]` names `Legal`.
    if stem.starts_with(char::is_whitespace) {
        return Err(format!(
            "{rel}: a name starting with a space cannot be written in a link; choose another"
        ));
    }
    // The bank reads no file named like an example or a reserved file, so
    // an article written under such a name would never be seen.
    let file_name = rel.rsplit('/').next().unwrap_or(rel);
    if crate::layout::skip_reason(file_name).is_some() {
        return Err(format!(
            "{rel}: a file name starting with “_” is reserved (as _EXAMPLE_ files are), so \
             the bank would skip the article; choose a name without it"
        ));
    }
    if bank.root().join(rel).exists() {
        return Err(format!("{rel}: already exists; nothing is overwritten"));
    }
    let wanted = fold(&format!("{stem}.md"));
    if let Some(other) = bank
        .articles()
        .iter()
        .find(|a| fold(a.file_name()) == wanted)
    {
        return Err(format!(
            "{rel}: {} has that name already, so a link [[{stem}]] would become ambiguous; \
             choose another name",
            other.rel_path
        ));
    }
    Ok(())
}

/// How many words of a capture name its file.
const NAME_WORDS: usize = 6;
/// The longest name a capture's words give, in characters.
const NAME_CHARS: usize = 60;

/// A quick note dropped into the bank's inbox as `00_INBOX/<date> <first
/// words>.md`, the text as given; a name that is taken gets ` 2`, ` 3`…
pub fn capture(bank: &Bank, text: &str, today: Date) -> Result<FileFix, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the note is empty; nothing is written".into());
    }
    let words = first_words(text);
    let base = match words.is_empty() {
        true => format!("{today}"),
        false => format!("{today} {words}"),
    };
    let inbox = Folder::Inbox.dir_name();
    let body = format!("{text}\n");
    // The file's name is made of the text's first words with their
    // punctuation dropped, which can join a key the text held in pieces
    // (`AKIA.ABCD…`): the name is refused like the text, before any
    // message below could show it. The refusal names the folder only.
    crate::secrets::refuse_each(&[
        ("the note", &body),
        ("the note's file name", &format!("{inbox}/{base}.md")),
    ])
    .map_err(|reason| format!("{inbox}: {reason}"))?;
    let rel = (1..1000)
        .map(|n| match n {
            1 => format!("{inbox}/{base}.md"),
            n => format!("{inbox}/{base} {n}.md"),
        })
        .find(|rel| !bank.root().join(rel).exists())
        .ok_or_else(|| format!("{inbox}/{base}.md: every numbered name is taken"))?;
    crate::pathsafe::validate(&rel).map_err(|r| format!("{rel}: {}", r.reason))?;
    refuse_control_characters(&body).map_err(|reason| format!("{rel}: the note {reason}"))?;
    Ok(FileFix {
        path: rel,
        codes: vec![CODE],
        notes: vec!["a quick note for the inbox".into()],
        action: Action::Create {
            after: body.into_bytes(),
        },
    })
}

/// The first words of a text as a file name: letters, digits and inner
/// hyphens and apostrophes only, so the name is safe everywhere.
fn first_words(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        let word: String = word
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '\'')
            .collect();
        let word = word.trim_matches(['-', '\'']);
        if word.is_empty() {
            continue;
        }
        if out.chars().count() + word.chars().count() + 1 > NAME_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.split(' ').count() == NAME_WORDS {
            break;
        }
    }
    out
}

/// A Deja Vu event: one line `` - `date` - `tags` - text `` at the end of
/// `memory/events/<YYYY-MM>.md`, the ledger made with its heading when
/// the month has none. `ledger` is the month's file as it is now, if any.
pub fn event(
    text: &str,
    tags: &[String],
    today: Date,
    ledger: Option<Vec<u8>>,
) -> Result<FileFix, String> {
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return Err("the event is empty; nothing is written".into());
    }
    let month = format!("{:04}-{:02}", today.year(), today.month());
    let rel = format!("memory/events/{month}.md");
    // An empty tag (`--tags ""`, `a,,b`) says nothing and would leave
    // `, ,` in the ledger; what is left, or `note`, is written.
    let tags: Vec<&str> = tags
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .collect();
    let tags = match tags.is_empty() {
        true => "note".to_owned(),
        false => tags.join(", "),
    };
    let line = format!("- `{today}` - `{}` - {text}\n", tags.replace('`', "'"));
    refuse_control_characters(&line).map_err(|reason| format!("{rel}: the event {reason}"))?;
    // What the project's `check` reports as a credential, an assignment
    // such as `password: …` included, is refused as a writeback refuses
    // it: the ledger is shared memory.
    crate::dejavu::checks::safety::refuse_credentials(&[("the event", &line)])
        .map_err(|reason| format!("{rel}: {reason}"))?;
    let action = match ledger {
        None => Action::Create {
            after: format!("# Event Ledger {month}\n\n## Events\n\n{line}").into_bytes(),
        },
        Some(before) => {
            let mut after = before.clone();
            if !after.is_empty() && !after.ends_with(b"\n") {
                after.push(b'\n');
            }
            after.extend_from_slice(line.as_bytes());
            Action::Change { before, after }
        }
    };
    Ok(FileFix {
        path: rel,
        codes: vec![CODE],
        notes: vec!["an event line for the ledger".into()],
        action,
    })
}

/// Terminal escapes and other control characters in memory would reach
/// every tool and terminal that later shows it (writeback refuses them
/// too); tabs and line breaks are plain text.
fn refuse_control_characters(text: &str) -> Result<(), String> {
    match text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        Some(c) => Err(format!(
            "contains the control character U+{:04X}; memory is plain text, so nothing is \
             written",
            u32::from(c)
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn bank() -> (tempfile::TempDir, Bank) {
        let dir = tempfile::tempdir().unwrap();
        for f in Folder::ALL {
            fs::create_dir_all(dir.path().join(f.dir_name())).unwrap();
        }
        fs::write(
            dir.path().join("03_DOMAINS/Legal.md"),
            "---\ndomain: Legal\n---\n",
        )
        .unwrap();
        let bank = Bank::load(dir.path()).unwrap();
        (dir, bank)
    }

    fn created(fix: &FileFix) -> String {
        match &fix.action {
            Action::Create { after } => String::from_utf8(after.clone()).unwrap(),
            other => panic!("not a new file: {other:?}"),
        }
    }

    const TODAY: Date = jiff::civil::date(2026, 4, 8);

    #[test]
    fn a_term_gets_its_required_keys_from_its_name_and_the_query() {
        let (_dir, bank) = bank();
        let known = Known {
            client: Some("Acme".into()),
            domain: Some("Legal".into()),
            source_lang: Some("en-US".into()),
            target_lang: Some("de-DE".into()),
        };
        let fix = article(&bank, Folder::Terminology, "deed → Urkunde", &known, TODAY).unwrap();
        assert_eq!(fix.path, "02_TERMINOLOGY/deed → Urkunde.md");
        assert_eq!(
            created(&fix),
            "---\nlast_updated: 2026-04-08\nterm_source: \"deed\"\nterm_target: \"Urkunde\"\n\
             source_lang: \"en-US\"\ntarget_lang: \"de-DE\"\nstatus: \"proposed\"\n\
             domain: \"[[Legal]]\"\nclients: [\"[[Acme]]\"]\n---\n# deed → Urkunde\n\n"
        );
    }

    #[test]
    fn a_key_nothing_fills_is_left_empty_for_the_author() {
        let (_dir, bank) = bank();
        let fix = article(&bank, Folder::Clients, "Acme", &Known::default(), TODAY).unwrap();
        assert_eq!(
            created(&fix),
            "---\nlast_updated: 2026-04-08\nclient: \"Acme\"\nlanguages:\n---\n# Acme\n\n"
        );
    }

    #[test]
    fn a_client_or_domain_no_link_could_open_is_refused() {
        let (_dir, bank) = bank();
        for (client, domain, bad) in [
            (Some("O'Brien [UK]"), None, "["),
            (None, Some("Law: EU"), ":"),
            (None, Some("Tax|VAT"), "|"),
            (Some("   "), None, "needs a name"),
        ] {
            let known = Known {
                client: client.map(str::to_owned),
                domain: domain.map(str::to_owned),
                ..Known::default()
            };
            let err = article(&bank, Folder::Terminology, "it → het", &known, TODAY).unwrap_err();
            assert!(err.contains(bad), "{err}");
        }
        let fine = Known {
            client: Some("O'Brien & Sons (UK)".into()),
            ..Known::default()
        };
        assert!(article(&bank, Folder::Terminology, "it → het", &fine, TODAY).is_ok());
    }

    #[test]
    fn a_taken_or_shared_name_is_refused() {
        let (_dir, bank) = bank();
        let err = article(&bank, Folder::Domains, "Legal", &Known::default(), TODAY).unwrap_err();
        assert!(err.contains("already exists"), "{err}");
        let err = article(&bank, Folder::Style, "legal", &Known::default(), TODAY).unwrap_err();
        assert!(err.contains("ambiguous"), "{err}");
        let err = article(&bank, Folder::Templates, "x", &Known::default(), TODAY).unwrap_err();
        assert!(err.contains("templates"), "{err}");
    }

    #[test]
    fn a_name_the_bank_would_skip_is_refused() {
        let (_dir, bank) = bank();
        for name in ["_Acme", "_EXAMPLE_Acme", "sub/_Acme"] {
            let err = article(&bank, Folder::Clients, name, &Known::default(), TODAY).unwrap_err();
            assert!(err.contains("skip") && err.contains("“_”"), "{name}: {err}");
        }
        // An underscore inside the name is an ordinary name.
        assert!(
            article(
                &bank,
                Folder::Clients,
                "Acme_Corp",
                &Known::default(),
                TODAY
            )
            .is_ok()
        );
    }

    #[test]
    fn a_capture_is_named_by_date_and_first_words_and_never_overwrites() {
        let (dir, bank) = bank();
        let text = "Call Acme: the *deed* must say Urkunde, not Akte! And more words here";
        let fix = capture(&bank, text, TODAY).unwrap();
        assert_eq!(
            fix.path,
            "00_INBOX/2026-04-08 Call Acme the deed must say.md"
        );
        assert_eq!(created(&fix), format!("{text}\n"));
        fs::write(dir.path().join(&fix.path), "taken").unwrap();
        let again = capture(&bank, text, TODAY).unwrap();
        assert_eq!(
            again.path,
            "00_INBOX/2026-04-08 Call Acme the deed must say 2.md"
        );
        assert!(capture(&bank, "  \n", TODAY).is_err());
    }

    #[test]
    fn a_note_with_a_control_character_is_refused() {
        let day = Date::constant(2026, 6, 1);
        let e = event("x\u{1b}[31m", &[], day, None).unwrap_err();
        assert_eq!(
            e,
            "memory/events/2026-06.md: the event contains the control character U+001B; \
             memory is plain text, so nothing is written"
        );
        let e = event("fine", &["t\u{7}".into()], day, None).unwrap_err();
        assert!(e.contains("U+0007"), "{e}");
        let (_dir, bank) = bank();
        let e = capture(&bank, "call \u{1b}]0;x\u{7} back", day).unwrap_err();
        assert!(
            e.contains("the note contains the control character U+001B"),
            "{e}"
        );
        assert!(capture(&bank, "tabs\tand\nlines", day).is_ok());
    }

    /// The ledger is shared memory: whatever the project's `check` would
    /// call a credential is refused, never written and flagged after.
    #[test]
    fn an_event_holding_what_check_calls_a_credential_is_refused() {
        for text in [
            "deploy password: Sup3rS3cretPassw0rd99",
            "secret=ox9yimTcfipZGnzPbDFDyFKm",
            "api_key: sk-abcdefghijklmnopqrstuvwx",
            "token = 0123456789abcdefABCDEF",
            "key AKIAABCDEFGHIJKLMNOP",
        ] {
            let line = format!("- `2026-04-08` - `note` - {text}\n");
            assert!(
                crate::dejavu::checks::safety::scan(&line)
                    .iter()
                    .any(|h| h.severity == crate::health::Severity::Error),
                "check flags {text}"
            );
            let e = event(text, &[], TODAY, None).unwrap_err();
            assert!(
                e.starts_with("memory/events/2026-04.md: the event holds what looks like "),
                "{e}"
            );
            let secret = text.split([' ', '=']).next_back().unwrap();
            assert!(!e.contains(secret), "{e}");
        }
        let e = event("key AKIAABCDEFGHIJKLMNOP", &[], TODAY, None).unwrap_err();
        assert!(e.contains("holds what looks like an AWS access key"), "{e}");
        assert!(event("the password: field stays empty", &[], TODAY, None).is_ok());
    }

    /// A capture's file name is made of its first words: a key split by
    /// punctuation in the text is whole in the name, which is refused too.
    #[test]
    fn a_capture_whose_file_name_would_hold_a_key_is_refused() {
        let (_dir, bank) = bank();
        let e = capture(&bank, "key AKIA.ABCD.EFGH.IJKL.MNOP rotated", TODAY).unwrap_err();
        assert!(
            e.contains("the note's file name holds what looks like an AWS access key"),
            "{e}"
        );
        assert!(!e.contains("AKIAABCD"), "{e}");
        // Nor does the refusal of a key in the text show it in the path.
        let e = capture(&bank, "key AKIAABCDEFGHIJKLMNOP", TODAY).unwrap_err();
        assert!(
            e.starts_with("00_INBOX: the note holds what looks like"),
            "{e}"
        );
        assert!(!e.contains("AKIAABCD"), "{e}");
        // A control character in the same text is not the first refusal
        // either: that message names the path, which would show the key.
        let e = capture(&bank, "key AKIAABCDEFGHIJKLMNOP \u{1}", TODAY).unwrap_err();
        assert!(!e.contains("AKIAABCD"), "{e}");
        let e = article(
            &bank,
            Folder::Domains,
            "AKIAABCDEFGHIJKLMNOP",
            &Known::default(),
            TODAY,
        )
        .unwrap_err();
        assert!(!e.contains("AKIAABCD"), "{e}");
    }

    #[test]
    fn an_event_is_one_line_at_the_end_of_the_months_ledger() {
        let fix = event("Fixed  the\nsync", &[], TODAY, None).unwrap();
        assert_eq!(fix.path, "memory/events/2026-04.md");
        assert_eq!(
            created(&fix),
            "# Event Ledger 2026-04\n\n## Events\n\n- `2026-04-08` - `note` - Fixed the sync\n"
        );
        let fix = event("x", &["sync".into()], TODAY, Some(b"# L\n- a".to_vec())).unwrap();
        let Action::Change { after, .. } = fix.action else {
            panic!("not a change")
        };
        assert_eq!(after, b"# L\n- a\n- `2026-04-08` - `sync` - x\n");
    }

    #[test]
    fn empty_tags_are_dropped_and_none_left_is_the_default_tag() {
        let line = |tags: &[&str]| {
            let tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
            created(&event("x", &tags, TODAY, None).unwrap())
                .lines()
                .last()
                .unwrap()
                .to_owned()
        };
        assert_eq!(line(&[""]), "- `2026-04-08` - `note` - x");
        assert_eq!(line(&["", "", "", ""]), "- `2026-04-08` - `note` - x");
        assert_eq!(
            line(&[" sync ", "", "settings"]),
            "- `2026-04-08` - `sync, settings` - x"
        );
    }
}
