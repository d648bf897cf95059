use std::process::ExitCode;

use membank_core::init::init_bank;
use membank_core::text::sanitize_for_terminal;

use crate::demo;

pub use membank_args::init::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let shown = |p: &std::path::Path| sanitize_for_terminal(&p.display().to_string(), false);
    // --format is global: a layout other than a bank's must not be
    // answered with a bank.
    let other = super::common::forced_format()
        .map(|l| l.kind)
        .filter(|k| *k != membank_core::memory::LayoutKind::Bank);
    if let Some(kind) = other {
        type Extract = fn() -> anyhow::Result<std::path::PathBuf>;
        let (dir, what): (Extract, &str) = match kind {
            membank_core::memory::LayoutKind::DejaVu => (demo::demo_dejavu_dir, "Deja Vu project"),
            _ => (demo::demo_everos_dir, "everos root"),
        };
        if !args.demo || args.dir.is_some() {
            anyhow::bail!(
                "init makes memory banks; a {what} is made by its own tool. `membank init --demo \
                 --format {}` extracts the demo {what} and prints where",
                kind.spec().name
            );
        }
        let dir = dir()?;
        eprintln!("Demo {what} extracted (replaced on the next extraction):");
        outln!("{}", shown(&dir))?;
        return Ok(ExitCode::SUCCESS);
    }
    match (args.demo, args.dir) {
        (true, None) => {
            let dir = demo::demo_bank_dir()?;
            eprintln!("Demo memory bank extracted (replaced on the next extraction):");
            outln!("{}", shown(&dir))?;
        }
        (true, Some(dir)) => {
            demo::write_demo_bank(&dir)?;
            outln!(
                "Created the demo memory bank in {} ({} files).",
                shown(&dir),
                demo::FILES.len()
            )?;
        }
        (false, Some(dir)) => {
            let created = init_bank(&dir)?;
            outln!(
                "Created a memory bank in {}: {} folders, {} files (templates, examples, README.md).",
                shown(&dir),
                created.folders.len(),
                created.files.len()
            )?;
            outln!("Drop raw notes into 00_INBOX/; the _EXAMPLE_ files show the article format.")?;
        }
        (false, None) => anyhow::bail!("give a folder for the new bank, or --demo"),
    }
    Ok(ExitCode::SUCCESS)
}
