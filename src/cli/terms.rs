//! `membank terms`: the bank's term articles exported as TBX, CSV or TSV,
//! imported from them (shown; written with `--yes`), and the job glossary
//! of a file about to be translated (`--for FILE`).

use std::collections::HashSet;
use std::path::Path;
use std::process::ExitCode;

use membank_core::bank::Bank;
use membank_core::terms::bilingual::BilingualFile;
use membank_core::terms::import::{self, Outcome, Proposed};
use membank_core::terms::qa::{self, GlossaryEntry, JobRefused};
use membank_core::terms::{self, Filter, Format, MAX_INPUT_BYTES, Status, TbxVersion, TermRecord};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::Stopped;
use serde::Serialize;

use super::common;
use super::style;

pub use membank_args::terms::{Action, Args, ExportArgs, ImportArgs};

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.action.is_some() && (args.bank.is_some() || args.for_file.is_some()) {
        eprintln!(
            "membank: give either `export`/`import` or a bank and --for FILE, not both. \
             See `membank terms --help`."
        );
        return Ok(ExitCode::from(2));
    }
    match args.action {
        Some(Action::Export(a)) => run_export(a),
        Some(Action::Import(a)) => run_import(a),
        None => {
            let (Some(bank), Some(file)) = (&args.bank, &args.for_file) else {
                eprintln!(
                    "membank: `membank terms` needs `export`, `import`, or a bank and \
                     --for FILE. See `membank terms --help`."
                );
                return Ok(ExitCode::from(2));
            };
            run_glossary(&args, bank, file)
        }
    }
}

/// The command line's name for the language pair; the MCP tools name
/// their argument `pair`, and a message tells each caller what it can
/// type.
pub(crate) const PAIR_FLAG: &str = "--pair";

/// How a caller who knows the pair by `name` gives it, for a message.
fn how_to_give_pair(name: &str) -> String {
    if name.starts_with('-') {
        format!("with {name} SRC:TGT")
    } else {
        format!("in the argument `{name}` (SRC:TGT)")
    }
}

/// `SRC:TGT` or an error naming the flag or argument `name`.
pub(crate) fn pair_arg(pair: Option<&str>, name: &str) -> anyhow::Result<Option<(String, String)>> {
    pair.map(|p| {
        terms::parse_pair(p).ok_or_else(|| {
            anyhow::anyhow!(
                "{name} {}: give two language codes as SRC:TGT (e.g. en-US:nl-BE)",
                common::safe(p)
            )
        })
    })
    .transpose()
}

pub(crate) fn tbx_version(s: &str) -> anyhow::Result<TbxVersion> {
    match s {
        "2008" => Ok(TbxVersion::V2008),
        "2019" => Ok(TbxVersion::V2019),
        other => anyhow::bail!("--tbx-version {}: use 2008 or 2019", common::safe(other)),
    }
}

/// A file named on the command line, bounded in size, as text.
pub(crate) fn read_input(path: &Path) -> anyhow::Result<(String, String)> {
    let shown = common::safe(&path.display().to_string());
    let bytes = if path == Path::new("-") {
        common::say_reading_stdin("the file");
        // A pipeline's file, as `-` is for the other commands.
        read_bounded(std::io::stdin().lock(), MAX_INPUT_BYTES)
            .map_err(|e| anyhow::anyhow!("standard input: {e}"))?
    } else {
        match membank_core::safe_read::read_regular(path, MAX_INPUT_BYTES) {
            Ok(bytes) => bytes,
            // A pipe the user named (`<(…)`, a FIFO): read as far as the
            // same bound, as a file would be.
            Err(membank_core::safe_read::ReadError::NotRegular { .. }) if is_fifo(path) => {
                let pipe = std::fs::File::open(path)
                    .map_err(|e| anyhow::anyhow!("{shown}: {}", e.kind()))?;
                read_bounded(pipe, MAX_INPUT_BYTES).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?
            }
            Err(e) => anyhow::bail!("{shown}: {}", common::safe(&e.to_string())),
        }
    };
    let text = membank_core::terms::encoding::decode(&bytes)
        .map_err(|e| anyhow::anyhow!("{shown}: {}", common::safe(&e)))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((name, text))
}

/// Everything `reader` gives, refused past `max` bytes.
fn read_bounded(reader: impl std::io::Read, max: u64) -> anyhow::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        anyhow::bail!("more than {} MB; not read", max / (1024 * 1024));
    }
    Ok(bytes)
}

