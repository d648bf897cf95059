//! The Bank pane's tree on a vault with nested folders: it nests by the
//! real folders, folds, counts and marks per folder, and its width can be
//! changed.

use std::path::Path;

use insta::assert_snapshot;
use ratatui::crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::app::Pane;
use super::panes::bank::{RowKind, TreeRow};
use super::tests::{app_at, key, keys, screen};

/// A bank whose `03_DOMAINS` holds a help vault nested three folders deep,
/// with long names, as Obsidian users keep them.
fn nested_bank(root: &Path) {
    for folder in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir(root.join(folder)).unwrap();
    }
    let notes = [
        "01_CLIENTS/Acme/Acme house style.md",
        "01_CLIENTS/Acme/Acme glossary.md",
        "01_CLIENTS/Globex.md",
        "03_DOMAINS/ObsidianHelp/Editing and formatting/Basic formatting syntax.md",
        "03_DOMAINS/ObsidianHelp/Editing and formatting/Advanced formatting syntax.md",
        "03_DOMAINS/ObsidianHelp/Plugins/Core plugins/Backlinks.md",
        "03_DOMAINS/ObsidianHelp/Plugins/Core plugins/Canvas.md",
        "03_DOMAINS/ObsidianHelp/Plugins/Community plugins.md",
        "03_DOMAINS/ObsidianHelp/Start here.md",
        "03_DOMAINS/Legal.md",
    ];
    // "Start here" links every note and every note links back, so that
    // only the one broken note has findings.
    let title = |rel: &str| {
        Path::new(rel)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let index: String = notes.iter().map(|r| format!("[[{}]] ", title(r))).collect();
    for rel in notes {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let title = title(rel);
        let key = if rel.starts_with("01_") {
            "domains: [\"[[Legal]]\"]\nclient"
        } else {
            "domain"
        };
        let front = match title.as_str() {
            "Canvas" => String::new(),
            _ => format!(
                "---\n{key}: \"{title}\"\nlanguages: [\"en-US → nl-BE\"]\nlast_updated: 2026-01-15\n---\n"
            ),
        };
        let body = match title.as_str() {
            "Start here" => index.clone(),
            _ => "See [[Start here]].".to_owned(),
        };
        std::fs::write(&path, format!("{front}# {title}\n\n{body}\n")).unwrap();
    }
}

fn row<'a>(rows: &'a [TreeRow], label: &str) -> &'a TreeRow {
    rows.iter()
        .find(|r| r.label() == label)
        .unwrap_or_else(|| panic!("{label} not in the tree: {rows:#?}"))
}

fn select(app: &mut super::app::App, label: &str) {
    let i = app
        .panes
        .bank
        .rows
        .iter()
        .position(|r| r.label() == label)
        .unwrap_or_else(|| panic!("{label} not in the tree"));
    let len = app.panes.bank.rows.len();
    app.panes.bank.cursor.select(i, len, 20);
}

/// Open the folders named, in turn, with `l`.
fn open_folders(app: &mut super::app::App, labels: &[&str]) {
    for label in labels {
        select(app, label);
        key(app, KeyCode::Char('l'));
    }
}

#[test]
fn a_bank_tree_nests_by_real_folders_with_counts() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    app.bank_label = "nested".into();
    app.status.bank = app.bank_label.clone();
    let rows = &app.panes.bank.rows;
    let help = row(rows, "ObsidianHelp");
    assert_eq!(help.depth, 1);
    assert_eq!(help.count, Some(6), "every note below is counted");
    assert!(help.flagged, "a finding below marks the folded folder");
    // Subfolders start folded: a vault of hundreds of notes shows its
    // top folders first.
    assert!(matches!(
        &help.kind,
        RowKind::Folder { key, expanded: false } if key == "03_DOMAINS/ObsidianHelp"
    ));
    open_folders(&mut app, &["ObsidianHelp", "Plugins", "Core plugins"]);
    let rows = &app.panes.bank.rows;
    let plugins = row(rows, "Plugins");
    assert_eq!((plugins.depth, plugins.count), (2, Some(3)));
    let canvas = row(rows, "Canvas");
    assert_eq!(canvas.depth, 4);
    assert_eq!(row(rows, "03_DOMAINS").count, Some(7));
    assert!(canvas.flagged && !row(rows, "Backlinks").flagged);
    assert!(!row(rows, "Editing and formatting").flagged);
    // Subfolders come before the files beside them.
    let labels: Vec<String> = rows.iter().map(|r| r.label().into_owned()).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let at = |l: &str| labels.iter().position(|x| *x == l).unwrap();
    assert!(at("Acme") < at("Globex"));
    assert!(at("ObsidianHelp") < at("Legal"));
    assert!(at("Plugins") < at("Start here"));
    assert_snapshot!(screen(&app));
}

