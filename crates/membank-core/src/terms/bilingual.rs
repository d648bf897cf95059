//! Segments of the files translators work in: XLIFF 1.2 (with Trados
//! `.sdlxliff` `mrk` segments and memoQ `.mqxliff` states), XLIFF 2.x,
//! TMX and plain text (one segment a line, `source<TAB>target` for two
//! languages). Inline tags add nothing to the text; the native code inside
//! placeholders is left out. The file is only read.

use serde::Serialize;

use super::xml::{self, Element, Node, collapse};

/// One segment: its id as the file gives it, its texts, and whether its
/// target counts as translated (a draft or an empty target does not).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Segment {
    pub id: String,
    pub source: String,
    pub target: String,
    pub translated: bool,
    /// The languages of its XLIFF `<file>`, when the file's `<file>`s do
    /// not all name the same ones (else the file's languages are its).
    #[serde(skip)]
    pub langs: Option<Langs>,
    /// Its XLIFF `<file>`'s `original` (or `id`), when the file has more
    /// than one `<file>`: ids start again in each, so the id alone does
    /// not say which segment it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

/// A source and a target language, either of which may be unnamed.
pub type Langs = (Option<String>, Option<String>);

/// A segment's id, after its `<file>` when it needs one: `a.docx › 3`.
pub fn label(file: Option<&str>, id: &str) -> String {
    match file {
        Some(f) => format!("{f} › {id}"),
        None => id.to_owned(),
    }
}

impl Segment {
    /// Its id, after its `<file>` when the file has several.
    pub fn label(&self) -> String {
        label(self.file.as_deref(), &self.id)
    }