fn is_fifo(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// The export of a bank's terms as text, and a warning for each article
/// whose date had to be left out. An export of no term is an error naming
/// the filters: an empty TBX body is not valid TBX-Basic, and an empty
/// file would pass for an export.
pub(crate) fn export_text(
    bank: &Bank,
    format: Format,
    version: TbxVersion,
    filter: &Filter,
) -> anyhow::Result<(String, Vec<String>)> {
    let mut records = terms::records(bank, filter);
    // A term article an export cannot write (no target_lang, say) is named,
    // not dropped without a word: it would be missing from the CAT tool.
    let left_out: Vec<String> = terms::incomplete(bank, filter.client.as_deref())
        .into_iter()
        .map(|(path, lacks)| {
            format!(
                "{}: left out of the export: it has no {} (`membank check` lists it)",
                common::safe(&path),
                lacks.join(", no ")
            )
        })
        .collect();
    if records.is_empty() {
        let mut named = Vec::new();
        if let Some(c) = &filter.client {
            named.push(format!("--client {}", common::safe(c)));
        }
        if let Some((s, t)) = &filter.pair {
            named.push(format!("--pair {}:{}", common::safe(s), common::safe(t)));
        }
        for st in &filter.statuses {
            named.push(format!("--status {}", st.as_str()));
        }
        if named.is_empty() && !left_out.is_empty() {
            anyhow::bail!(
                "no term article is complete enough to export:\n  {}",
                left_out.join("\n  ")
            );
        }
        if named.is_empty() {
            anyhow::bail!("the bank has no term articles: nothing to export");
        }
        anyhow::bail!(
            "no term article matches {}: nothing was exported",
            named.join(" ")
        );
    }
    let mut warnings = left_out;
    warnings.extend(terms::normalise_dates(&mut records));
    if format == Format::Tsv {
        warnings.extend(mixed_pairs_warning(&records));
    }
    let concepts = terms::concepts(&records);
    if matches!(format, Format::Csv | Format::Tsv) {
        let risky = terms::table::formula_like(&concepts);
        if !risky.is_empty() {
            warnings.push(format!(
                "{} value(s) start with =, +, - or @, which a spreadsheet program may run as a \
                 formula when it opens the file: {} (exported as written; open the file as \
                 text, or import it into the CAT tool directly)",
                risky.len(),
                risky.join(", ")
            ));
        }
        let split = terms::table::clients_split_on_reading(&concepts);
        if !split.is_empty() {
            let shown: Vec<String> = split.iter().map(|c| format!("“{c}”")).collect();
            warnings.push(format!(
                "{} client name(s) hold “;”, which separates an entry's clients in a CSV or \
                 TSV cell, so each reads back as several clients: {} (exported as written; \
                 TBX keeps such a name whole)",
                split.len(),
                shown.join(", ")
            ));
        }
    }
    Ok((terms::write(format, version, &concepts), warnings))
}

/// The TSV glossary has no language columns: an export of several
/// language pairs would put them side by side with nothing to tell them
/// apart.
fn mixed_pairs_warning(records: &[TermRecord]) -> Option<String> {
    // Tags compare without case; each pair is shown as first written.
    let mut pairs = std::collections::BTreeMap::new();
    for r in records {
        let key = (r.source_lang.to_lowercase(), r.target_lang.to_lowercase());
        pairs
            .entry(key)
            .or_insert_with(|| format!("{} → {}", r.source_lang, r.target_lang));
    }
    (pairs.len() > 1).then(|| {
        let shown: Vec<&str> = pairs.values().map(String::as_str).collect();
        format!(
            "the TSV format has no language columns, and this export mixes {} language \
             pairs ({}); export one at a time with --pair",
            pairs.len(),
            shown.join(", ")
        )
    })
}

pub(crate) fn filter_of(
    client: Option<String>,
    pair: Option<(String, String)>,
    statuses: &[String],
) -> anyhow::Result<Filter> {
    let statuses = statuses
        .iter()
        .map(|s| {
            Status::parse(s).ok_or_else(|| {
                anyhow::anyhow!(
                    "--status {}: use approved, proposed or rejected",
                    common::safe(s)
                )
            })
        })
        .collect::<anyhow::Result<Vec<Status>>>()?;
    Ok(Filter {
        client,
        pair,
        statuses,
    })
}

fn run_export(a: ExportArgs) -> anyhow::Result<ExitCode> {
    let format = Format::parse(&a.format).ok_or_else(|| {
        anyhow::anyhow!("--format {}: use tbx, csv or tsv", common::safe(&a.format))
    })?;
    let version = tbx_version(&a.tbx_version)?;
    let filter = filter_of(a.client, pair_arg(a.pair.as_deref(), PAIR_FLAG)?, &a.status)?;
    let bank = common::open_bank(&a.bank)?;
    common::known_client(bank, filter.client.as_deref())?;
    let (text, warnings) = export_text(bank, format, version, &filter)?;
    for w in &warnings {
        eprintln!("membank: warning: {}", common::safe(w));
    }
    emit(&text, a.output.as_deref())
}

/// Text to a file (replaced atomically) or standard output.
fn emit(text: &str, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    match output {
        // `-o -` is standard output, as `-` is everywhere.
        Some(path) if path != Path::new("-") => {
            let shown = || common::safe(&path.display().to_string());
            if path.is_dir() {
                anyhow::bail!("{} is a folder: -o names the file to write", shown());
            }
            // The export replaces the file whole (written beside it, then
            // renamed over it): over a link, a device or a pipe that would
            // put a regular file in its place, not write where it leads.
            if let Ok(meta) = std::fs::symlink_metadata(path)
                && !meta.is_file()
            {
                let what = if meta.file_type().is_symlink() {
                    "a symbolic link"
                } else {
                    "not a regular file"
                };
                anyhow::bail!(
                    "{} is {what}: -o writes a regular file, replacing it whole; name the file \
                     itself, or another",
                    shown()
                );
            }
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(parent) = parent
                && !parent.is_dir()
            {
                anyhow::bail!(
                    "{}: the folder {} does not exist",
                    shown(),
                    common::safe(&parent.display().to_string())
                );
            }
            membank_core::atomic::write_atomic(path, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("{}: {}", shown(), e.kind()))?;
        }
        _ => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The job glossary of a file.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct GlossaryOutput {
    pub file: String,
    pub kind: &'static str,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
    pub client: Option<String>,
    pub segments: usize,
    pub terms: Vec<GlossaryEntry>,
}

/// A bilingual file's segments from its text (`shown` names it in
/// messages), with `pair` standing in for languages it lacks and picking
/// a TMX's languages; without it, a TMX that names no source language is
/// taken to be in the one `bank`'s terms share. `pair_name` is what the
/// caller calls the pair (`--pair`, or an MCP tool's `pair`), for the
/// message asking for one.
pub(crate) fn bilingual_of(
    bank: &Bank,
    shown: &str,
    name: &str,
    text: &str,
    pair: Option<(String, String)>,
    pair_name: &str,
) -> anyhow::Result<BilingualFile> {
    let records = match pair {
        Some(_) => Vec::new(),
        None => terms::records(bank, &Filter::default()),
    };
    let shown = common::safe(shown);
    qa::read_job(name, text, pair, &records).map_err(|refused| match refused {
        JobRefused::Unreadable(e) => anyhow::anyhow!("{shown}: {}", common::safe(&e)),
        // An empty file (or one with no unit) would otherwise pass the
        // check with nothing checked: a CI run would take it for a clean job.
        JobRefused::NoSegments => anyhow::anyhow!(
            "{shown}: no segments found (the file is empty or holds no translation unit)"
        ),
        JobRefused::NoTargetLanguage => anyhow::anyhow!(
            "{shown}: names no target language (target-language on <file>, trgLang on \
             <xliff>): give the pair {}",
            how_to_give_pair(pair_name)
        ),
        JobRefused::SeveralPairs(pairs) => anyhow::anyhow!(
            "{shown}: names no languages and the bank has terms for several pairs ({}): give \
             the pair {}",
            common::safe(&pairs.join(", ")),
            how_to_give_pair(pair_name)
        ),
    })
}

/// The bilingual file at `path`.
pub(crate) fn read_bilingual(
    bank: &Bank,
    path: &Path,
    pair: Option<(String, String)>,
) -> anyhow::Result<BilingualFile> {
    let (name, text) = read_input(path)?;
    bilingual_of(
        bank,
        &path.display().to_string(),
        &name,
        &text,
        pair,
        PAIR_FLAG,
    )
}

pub(crate) fn glossary_output(
    bank: &Bank,
    shown: &str,
    file: BilingualFile,
    client: Option<String>,
) -> GlossaryOutput {
    let records = terms::records(
        bank,
        &Filter {
            client: client.clone(),
            ..Filter::default()
        },
    );
    let wanted = qa::for_pair(&records, &file);
    GlossaryOutput {
        file: shown.to_owned(),
        kind: file.kind,
        source_lang: file.source_lang.clone(),
        target_lang: file.target_lang.clone(),
        client,
        segments: file.segments.len(),
        terms: qa::glossary(&wanted, &file),
    }
}

fn run_glossary(args: &Args, bank_path: &Path, file: &Path) -> anyhow::Result<ExitCode> {
    let pair = pair_arg(args.pair.as_deref(), PAIR_FLAG)?;
    let version = tbx_version(&args.tbx_version)?;
    let bank = common::open_bank(bank_path)?;
    common::known_client(bank, args.client.as_deref())?;
    let segments = read_bilingual(bank, file, pair)?;
    let out = glossary_output(
        bank,
        &file.display().to_string(),
        segments,
        args.client.clone(),
    );
    if args.json {
        common::print_json(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let records: Vec<TermRecord> = out.terms.iter().map(|e| e.term.clone()).collect();
    match args.format.as_deref() {
        Some("md") => {
            out!("{}", markdown_glossary(&out.terms))?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(f) => {
            let format = Format::parse(f).ok_or_else(|| {
                anyhow::anyhow!("--format {}: use tbx, csv, tsv or md", common::safe(f))
            })?;
            // As `terms export` refuses an export of no term: an empty TBX
            // body is not valid TBX-Basic, and an empty glossary would pass
            // for the job's.
            if records.is_empty() {
                anyhow::bail!(
                    "no term of the bank occurs in {} ({} segment(s)): no glossary was written",
                    common::safe(&out.file),
                    out.segments
                );
            }
            return emit(
                &terms::write(format, version, &terms::concepts(&records)),
                None,
            );
        }
        None => {}
    }
    let pair = match (&out.source_lang, &out.target_lang) {
        (Some(s), Some(t)) => format!("{s} → {t}"),
        _ => "any language pair".into(),
    };
    soutln!(
        "{}: {} segment(s), {pair}; {} term(s) of the bank occur in it",
        sanitize_for_terminal(&out.file, false),
        out.segments,
        out.terms.len()
    )?;
    for e in &out.terms {
        let status = match e.term.status {
            Status::Approved => style::GOOD,
            Status::Proposed => style::NOTE,
            Status::Rejected => style::ERROR,
        };
        let clients = if e.term.clients.is_empty() {
            String::new()
        } else {
            format!("  [{}]", e.term.clients.join(", "))
        };
        soutln!(
            "  {} → {}  {status}{}{status:#}{}  {} segment(s), first {}",
            sanitize_for_terminal(&e.term.source, false),
            sanitize_for_terminal(&e.term.target, false),
            e.term.status.as_str(),
            sanitize_for_terminal(&clients, false),
            e.segments,
            sanitize_for_terminal(&e.first_segment, false),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A Markdown table, for a model prompt or a style sheet.
fn markdown_glossary(entries: &[GlossaryEntry]) -> String {
    let cell = |s: &str| sanitize_for_terminal(&s.replace('|', "\\|"), false);
    let mut out = String::from("| Source | Target | Status | Clients |\n|---|---|---|---|\n");
    for e in entries {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(&e.term.source),
            cell(&e.term.target),
            e.term.status.as_str(),
            cell(&e.term.clients.join(", "))
        ));
    }
    out
}

/// What an import proposes, and whether it was written.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct ImportOutput {
    pub bank: String,
    pub file: String,
    pub written: bool,
    pub terms: Vec<Proposed>,
    /// Each row or entry of the file left out, and why.
    pub left_out: Vec<String>,
}

/// What importing a file proposes, and the rows or entries of it that
/// no term came from.
pub(crate) struct ImportProposal {
    pub terms: Vec<Proposed>,
    pub left_out: Vec<String>,
}

/// The proposal for importing `path` into `bank`.
pub(crate) fn import_proposal(
    bank: &Bank,
    (shown, name, text): (&str, String, &str),
    client: Option<String>,
    domain: Option<String>,
    pair: Option<(String, String)>,
    today: String,
) -> anyhow::Result<ImportProposal> {
    let shown = common::safe(shown);
    let format = Format::detect(&name, text).ok_or_else(|| {
        anyhow::anyhow!(
            "{shown}: not a TBX, CSV or TSV file (name it .tbx, .csv or .tsv, or give a header \
             row with its delimiter)"
        )
    })?;
    let read = terms::read(format, &shown, text, pair.as_ref())
        .map_err(|e| anyhow::anyhow!(common::safe(&e.to_string())))?;
    let existing = terms::records(bank, &Filter::default());
    let mut taken: HashSet<String> = bank.articles().iter().map(|a| a.rel_path.clone()).collect();
    // Files the bank does not load as articles still hold their names.
    let folder = membank_core::layout::Folder::Terminology.dir_name();
    if let Ok(entries) = std::fs::read_dir(bank.root().join(folder)) {
        for e in entries.flatten().take(1_000_000) {
            taken.insert(format!("{folder}/{}", e.file_name().to_string_lossy()));
        }
    }
    let options = import::Options {
        client,
        domain,
        today,
        from: name,
    };
    Ok(ImportProposal {
        terms: import::propose(&existing, &taken, read.records, &options),
        left_out: read.left_out,
    })
}

fn run_import(a: ImportArgs) -> anyhow::Result<ExitCode> {
    let pair = pair_arg(a.pair.as_deref(), PAIR_FLAG)?;
    let root = common::bank_root(&a.bank)?;
    // With --yes the proposal is made under the lock it is written under.
    let tx = match a.yes {
        true => Some(common::begin_bank_write(&root)?),
        false => None,
    };
    let bank = common::open_bank(&a.bank)?;
    let today = common::clock().today().to_string();
    let (name, text) = read_input(&a.file)?;
    let shown = a.file.display().to_string();
    let ImportProposal {
        terms: proposal,
        left_out,
    } = import_proposal(bank, (&shown, name, &text), a.client, a.domain, pair, today)?;
    let files: Vec<(String, Vec<u8>)> = proposal
        .iter()
        .filter(|p| p.writes())
        .map(|p| (p.path.clone(), p.text.clone().into_bytes()))
        .collect();
    let mut written = false;
    if let Some(tx) = &tx
        && !files.is_empty()
    {
        match tx.commit_new_articles(&files) {
            Ok(_) => {
                common::finish(tx);
                written = true;
            }
            Err(Stopped::Stale(paths)) => {
                let paths: Vec<String> = paths.iter().map(|p| common::safe(p)).collect();
                eprintln!(
                    "membank: {} appeared while the import was prepared; nothing was \
                     written. Run again.",
                    paths.join(", ")
                );
                return Ok(ExitCode::from(1));
            }
            Err(e @ Stopped::Refused(_)) => anyhow::bail!(common::safe(&e.to_string())),
        }
    }
    let out = ImportOutput {
        bank: a.bank.display().to_string(),
        file: a.file.display().to_string(),
        written,
        terms: proposal,
        left_out,
    };
    if a.json {
        common::print_json(&out)?;
    } else {
        print_import(&out, a.yes)?;
    }
    Ok(if !files.is_empty() && !written {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_import(out: &ImportOutput, yes: bool) -> anyhow::Result<()> {
    let count = |o: Outcome| out.terms.iter().filter(|p| p.outcome == o).count();
    let repeated = match count(Outcome::Repeated) {
        0 => String::new(),
        n => format!(", {n} repeated in the file"),
    };
    soutln!(
        "{} → {}: {} new, {} conflicting, {} unchanged, {} differing in status{repeated}",
        sanitize_for_terminal(&out.file, false),
        sanitize_for_terminal(&out.bank, false),
        count(Outcome::New),
        count(Outcome::Conflict),
        count(Outcome::Unchanged),
        count(Outcome::StatusDiffers)
    )?;
    // Rows or entries no term came from are named first: the counts
    // above are of the terms read, not of the whole file.
    for why in &out.left_out {
        soutln!(
            "  {}{:<10}{:#} {}",
            style::WARNING,
            "left out",
            style::WARNING,
            sanitize_for_terminal(why, false)
        )?;
    }
    for p in &out.terms {
        let (word, colour) = match p.outcome {
            Outcome::New => (if out.written { "written" } else { "new" }, style::GOOD),
            Outcome::Conflict => ("conflict", style::WARNING),
            Outcome::Unchanged => ("unchanged", style::MUTED),
            Outcome::StatusDiffers => ("status", style::NOTE),
            Outcome::Repeated => ("repeated", style::MUTED),
        };
        soutln!(
            "  {colour}{word:<10}{colour:#} {}",
            sanitize_for_terminal(&p.path, false)
        )?;
        match p.outcome {
            Outcome::Conflict => soutln!(
                "      term-conflict: approved “{}” here, another approved target in {}",
                sanitize_for_terminal(&p.term.target, false),
                sanitize_for_terminal(&p.existing.join(", "), false)
            )?,
            Outcome::StatusDiffers => soutln!(
                "      the bank has it, not as {}; left as it is",
                p.term.status.as_str()
            )?,
            Outcome::Repeated => {
                soutln!("      the file lists it again; it is imported once, as above")?
            }
            _ => {}
        }
        if p.writes() && !out.written {
            for line in sanitize_for_terminal(&p.text, true).lines() {
                soutln!("      {}{line}{:#}", style::MUTED, style::MUTED)?;
            }
        }
    }
    if out.terms.iter().any(|p| p.writes()) && !out.written && !yes {
        soutln!("\nNothing was written. Run again with --yes to write the new term articles.")?;
    }
    Ok(())
}