#[test]
fn a_nested_bank_at_160x45_cuts_only_what_does_not_fit_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 160, 45);
    app.bank_label = "nested".into();
    app.status.bank = app.bank_label.clone();
    open_folders(&mut app, &["ObsidianHelp", "Editing and formatting"]);
    let s = screen(&app);
    assert!(s.contains("▾ Editing and formatting 2│"), "{s}");
    assert!(
        s.contains("Advanced formatting syn…│"),
        "cut with an ellipsis: {s}"
    );
    assert_snapshot!(s);
}

#[test]
fn a_nested_folder_folds_and_unfolds_keeping_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    open_folders(&mut app, &["ObsidianHelp", "Plugins", "Core plugins"]);
    select(&mut app, "Plugins");
    key(&mut app, KeyCode::Char('h'));
    let rows = &app.panes.bank.rows;
    assert!(!rows.iter().any(|r| r.label() == "Canvas"), "folded away");
    assert!(matches!(
        row(rows, "Plugins").kind,
        RowKind::Folder {
            expanded: false,
            ..
        }
    ));
    assert_eq!(app.panes.bank.selected().unwrap().label(), "Plugins");
    key(&mut app, KeyCode::Char('l'));
    assert!(app.panes.bank.rows.iter().any(|r| r.label() == "Canvas"));
    // From a file, `h` goes to its own folder, not the numbered one.
    select(&mut app, "Canvas");
    keys(&mut app, "h");
    assert_eq!(app.panes.bank.selected().unwrap().label(), "Core plugins");
}

#[test]
fn opening_a_nested_file_opens_its_folders_in_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    assert!(!app.panes.bank.rows.iter().any(|r| r.label() == "Backlinks"));
    app.open_article("03_DOMAINS/ObsidianHelp/Plugins/Core plugins/Backlinks.md");
    assert_eq!(app.panes.bank.selected().unwrap().label(), "Backlinks");
}

fn mouse(app: &mut super::app::App, kind: MouseEventKind, column: u16, row: u16) {
    super::update::update(
        app,
        super::app::Msg::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        }),
    );
}

fn tree_width(app: &super::app::App) -> u16 {
    app.areas.of(Pane::Bank).unwrap().width
}

#[test]
fn the_tree_pane_widens_with_gt_and_narrows_with_lt_at_80x24() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    app.bank_label = "nested".into();
    app.status.bank = app.bank_label.clone();
    open_folders(&mut app, &["ObsidianHelp", "Editing and formatting"]);
    let before = tree_width(&app);
    assert!(
        !screen(&app).contains("Advanced formatting syntax"),
        "cut at first"
    );
    keys(&mut app, ">>>");
    assert_eq!(tree_width(&app), before + 12);
    assert_eq!(app.tree_width, Some(before + 12), "kept for the next run");
    let s = screen(&app);
    assert!(s.contains("  Advanced formatting syntax  "), "whole: {s}");
    assert!(s.contains("tree 38 columns wide"), "{s}");
    assert_snapshot!(s);
    // However often it is pressed, the tree keeps a usable width and the
    // article keeps its own.
    keys(&mut app, &"<".repeat(20));
    assert_eq!(tree_width(&app), super::areas::TREE_MIN);
    assert!(screen(&app).contains("(the narrowest)"));
    keys(&mut app, &">".repeat(30));
    let article = app.areas.of(Pane::Article).unwrap().width;
    assert!(article >= 36, "the article keeps {article} columns");
}

#[test]
fn dragging_the_tree_border_sets_its_width() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 160, 45);
    let tree = app.areas.of(Pane::Bank).unwrap();
    let border = tree.x + tree.width - 1;
    mouse(
        &mut app,
        MouseEventKind::Down(MouseButton::Left),
        border,
        10,
    );
    mouse(
        &mut app,
        MouseEventKind::Drag(MouseButton::Left),
        border + 9,
        12,
    );
    mouse(
        &mut app,
        MouseEventKind::Drag(MouseButton::Left),
        border + 15,
        12,
    );
    mouse(
        &mut app,
        MouseEventKind::Up(MouseButton::Left),
        border + 15,
        12,
    );
    assert_eq!(tree_width(&app), tree.width + 15);
    assert_eq!(app.tree_width, Some(tree.width + 15));
    // After the button is let go, moving on does not resize.
    mouse(
        &mut app,
        MouseEventKind::Drag(MouseButton::Left),
        border + 30,
        12,
    );
    assert_eq!(tree_width(&app), tree.width + 15);
}

