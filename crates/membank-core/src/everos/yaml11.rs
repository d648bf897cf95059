//! How everos's YAML reader (PyYAML's `safe_load`, YAML 1.1) types a
//! plain, unquoted scalar. membank parses YAML 1.2, where `no`, `on` and
//! `2026-06-01` are text and `0o17` and `1e3` are numbers; everos reads
//! them the other way round, and its schemas refuse what is not text
//! where they want text.

use std::sync::LazyLock;

use regex::Regex;

/// The patterns of PyYAML's implicit resolvers, in the order it tries
/// them, each with what the value is to everos.
static RESOLVERS: LazyLock<[(Regex, &'static str); 4]> = LazyLock::new(|| {
    let re = |p: &str| Regex::new(p).expect("the YAML 1.1 patterns compile");
    [
        (
            re(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
            "a boolean",
        ),
        (
            re(
                r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
            ),
            "a whole number",
        ),
        (
            re(
                r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
            ),
            "a number",
        ),
        (
            re(
                r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
            ),
            "a date",
        ),
    ]
});

/// What everos reads the plain scalar `raw` as, when it is not text.
pub fn not_text(raw: &str) -> Option<&'static str> {
    RESOLVERS
        .iter()
        .find(|(re, _)| re.is_match(raw))
        .map(|(_, kind)| *kind)
}

/// The value written after `key:` on its line of the frontmatter `yaml`
/// (the last such line, whose value wins), without a trailing comment;
/// `None` when it is quoted, empty (a block below it) or not on one line.
pub fn plain_value<'a>(yaml: &'a str, key: &str) -> Option<&'a str> {
    let line = yaml.lines().rev().find(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })?;
    let value = line[key.len()..].trim_start().strip_prefix(':')?;
    let value = match value.find(" #") {
        Some(at) => &value[..at],
        None => value,
    }
    .trim();
    let structured = value.starts_with(['\'', '"', '[', '{', '|', '>', '&', '*', '!']);
    (!value.is_empty() && !structured).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scalars_are_typed_as_pyyaml_types_them() {
        for (raw, kind) in [
            ("no", Some("a boolean")),
            ("On", Some("a boolean")),
            ("y", None),
            ("7", Some("a whole number")),
            ("1_000", Some("a whole number")),
            ("017", Some("a whole number")),
            ("12:30", Some("a whole number")),
            ("0o17", None),
            ("1e3", None),
            ("1.5", Some("a number")),
            ("1.0e+3", Some("a number")),
            ("2026-06-01", Some("a date")),
            ("2026-06-01 09:00:00", Some("a date")),
            ("ep_log_u1", None),
            ("u1", None),
        ] {
            assert_eq!(not_text(raw), kind, "{raw}");
        }
    }

    #[test]
    fn the_plain_value_is_the_last_lines_and_quoted_ones_are_text() {
        let yaml = "id: a\nuser_id: 7 # an id\nid: no\nname: 'no'\nlist: [a]\n";
        assert_eq!(plain_value(yaml, "id"), Some("no"));
        assert_eq!(plain_value(yaml, "user_id"), Some("7"));
        assert_eq!(plain_value(yaml, "name"), None);
        assert_eq!(plain_value(yaml, "list"), None);
        assert_eq!(plain_value(yaml, "missing"), None);
    }
}
