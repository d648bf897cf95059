//! Language codes (BCP 47) as written in frontmatter.

/// A plausible BCP 47 tag: a 2–3 letter language, then optional extlang,
/// script, region, variants, extensions and private use, joined by `-`.
/// Stricter than the grammar on purpose: 4–8 letter primary subtags are
/// syntactically allowed but no registered language uses one, and in a bank
/// they are always a language *name* such as `English`.
pub fn is_plausible_language_tag(tag: &str) -> bool {
    common_shape(tag) || by_parts(tag)
}

/// `en`, `nld` or `nl-BE`: the shapes nearly every tag in a bank has,
/// answered without splitting it into an array of parts first (an
/// allocation per tag of every article). Each is a tag [`by_parts`] takes.
fn common_shape(tag: &str) -> bool {
    let language = |p: &[u8]| (2..=3).contains(&p.len()) && p.iter().all(u8::is_ascii_alphabetic);
    let bytes = tag.as_bytes();
    match memchr::memchr(b'-', bytes) {
        None => language(bytes),
        Some(i) => {
            let region = &bytes[i + 1..];
            language(&bytes[..i]) && region.len() == 2 && region.iter().all(u8::is_ascii_alphabetic)
        }
    }
}

fn by_parts(tag: &str) -> bool {
    let parts: Vec<&str> = tag.split('-').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || p.len() > 8 || !p.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        return false;
    }
    let alpha = |p: &str| p.bytes().all(|b| b.is_ascii_alphabetic());
    let digit = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if parts[0].eq_ignore_ascii_case("x") {
        return parts.len() > 1;
    }
    if !(2..=3).contains(&parts[0].len()) || !alpha(parts[0]) {
        return false;
    }
    let mut i = 1;
    let mut extlangs = 0;
    while i < parts.len() && parts[i].len() == 3 && alpha(parts[i]) && extlangs < 3 {
        extlangs += 1;
        i += 1;
    }
    if i < parts.len() && parts[i].len() == 4 && alpha(parts[i]) {
        i += 1;
    }
    if i < parts.len()
        && ((parts[i].len() == 2 && alpha(parts[i])) || (parts[i].len() == 3 && digit(parts[i])))
    {
        i += 1;
    }
    while i < parts.len()
        && (parts[i].len() >= 5 || (parts[i].len() == 4 && parts[i].as_bytes()[0].is_ascii_digit()))
    {
        i += 1;
    }
    while i < parts.len() && parts[i].len() == 1 {
        let private = parts[i].eq_ignore_ascii_case("x");
        let min = if private { 1 } else { 2 };
        let start = i + 1;
        let mut end = start;
        while end < parts.len() && parts[end].len() >= min && (private || parts[end].len() > 1) {
            end += 1;
        }
        if end == start {
            return false;
        }
        i = end;
        if private {
            return i == parts.len();
        }
    }
    i == parts.len()
}

/// Language names people write instead of a code, with the code.
const NAMES: [(&str, &str); 16] = [
    ("English", "en"),
    ("Dutch", "nl"),
    ("Flemish", "nl-BE"),
    ("German", "de"),
    ("French", "fr"),
    ("Spanish", "es"),
    ("Italian", "it"),
    ("Portuguese", "pt"),
    ("Norwegian", "no (or nb / nn)"),
    ("Swedish", "sv"),
    ("Danish", "da"),
    ("Finnish", "fi"),
    ("Polish", "pl"),
    ("Japanese", "ja"),
    ("Chinese", "zh"),
    ("Russian", "ru"),
];

/// The code for an underscored code (`en_US`) or a language name
/// (`English`), when there is exactly one; `None` leaves it to the author.
pub(crate) fn fixed_language_tag(tag: &str) -> Option<String> {
    if tag.contains('_') {
        let fixed = tag.replace('_', "-");
        return is_plausible_language_tag(&fixed).then_some(fixed);
    }
    let lower = tag.trim().to_lowercase();
    NAMES
        .iter()
        .find(|(name, _)| name.to_lowercase() == lower)
        .map(|(_, code)| *code)
        // Norwegian has more than one code; the author picks.
        .filter(|code| is_plausible_language_tag(code))
        .map(str::to_owned)
}