#[test]
fn a_remembered_tree_width_is_kept_within_a_small_screen() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 160, 45);
    app.restore_tree_width(70);
    assert_eq!(tree_width(&app), 70);
    super::update::update(&mut app, super::app::Msg::Resize(80, 24));
    assert_eq!(tree_width(&app), 80 - 36, "the article keeps its columns");
    super::update::update(&mut app, super::app::Msg::Resize(160, 45));
    assert_eq!(tree_width(&app), 70, "the chosen width comes back");
}

#[test]
fn health_shows_a_deep_file_by_its_name_with_its_folder_dimmed_apart() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    // The same name in a sibling folder, also without front matter.
    let twin = dir
        .path()
        .join("03_DOMAINS/ObsidianHelp/Plugins/Community plugins/Canvas.md");
    std::fs::create_dir_all(twin.parent().unwrap()).unwrap();
    std::fs::write(&twin, "# Canvas\n\nSee [[Start here]].\n").unwrap();
    let mut app = app_at(dir.path(), 80, 24);
    app.bank_label = "nested".into();
    app.status.bank = app.bank_label.clone();
    while app.focus != Pane::Health {
        key(&mut app, KeyCode::Tab);
    }
    let s = screen(&app);
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains("Canvas.md:1  The"))
        .collect();
    assert_eq!(rows.len(), 2, "both files named on their rows: {s}");
    assert!(
        rows.iter()
            .any(|r| r.contains("…ins/Core plugins/Canvas.md:1")),
        "{s}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("…ommunity plugins/Canvas.md:1")),
        "{s}"
    );
    assert_snapshot!(s);
}

#[test]
fn the_finder_keeps_a_deep_files_name_and_the_end_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    app.bank_label = "nested".into();
    app.status.bank = app.bank_label.clone();
    keys(&mut app, "/formatting syntax");
    let s = screen(&app);
    for name in ["Advanced formatting syntax", "Basic formatting syntax"] {
        let row = s.lines().find(|l| l.contains(name)).unwrap_or_else(|| {
            panic!("{name} whole: {s}");
        });
        // The folder's start gives way, its end stays.
        assert!(row.contains("  …"), "{row}");
        assert!(row.contains("/Editing and formatting/│"), "{row}");
    }
    assert_snapshot!(s);
}

#[test]
fn on_a_screen_too_narrow_for_two_panes_the_width_keys_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 60, 15);
    keys(&mut app, "<<>");
    assert_eq!(app.tree_width, None, "nothing to remember");
    assert!(screen(&app).contains("the tree fills the screen"));
    super::update::update(&mut app, super::app::Msg::Resize(160, 45));
    assert_eq!(tree_width(&app), 32, "the default width");
}

#[test]
fn sorting_by_findings_puts_folders_and_files_with_findings_first() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    open_folders(&mut app, &["ObsidianHelp", "Plugins", "Core plugins"]);
    // The labels in the order the tree shows them.
    let order = |app: &super::app::App| -> Vec<String> {
        let rows = &app.panes.bank.rows;
        let mut shown: Vec<(usize, &str)> =
            ["Editing and formatting", "Plugins", "Backlinks", "Canvas"]
                .into_iter()
                .filter_map(|l| rows.iter().position(|r| r.label() == l).map(|at| (at, l)))
                .collect();
        shown.sort();
        shown.into_iter().map(|(_, l)| l.to_owned()).collect()
    };
    assert_eq!(
        order(&app),
        ["Editing and formatting", "Plugins", "Backlinks", "Canvas"]
    );
    keys(&mut app, "ss");
    assert!(screen(&app).contains("Bank — by findings"));
    assert_eq!(
        order(&app),
        ["Plugins", "Canvas", "Backlinks", "Editing and formatting"]
    );
}

#[test]
fn a_click_on_a_folders_mark_folds_it_and_a_click_on_its_name_selects_it() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    let inside = super::areas::inner(app.areas.of(Pane::Bank).unwrap());
    let at = |app: &super::app::App, label: &str| {
        let i = app.panes.bank.rows.iter().position(|r| r.label() == label);
        inside.y + i.unwrap() as u16
    };
    let shown =
        |app: &super::app::App, label: &str| app.panes.bank.rows.iter().any(|r| r.label() == label);
    let left = MouseEventKind::Down(MouseButton::Left);
    // ObsidianHelp is one level down: its mark is two columns in.
    let row = at(&app, "ObsidianHelp");
    mouse(&mut app, left, inside.x + 2, row);
    assert!(shown(&app, "Plugins"), "unfolded by one click");
    assert_eq!(app.panes.bank.selected().unwrap().label(), "ObsidianHelp");
    mouse(&mut app, left, inside.x + 3, row);
    assert!(!shown(&app, "Plugins"), "folded again");
    // On the name, a first click only selects.
    let row = at(&app, "01_CLIENTS");
    mouse(&mut app, left, inside.x + 6, row);
    assert_eq!(app.panes.bank.selected().unwrap().label(), "01_CLIENTS");
    assert!(shown(&app, "Globex"), "still open");
}