    /// Its source and target languages: its own, or else `file`'s.
    pub fn pair<'a>(&'a self, file: &'a BilingualFile) -> (Option<&'a str>, Option<&'a str>) {
        match &self.langs {
            Some((s, t)) => (s.as_deref(), t.as_deref()),
            None => (file.source_lang.as_deref(), file.target_lang.as_deref()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BilingualFile {
    /// `xliff-1.2`, `sdlxliff`, `mqxliff`, `xliff-2`, `tmx` or `text`.
    pub kind: &'static str,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
    pub segments: Vec<Segment>,
}

/// Inline elements whose content is native code, not text.
const CODE_1_2: [&str; 5] = ["ph", "bpt", "ept", "it", "sub"];
const CODE_2: [&str; 4] = ["ph", "sc", "ec", "cp"];
const CODE_TMX: [&str; 5] = ["bpt", "ept", "ph", "it", "ut"];

/// Text of an XLIFF 1.2 `source` or `target`: placeholders' native code
/// and content marked not to translate (`mrk mtype="protected"`, which
/// Trados and memoQ use for locked content) left out, and so is text a
/// Trados tracked change deletes (`mrk mtype="x-sdl-deleted"`): it is no
/// longer part of the segment, while added text (`x-sdl-added`) is.
fn text_1_2(e: &Element) -> String {
    collapse(&e.text_without(&|c: &Element| {
        CODE_1_2.contains(&c.name.as_str())
            || (c.name == "mrk" && matches!(c.attr("mtype"), Some("protected" | "x-sdl-deleted")))
            || c.attr("translate") == Some("no")
    }))
}

/// Text of an XLIFF 2 `source` or `target`, without native code and
/// content not to translate: `mrk translate="no"`, and the split form
/// of it, the text between `<sm id="m1" translate="no"/>` and
/// `<em startRef="m1"/>` (empty markers, so the text is their siblings',
/// and a span may cross the end of a `pc`).
fn text_2(e: &Element) -> String {
    let mut out = String::new();
    push_text_2(e, &mut Vec::new(), &mut out);
    collapse(&out)
}

/// [`text_2`]'s walk; `not_to_translate` holds the ids of the `sm` spans
/// not to translate that are open at this point of the document.
fn push_text_2(e: &Element, not_to_translate: &mut Vec<String>, out: &mut String) {
    for n in &e.children {
        match n {
            Node::Text(t) => {
                if not_to_translate.is_empty() {
                    out.push_str(t);
                }
            }
            Node::Element(c) => match c.name.as_str() {
                "sm" => {
                    if c.attr("translate") == Some("no") {
                        not_to_translate.push(c.attr("id").unwrap_or("").to_owned());
                    }
                }
                "em" => {
                    let start = c.attr("startRef").unwrap_or("");
                    not_to_translate.retain(|id| id != start);
                }
                name if CODE_2.contains(&name) || c.attr("translate") == Some("no") => {}
                _ => push_text_2(c, not_to_translate, out),
            },
        }
    }
}

/// The elements named `name` under `e` that are to be translated: a
/// `translate="no"` on an ancestor (a `<group>`, a `<file>`) holds for
/// everything inside it that does not say `translate="yes"`.
fn translatable<'a>(e: &'a Element, name: &str, no: bool, out: &mut Vec<&'a Element>) {
    for c in e.elements() {
        let no = match c.attr("translate") {
            Some("no") => true,
            Some("yes") => false,
            _ => no,
        };
        if c.name == name {
            if !no {
                out.push(c);
            }
        } else {
            translatable(c, name, no, out);
        }
    }
}

/// An XLIFF that names no target language for some of its segments, and
/// no pair was given: checked anyway, it would be held against every pair
/// the bank has (a Dutch term missing from a German translation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoTargetLanguage;

impl BilingualFile {
    /// Take `pair` (source, target) as the pair of every part of the file
    /// when given; without it, refuse an XLIFF with segments in no named
    /// target language. Each front end words the refusal its own way (a
    /// flag on the command line, a word typed in the interface).
    pub fn settle_pair(&mut self, pair: Option<(String, String)>) -> Result<(), NoTargetLanguage> {
        let Some((source, target)) = pair else {
            let xliff = matches!(self.kind, "xliff-1.2" | "sdlxliff" | "mqxliff" | "xliff-2");
            if xliff && self.segments.iter().any(|s| s.pair(self).1.is_none()) {
                return Err(NoTargetLanguage);
            }
            return Ok(());
        };
        self.source_lang = Some(source);
        self.target_lang = Some(target);
        for seg in &mut self.segments {
            seg.langs = None;
        }
        Ok(())
    }
}

/// The segments of `text` (`name` says which file, for the kind).
pub fn read(name: &str, text: &str) -> Result<BilingualFile, String> {
    read_with(name, text, None, None)
}

/// [`read`], where a TMX's `tuv`s are picked by language: by `pair`
/// (source, target) when given; else by the language its header names;
/// else, when it says `*all*`, by `usual_source` (the language the bank's
/// terms share), and only then by the first unit's order.
pub fn read_with(
    name: &str,
    text: &str,
    pair: Option<(&str, &str)>,
    usual_source: Option<&str>,
) -> Result<BilingualFile, String> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    if !text.trim_start().starts_with('<') {
        // Read as lines, an XLIFF or TMX in an encoding not told apart
        // would pass the check with nothing checked.
        if let Some(ext) = xml_extension(name)
            && !text.trim().is_empty()
        {
            return Err(format!(
                "named .{ext} but is not XML (it does not start with `<`): \
                 an XLIFF or TMX file, saved as UTF-8 or UTF-16, is expected"
            ));
        }
        return Ok(read_text(text));
    }
    let root = xml::parse(text)?;
    match root.name.as_str() {
        "xliff" => {
            let version = root.attr("version").unwrap_or("1.2");
            if version.starts_with('2') {
                Ok(read_xliff2(&root))
            } else {
                Ok(read_xliff1(name, &root))
            }
        }
        "tmx" => Ok(read_tmx(&root, pair, usual_source)),
        other => Err(format!(
            "not a bilingual file this reads: its root element is <{other}> \
             (XLIFF 1.2, XLIFF 2, TMX or plain text are read)"
        )),
    }
}

/// The extension of a file name that promises XML.
fn xml_extension(name: &str) -> Option<&str> {
    let (_, ext) = name.rsplit_once('.')?;
    ["xlf", "xliff", "sdlxliff", "mqxliff", "tmx"]
        .iter()
        .any(|x| ext.eq_ignore_ascii_case(x))
        .then_some(ext)
}

fn read_text(text: &str) -> BilingualFile {
    let segments = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let (source, target) = l.split_once('\t').unwrap_or((l, ""));
            let target = collapse(target);
            Segment {
                id: (i + 1).to_string(),
                source: collapse(source),
                translated: !target.is_empty(),
                target,
                langs: None,
                file: None,
            }
        })
        .collect();
    BilingualFile {
        kind: "text",
        source_lang: None,
        target_lang: None,
        segments,
    }
}

/// A 1.2 `target` state that says the text is not yet a translation.
fn untranslated_state(state: &str) -> bool {
    matches!(
        state,
        "new" | "needs-translation" | "needs-l10n" | "needs-adaptation"
    )
}