/// A code as typed (`en_us`, `NL-be`, `Dutch`) in the form a bank writes
/// it: hyphens, the language in lower case, a region in upper case, a
/// script in title case (`en-US`, `nl-BE`, `zh-Hant-TW`); `None` when it
/// is no code and names no one language.
pub fn normalised_language_tag(typed: &str) -> Option<String> {
    let typed = typed.trim();
    let tag = match is_plausible_language_tag(typed) {
        true => typed.to_owned(),
        false => fixed_language_tag(typed)?,
    };
    let mut private = false;
    let parts: Vec<String> = tag
        .split('-')
        .enumerate()
        .map(|(i, part)| {
            private |= part.eq_ignore_ascii_case("x");
            let alpha = part.bytes().all(|b| b.is_ascii_alphabetic());
            match (i, part.len()) {
                (i, 2) if i > 0 && alpha && !private => part.to_ascii_uppercase(),
                (i, 4) if i > 0 && alpha && !private => {
                    let lower = part.to_ascii_lowercase();
                    lower[..1].to_ascii_uppercase() + &lower[1..]
                }
                _ => part.to_ascii_lowercase(),
            }
        })
        .collect();
    let tag = parts.join("-");
    is_plausible_language_tag(&tag).then_some(tag)
}

/// A concrete suggestion for a common mistake, if one applies.
pub(super) fn language_hint(tag: &str) -> Option<String> {
    if tag.contains('_') {
        let fixed = tag.replace('_', "-");
        if is_plausible_language_tag(&fixed) {
            return Some(format!("Use a hyphen, not an underscore: {fixed}."));
        }
    }
    let lower = tag.trim().to_lowercase();
    NAMES
        .iter()
        .find(|(name, _)| name.to_lowercase() == lower)
        .map(|(name, code)| format!("Write the code, not the language name: {code} for {name}."))
}

#[cfg(test)]
mod tests {

    #[test]
    fn typed_codes_are_written_in_the_usual_case() {
        let norm = |t: &str| normalised_language_tag(t);
        assert_eq!(norm("en_us").as_deref(), Some("en-US"));
        assert_eq!(norm("NL-be").as_deref(), Some("nl-BE"));
        assert_eq!(norm(" de ").as_deref(), Some("de"));
        assert_eq!(norm("zh-hant-tw").as_deref(), Some("zh-Hant-TW"));
        assert_eq!(norm("Flemish").as_deref(), Some("nl-BE"));
        assert_eq!(norm("es-419").as_deref(), Some("es-419"));
        assert_eq!(norm("en-x-ab").as_deref(), Some("en-x-ab"));
        assert_eq!(norm("Norwegian"), None);
        assert_eq!(norm("Klingonese"), None);
    }

    use super::*;

    /// The quick shapes are tags the full grammar takes, and the answer is
    /// the grammar's on tags of every shape.
    #[test]
    fn common_shapes_are_plausible_tags() {
        let pieces = [
            "en", "nl", "BE", "x", "-", "e", "eng", "Latn", "419", "1996", "é", "US", "a1",
        ];
        let mut common = 0;
        for tag in crate::random_text::joined(&pieces, 5, 0x9E37_79B9_7F4A_7C15).take(20_000) {
            if common_shape(&tag) {
                common += 1;
                assert!(by_parts(&tag), "{tag:?}");
            }
            assert_eq!(is_plausible_language_tag(&tag), by_parts(&tag), "{tag:?}");
        }
        assert!(common > 100, "{common}");
        for tag in ["en", "nld", "nl-BE", "pt-br"] {
            assert!(common_shape(tag), "{tag}");
        }
        for tag in [
            "", "e", "English", "en-", "-BE", "en-BEL", "nl-B1", "é-BE", "en-US-x",
        ] {
            assert!(!common_shape(tag), "{tag}");
        }
    }
}