#[test]
fn the_trees_help_names_the_width_keys_and_still_fits_24_lines() {
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    keys(&mut app, "?");
    let s = screen(&app);
    assert!(s.contains("<, >"), "{s}");
    assert!(s.contains("make the tree pane narrower / wider"), "{s}");
    assert!(s.contains("Ctrl-Z"), "the global keys fit: {s}");
}

#[test]
fn a_files_row_shares_its_path_with_the_files_grouped_for_the_tree() {
    use super::panes::bank::{TreeSort, bank_rows, group_files};
    use std::collections::BTreeSet;
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let bank = membank_core::bank::Bank::load(dir.path()).unwrap();
    let grouped = group_files(&bank, TreeSort::Name, &Default::default());
    let paths: Vec<&std::sync::Arc<str>> = grouped
        .values()
        .flat_map(|(files, archived)| files.iter().chain(archived))
        .collect();
    // Every folder open, so every file has a row.
    let open: BTreeSet<String> = paths
        .iter()
        .flat_map(|rel| {
            let parts: Vec<&str> = rel.split('/').collect();
            (1..parts.len())
                .map(|n| parts[..n].join("/"))
                .collect::<Vec<_>>()
        })
        .collect();
    let rows = bank_rows(Some(&bank), &grouped, &open, &Default::default());
    let files: Vec<&std::sync::Arc<str>> = rows
        .iter()
        .filter_map(|r| match &r.kind {
            RowKind::File { rel } => Some(rel),
            RowKind::Folder { .. } => None,
        })
        .collect();
    assert_eq!(files.len(), 10, "{files:?}");
    assert_eq!(files.len(), paths.len());
    // One copy of each path: a bank of 100,000 files held two.
    for rel in files {
        assert!(
            paths.iter().any(|p| std::sync::Arc::ptr_eq(p, rel)),
            "{rel} is a copy"
        );
    }
}

/// A file with findings is grouped under the findings' own copy of its
/// path, not another one (most files of a large bank have findings).
#[test]
fn grouped_files_share_the_paths_of_their_findings() {
    use super::panes::bank::{TreeSort, group_files};
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let bank = membank_core::bank::Bank::load(dir.path()).unwrap();
    let report = membank_core::health::check(
        &bank,
        &membank_core::health::HealthOptions::as_of(super::TESTS_CLOCK.today()),
    );
    let flagged = crate::tui::panes::health::flagged_files(&report);
    assert!(!flagged.is_empty(), "the bank has findings on its files");
    let grouped = group_files(&bank, TreeSort::Name, &flagged);
    let grouped: Vec<&std::sync::Arc<str>> = grouped
        .values()
        .flat_map(|(files, archived)| files.iter().chain(archived))
        .collect();
    let mut shared = 0;
    for kept in grouped {
        let of_file: Vec<_> = report
            .findings
            .iter()
            .filter(|f| *f.path == **kept)
            .collect();
        if of_file.is_empty() {
            continue;
        }
        assert!(
            of_file
                .iter()
                .any(|f| std::sync::Arc::ptr_eq(kept, &f.path)),
            "{kept} is a copy"
        );
        shared += 1;
    }
    assert!(shared > 0, "no file with findings is in the tree");
}