fn read_xliff1(name: &str, root: &Element) -> BilingualFile {
    let lower = name.to_ascii_lowercase();
    let mut kind = if lower.ends_with(".sdlxliff") {
        "sdlxliff"
    } else if lower.ends_with(".mqxliff") {
        "mqxliff"
    } else {
        "xliff-1.2"
    };
    let mut files = Vec::new();
    root.descendants("file", &mut files);
    let langs_of = |f: &Element| {
        (
            f.attr("source-language").map(str::to_owned),
            f.attr("target-language").map(str::to_owned),
        )
    };
    let all_langs: Vec<_> = files.iter().map(|f| langs_of(f)).collect();
    // One pair for the whole file when its `<file>`s agree; else each
    // segment is checked against its own `<file>`'s.
    let shared = all_langs.windows(2).all(|w| w[0] == w[1]);
    let (source_lang, target_lang) = match (shared, all_langs.first()) {
        (true, Some(l)) => l.clone(),
        _ => (None, None),
    };
    let mut units: Vec<(&Element, Option<Langs>, Option<String>)> = Vec::new();
    if files.is_empty() {
        let mut found = Vec::new();
        translatable(root, "trans-unit", false, &mut found);
        units.extend(found.into_iter().map(|u| (u, None, None)));
    }
    for (f, langs) in files.iter().zip(all_langs) {
        let mut found = Vec::new();
        let no = f.attr("translate") == Some("no");
        translatable(f, "trans-unit", no, &mut found);
        let langs = (!shared).then_some(langs);
        let part = (files.len() > 1).then(|| part_name(f));
        units.extend(found.into_iter().map(|u| (u, langs.clone(), part.clone())));
    }
    let mut segments = Vec::new();
    for (tu, langs, part) in units {
        let first_new = segments.len();
        let id = tu.attr("id").unwrap_or("").to_owned();
        // A `seg-source` without `mrk mtype="seg"` segments nothing: the
        // unit's `source` and `target` are its one segment.
        if let Some(seg_source) = tu.child("seg-source")
            && has_seg_marks(seg_source)
        {
            kind = if kind == "xliff-1.2" {
                "sdlxliff"
            } else {
                kind
            };
            sdl_segments(tu, seg_source, &mut segments);
            for seg in &mut segments[first_new..] {
                seg.langs = langs.clone();
                seg.file = part.clone();
            }
            continue;
        }
        let source = tu.child("source").map(text_1_2).unwrap_or_default();
        let target_el = tu.child("target");
        let target = target_el.map(text_1_2).unwrap_or_default();
        let mut translated = !target.is_empty();
        if let Some(state) = target_el.and_then(|t| t.attr("state"))
            && untranslated_state(state)
        {
            translated = false;
        }
        if let Some(status) = tu.attr("mq:status").or_else(|| tu.attr("status")) {
            kind = "mqxliff";
            if matches!(status, "NotStarted" | "PartiallyEdited" | "") {
                translated = false;
            }
        }
        segments.push(Segment {
            id,
            source,
            target,
            translated,
            langs,
            file: part.clone(),
        });
    }
    BilingualFile {
        kind,
        source_lang,
        target_lang,
        segments,
    }
}

/// The `mrk mtype="seg"` segments of a Trados unit, with the confirmation
/// level of `sdl:seg-defs`.
fn sdl_segments(tu: &Element, seg_source: &Element, out: &mut Vec<Segment>) {
    let mut marks = Vec::new();
    seg_marks(seg_source, &mut marks);
    let mut target_marks = Vec::new();
    if let Some(t) = tu.child("target") {
        seg_marks(t, &mut target_marks);
    }
    let mut defs = Vec::new();
    tu.descendants("seg", &mut defs);
    for m in marks {
        let mid = m.attr("mid").unwrap_or("").to_owned();
        let def = defs.iter().find(|d| d.attr("id") == Some(mid.as_str()));
        // A locked segment is not to be translated: Trados keeps it as is.
        if def.and_then(|d| d.attr("locked")) == Some("true") {
            continue;
        }
        let source = text_1_2(m);
        let target = target_marks
            .iter()
            .find(|t| t.attr("mid") == Some(mid.as_str()))
            .map(|t| text_1_2(t))
            .unwrap_or_default();
        let conf = def.and_then(|d| d.attr("conf"));
        let translated = !target.is_empty()
            && match conf {
                Some(c) => matches!(c, "Translated" | "ApprovedTranslation" | "ApprovedSignOff"),
                None => defs.is_empty(),
            };
        out.push(Segment {
            id: mid,
            source,
            target,
            translated,
            langs: None,
            file: None,
        });
    }
}

/// What names a `<file>`: its `original` (the document it came from), or
/// else its `id`.
fn part_name(f: &Element) -> String {
    f.attr("original")
        .or_else(|| f.attr("id"))
        .unwrap_or("")
        .to_owned()
}

