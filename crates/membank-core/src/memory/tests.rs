use std::fs;

use super::*;
use crate::bank::Bank;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "01_CLIENTS/Acme.md",
        "---\nclient: Acme\nstatus: active\n---\n# Acme Corp\nSee [[Legal]] and [[Nope]].\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        "---\ndomain: Legal\n---\n# Legal\n",
    );
    d
}

#[test]
fn a_bank_is_detected_and_read_through_the_shared_model() {
    let d = bank();
    let found = detect(d.path(), None).unwrap();
    assert_eq!(found.spec.name, "bank");
    let memory = open(d.path(), None).unwrap();
    assert_eq!(memory.spec().name, "bank");
    assert_eq!(memory.len(), 2);
    let acme = memory.find("01_CLIENTS/Acme.md").unwrap();
    let doc = memory.document(acme);
    assert_eq!(doc.title, "Acme Corp");
    assert_eq!(doc.groups, ["01_CLIENTS"]);
    assert_eq!(doc.kind, "clients");
    assert_eq!(doc.status.as_deref(), Some("active"));
    assert_eq!(
        doc.frontmatter_text(),
        Some("client: Acme\nstatus: active\n")
    );
    assert!(doc.body().starts_with("# Acme Corp"));
    let legal = memory.resolve("legal");
    assert!(matches!(legal, Resolution::One(_)));
    let links = memory.links(acme);
    assert_eq!(links.len(), 2);
    assert_eq!(links[0].resolution, legal);
    assert_eq!(links[1].resolution, Resolution::Dead);
    assert_eq!(memory.backlinks(legal.target().unwrap()).to_vec(), [acme]);
    let report = memory.check(&HealthOptions::as_of(jiff::civil::date(2026, 4, 8)));
    assert!(report.findings.iter().any(|f| f.code() == "dead-link"));
    let units = memory.search_units();
    assert_eq!(units[acme].line, 5);
    assert!(memory.downcast_ref::<Bank>().is_some());
}

#[test]
fn bank_only_commands_refuse_other_layouts_by_name() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "memory/summary.md", "# Summary\n");
    let e = open_bank(d.path(), None).unwrap_err().to_string();
    assert!(e.contains("is a Deja Vu project"), "{e}");
    assert!(e.contains("memory bank"), "{e}");
    let d = bank();
    assert_eq!(open_bank(d.path(), None).unwrap().articles().len(), 2);
}

#[test]
fn a_deja_vu_project_is_found_from_the_project_or_its_memory_folder() {
    let d = tempfile::tempdir().unwrap();
    let project = d.path().join("proj");
    write(&project, "memory/impressions.jsonl", "");
    let from_project = detect(&project, None).unwrap();
    assert_eq!(from_project.spec.name, "dejavu");
    assert_eq!(from_project.root, project);
    let from_memory = detect(&project.join("memory"), None).unwrap();
    assert_eq!(from_memory.spec.name, "dejavu");
    assert_eq!(from_memory.root, project);
}

#[test]
fn an_everos_root_is_found_by_its_marker_files_or_scope_tree() {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir_all(d.path().join("default_app/support-bot/users/carol")).unwrap();
    assert_eq!(detect(d.path(), None).unwrap().spec.name, "everos");
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ome.toml", "");
    assert_eq!(detect(d.path(), None).unwrap().spec.name, "everos");
    let d = tempfile::tempdir().unwrap();
    fs::create_dir_all(d.path().join(".index")).unwrap();
    assert_eq!(detect(d.path(), None).unwrap().spec.name, "everos");
}

#[test]
fn nothing_recognised_names_every_thing_looked_for() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "notes/a.md", "hi");
    let e = detect(d.path(), None).unwrap_err().to_string();
    assert!(e.contains("is not a memory bank, a Deja Vu project or an everos memory root"));
    for l in LAYOUTS {
        assert!(e.contains(l.looked_for), "{e}");
    }
    let e = detect(&d.path().join("missing"), None).unwrap_err();
    assert!(e.to_string().contains("no such folder"));
    let e = detect(&d.path().join("notes/a.md"), None).unwrap_err();
    assert!(
        e.to_string()
            .contains("a.md is a file; pass the folder of a memory bank"),
        "{e}"
    );
}