/// A file shown by its name keeps no text of its own (a bank of 100,000
/// files held a copy of each name per row): its name is taken from its
/// path when drawn, `.md` or `.MD` cut and control characters made
/// harmless, as when it was kept; a skipped file keeps its reason first.
#[test]
fn a_files_row_takes_its_name_from_its_path() {
    use super::panes::bank::{TreeSort, bank_rows, group_files};
    use membank_core::text::sanitize_for_terminal;
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let odd = [
        "01_CLIENTS/Tab\tand \u{1b}[31mred.md",
        "01_CLIENTS/Loud.MD",
        "01_CLIENTS/dots.v2.md",
        "02_TERMINOLOGY/_EXAMPLE_Term.md",
        "02_TERMINOLOGY/_draft.md",
    ];
    for rel in odd {
        std::fs::write(dir.path().join(rel), "---\n---\n# x\n").unwrap();
    }
    let bank = membank_core::bank::Bank::load(dir.path()).unwrap();
    let grouped = group_files(&bank, TreeSort::Name, &Default::default());
    let open = ["01_CLIENTS", "02_TERMINOLOGY"]
        .map(String::from)
        .into_iter()
        .collect();
    let rows = bank_rows(Some(&bank), &grouped, &open, &Default::default());
    let shown = |rel: &str| {
        let row = rows
            .iter()
            .find(|r| matches!(&r.kind, RowKind::File { rel: r } if **r == *rel))
            .unwrap_or_else(|| panic!("{rel} has no row: {rows:#?}"));
        (row.text.clone(), row.label().into_owned())
    };
    assert_eq!(
        shown("01_CLIENTS/Tab\tand \u{1b}[31mred.md"),
        (None, sanitize_for_terminal("Tab\tand \u{1b}[31mred", false))
    );
    assert!(
        !shown("01_CLIENTS/Tab\tand \u{1b}[31mred.md")
            .1
            .contains('\u{1b}')
    );
    assert_eq!(shown("01_CLIENTS/Globex.md"), (None, "Globex".into()));
    assert_eq!(shown("01_CLIENTS/dots.v2.md"), (None, "dots.v2".into()));
    let (text, label) = shown("02_TERMINOLOGY/_EXAMPLE_Term.md");
    assert_eq!(label, "(unused example) _EXAMPLE_Term");
    assert_eq!(text.as_deref(), Some(label.as_str()));
    assert_eq!(
        shown("02_TERMINOLOGY/_draft.md").1,
        "(skipped: _ name) _draft"
    );
    if let Some(row) = rows
        .iter()
        .find(|r| matches!(&r.kind, RowKind::File { rel } if &**rel == "01_CLIENTS/Loud.MD"))
    {
        assert_eq!(row.label(), "Loud");
    }
    // Folders keep their names; every row has one.
    assert_eq!(
        rows.iter()
            .find(|r| r.depth == 0)
            .map(|r| r.label().into_owned()),
        Some("00_INBOX".to_owned())
    );
    assert!(rows.iter().all(|r| !r.label().is_empty()));
}

/// The files grouped for the tree are kept until the bank changes: each
/// list holds its paths and no spare room (grown by doubling, a large
/// bank's lists held room for about as many again).
#[test]
fn the_files_grouped_for_the_tree_keep_no_spare_room() {
    use super::panes::bank::{TreeSort, group_files};
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let bank = membank_core::bank::Bank::load(dir.path()).unwrap();
    for sort in [TreeSort::Name, TreeSort::Date, TreeSort::Findings] {
        let grouped = group_files(&bank, sort, &Default::default());
        let lists: Vec<_> = grouped
            .values()
            .flat_map(|(files, archived)| [files, archived])
            .collect();
        assert!(lists.iter().any(|l| l.len() == 3), "{lists:?}");
        for list in lists {
            assert_eq!(list.capacity(), list.len(), "{list:?}");
        }
    }
}

/// The tree's orders are grouped on a worker: a grouping that arrives
/// after another order was asked for, or for an order no longer wanted,
/// is dropped, and the tree keeps the order it shows.
#[test]
fn a_sorted_tree_that_is_no_longer_wanted_is_not_shown() {
    use super::panes::bank::{SortedTree, TreeSort};
    let dir = tempfile::tempdir().unwrap();
    nested_bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    keys(&mut app, "s");
    assert_eq!(app.panes.bank.sort, TreeSort::Date);
    let labels = |app: &super::app::App| -> Vec<String> {
        let rows = &app.panes.bank.rows;
        rows.iter().map(|r| r.label().into()).collect()
    };
    let before = labels(&app);
    let memory = std::sync::Arc::clone(&app.memory);
    let bank = crate::layouts::bank(&*memory).unwrap();
    let expanded = app.panes.bank.expanded().clone();
    for generation in [0, 1, 2, 7] {
        let stale = SortedTree::of(
            bank,
            TreeSort::Findings,
            generation,
            &app.flagged,
            expanded.clone(),
        );
        let shown = app
            .panes
            .bank
            .sorted(stale, memory.as_ref(), &app.flagged, 20);
        assert_eq!(shown, None, "generation {generation}");
    }
    assert_eq!(app.panes.bank.sort, TreeSort::Date);
    assert_eq!(before, labels(&app));
    // Asked for again, it is shown.
    keys(&mut app, "s");
    assert_eq!(app.panes.bank.sort, TreeSort::Findings);
    assert!(screen(&app).contains("Bank — by findings"));
}