fn has_seg_marks(e: &Element) -> bool {
    let mut marks = Vec::new();
    seg_marks(e, &mut marks);
    !marks.is_empty()
}

fn seg_marks<'a>(e: &'a Element, out: &mut Vec<&'a Element>) {
    for c in e.elements() {
        if c.name == "mrk" && c.attr("mtype") == Some("seg") {
            out.push(c);
        } else {
            seg_marks(c, out);
        }
    }
}

fn read_xliff2(root: &Element) -> BilingualFile {
    let source_lang = root.attr("srcLang").map(str::to_owned);
    let target_lang = root.attr("trgLang").map(str::to_owned);
    let files: Vec<&Element> = root.children_named("file").collect();
    let mut units: Vec<(&Element, Option<String>)> = Vec::new();
    if files.is_empty() {
        let mut found = Vec::new();
        translatable(root, "unit", false, &mut found);
        units.extend(found.into_iter().map(|u| (u, None)));
    }
    for f in &files {
        let mut found = Vec::new();
        let no = f.attr("translate") == Some("no");
        translatable(f, "unit", no, &mut found);
        let part = (files.len() > 1).then(|| part_name(f));
        units.extend(found.into_iter().map(|u| (u, part.clone())));
    }
    let mut segments = Vec::new();
    for (unit, part) in units {
        let unit_id = unit.attr("id").unwrap_or("");
        let segs: Vec<&Element> = unit.children_named("segment").collect();
        let count = segs.len();
        for (i, s) in segs.into_iter().enumerate() {
            let id = match s.attr("id") {
                Some(id) => id.to_owned(),
                None if count == 1 => unit_id.to_owned(),
                None => format!("{unit_id}/{}", i + 1),
            };
            let source = s.child("source").map(text_2).unwrap_or_default();
            let target = s.child("target").map(text_2).unwrap_or_default();
            let translated = !target.is_empty() && s.attr("state") != Some("initial");
            segments.push(Segment {
                id,
                source,
                target,
                translated,
                langs: None,
                file: part.clone(),
            });
        }
    }
    BilingualFile {
        kind: "xliff-2",
        source_lang,
        target_lang,
        segments,
    }
}

fn read_tmx(
    root: &Element,
    pair: Option<(&str, &str)>,
    usual_source: Option<&str>,
) -> BilingualFile {
    let header_lang = root
        .child("header")
        .and_then(|h| h.attr("srclang"))
        .filter(|l| !l.eq_ignore_ascii_case("*all*"))
        .map(str::to_owned);
    let mut tus = Vec::new();
    root.descendants("tu", &mut tus);
    // Fixed before the first unit: a unit listing the target first must
    // not turn the whole file round.
    let mut source_lang = pair
        .map(|(s, _)| s.to_owned())
        .or(header_lang)
        .or_else(|| usual_source.map(str::to_owned));
    let mut target_lang: Option<String> = pair.map(|(_, t)| t.to_owned());
    let mut segments = Vec::new();
    for (i, tu) in tus.into_iter().enumerate() {
        let variants: Vec<(String, String)> = tu
            .children_named("tuv")
            .map(|v| {
                let text = v
                    .child("seg")
                    .map(|s| collapse(&s.text_skipping(&CODE_TMX)))
                    .unwrap_or_default();
                (v.lang().unwrap_or("").to_owned(), text)
            })
            .collect();
        if variants.is_empty() {
            continue;
        }
        let src_at = source_lang
            .as_deref()
            .and_then(|s| variants.iter().position(|(l, _)| super::lang_matches(s, l)))
            .unwrap_or(0);
        if source_lang.is_none() {
            source_lang = Some(variants[src_at].0.clone());
        }
        let tgt = variants
            .iter()
            .enumerate()
            .find(|(k, (l, _))| {
                *k != src_at
                    && target_lang
                        .as_deref()
                        .is_none_or(|t| super::lang_matches(t, l))
            })
            .map(|(_, v)| v.clone());
        if target_lang.is_none()
            && let Some((l, _)) = &tgt
        {
            target_lang = Some(l.clone());
        }
        let target = tgt.map(|(_, t)| t).unwrap_or_default();
        segments.push(Segment {
            id: tu
                .attr("tuid")
                .map(str::to_owned)
                .unwrap_or_else(|| (i + 1).to_string()),
            source: variants[src_at].1.clone(),
            translated: !target.is_empty(),
            target,
            langs: None,
            file: None,
        });
    }
    BilingualFile {
        kind: "tmx",
        source_lang,
        target_lang,
        segments,
    }
}