#[test]
fn format_forces_a_layout_and_settles_ambiguity() {
    let d = bank();
    write(d.path(), "memory/summary.md", "# Summary\n");
    let e = detect(d.path(), None).unwrap_err().to_string();
    assert!(e.contains("--format bank|dejavu"), "{e}");
    let bank = layout_named("bank").unwrap();
    assert_eq!(detect(d.path(), Some(bank)).unwrap().spec.name, "bank");
    let dejavu = layout_named("dejavu").unwrap();
    assert_eq!(detect(d.path(), Some(dejavu)).unwrap().spec.name, "dejavu");
    let everos = layout_named("everos").unwrap();
    let e = detect(d.path(), Some(everos)).unwrap_err().to_string();
    assert!(
        e.contains("is not an everos memory root: looked for"),
        "{e}"
    );
    assert_eq!(layout_names(), ["bank", "dejavu", "everos"]);
}

#[test]
fn which_changed_paths_are_the_memorys_own_depends_on_the_layout() {
    let root = Path::new("/memories/m");
    let changed: Vec<PathBuf> = [
        "/memories/m/01_CLIENTS/Acme.md",
        "/memories/m/01_CLIENTS/Acme.md",
        "/memories/m/.obsidian/app.json",
        "/memories/m/01_CLIENTS/.Acme.md.swp",
        "/memories/m/u/carol/.atomic_facts/atomic_fact-2026-06-01.md",
        "/memories/m/.git/index",
        "/memories/m/.index/vectors.bin",
        "/memories/other/01_CLIENTS/Beta.md",
        "u/carol/.foresights/foresight-2026-06-01.md",
        "../escape.md",
        // An atomic write's temporary file, renamed over Acme.md.
        "/memories/m/01_CLIENTS/Acme.md.3bVPC2WH.tmp",
        "/memories/m/memory/recall-feedback.jsonl.aZ09xYq1.tmp",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let bank = layout_named("bank").unwrap();
    assert_eq!(
        changes::changed_paths(bank, root, &changed),
        ["01_CLIENTS/Acme.md"]
    );
    let everos = layout_named("everos").unwrap();
    assert_eq!(
        changes::changed_paths(everos, root, &changed),
        [
            "01_CLIENTS/.Acme.md.swp",
            "01_CLIENTS/Acme.md",
            "u/carol/.atomic_facts/atomic_fact-2026-06-01.md",
            "u/carol/.foresights/foresight-2026-06-01.md",
        ]
    );
}

#[test]
fn a_refreshed_bank_reads_only_the_changed_files_unless_a_folder_changed() {
    let d = bank();
    let memory = open(d.path(), None).unwrap();
    write(
        d.path(),
        "01_CLIENTS/Acme.md",
        "---\nclient: Acme\nstatus: active\n---\n# Acme Ltd\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Tax/Vat.md",
        "---\ndomain: Tax\n---\n# VAT\n",
    );
    let files = memory.refreshed(&["01_CLIENTS/Acme.md".into()]).unwrap();
    assert!(files.in_part);
    let acme = files.memory.find("01_CLIENTS/Acme.md").unwrap();
    assert_eq!(files.memory.document(acme).title, "Acme Ltd");
    assert!(files.memory.find("03_DOMAINS/Tax/Vat.md").is_none());
    // The memory refreshed from is left as it was.
    let old = memory.find("01_CLIENTS/Acme.md").unwrap();
    assert_eq!(memory.document(old).title, "Acme Corp");

    let folder = memory.refreshed(&["03_DOMAINS/Tax".into()]).unwrap();
    assert!(!folder.in_part);
    assert!(folder.memory.find("03_DOMAINS/Tax/Vat.md").is_some());
}

/// A front end chooses what it offers from `LayoutKind`, so every
/// registered layout has its own kind, listed in registry order.
#[test]
fn every_registered_layout_has_its_own_kind() {
    let kinds: Vec<LayoutKind> = LAYOUTS.iter().map(|l| l.kind).collect();
    assert_eq!(kinds, LayoutKind::ALL);
    for kind in LayoutKind::ALL {
        assert_eq!(kind.spec().kind, kind);
    }
}
